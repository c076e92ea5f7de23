/**
 * The admin API under `/__admin/`: the virtual clock, the fleet's counts and digest, the
 * running scenario, one agent's overrides and API fault injection, and a health check.
 * Authenticated with the facade's REST_USER / REST_PASSWORD headers (but the health check);
 * always JSON; errors in the facade's envelope with catalogue codes (servicename `admin`).
 * docs/admin.md describes every endpoint.
 *
 * Encapsulated (a plugin with its own prefix): its hooks, parsers, error and not-found
 * handlers apply to admin routes only, and the REST operations never see them.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createAuthCheck, type AuthCheck, type Credentials } from '../protocol/auth.js'
import { isServerFailure, toCatalogueError } from '../http/error-handler.js'
import { otherMethods } from '../http/allowed-methods.js'
import { connectionAfterError, readJsonOnly } from '../http/content-parsers.js'
import { apiError } from '../protocol/errors.js'
import { credentialProblem } from '../protocol/credential-problem.js'
import { FaultState } from '../faults/state.js'
import type { FleetEngine } from '../fleet/fleet.js'
import type { Manager } from '../manager/manager.js'
import type { AdminContext } from './context.js'
import { objectBody } from './body.js'
import type { AdminSchema } from './openapi.js'
import { InvalidScenarioError, issueItems } from './scenario-load.js'
import { clockRoutes } from './routes/clock.js'
import { faultRoutes } from './routes/faults.js'
import { fleetRoutes } from './routes/fleet.js'
import { healthRoutes } from './routes/health.js'
import { libraryRoutes } from './routes/library.js'
import { scenarioRoutes } from './routes/scenario.js'
import { snapshotRoutes, type SaveState } from './routes/snapshot.js'

export const ADMIN_PREFIX = '/__admin'
/** The health check's path: open without credentials (routes/health.ts). */
const HEALTH_PATH = `${ADMIN_PREFIX}/health`

/** Endpoints whose body is in the scenario language (src/admin/text-body.ts), and what it is. */
const SCENARIO_LANGUAGE_BODIES: Readonly<Record<string, string>> = {
  [`PUT ${ADMIN_PREFIX}/scenario`]: 'scenario',
  [`POST ${ADMIN_PREFIX}/faults`]: 'fault rule'
}
const SERVICE = 'admin'

export interface AdminPluginOptions {
  engine: FleetEngine
  manager: Manager
  /** the facade's credentials (or its check) */
  auth: Credentials | AuthCheck
  /** fault injection state shared with the faults plugin; default: a new one over the engine */
  faults?: FaultState
  /** saves the simulation to the state file (POST /__admin/snapshot); absent without --state-file */
  saveState?: SaveState
  /** fleetsim's version, for GET /__admin/health */
  version: string
}

function sendErrors(reply: FastifyReply, status: number, errors: object[]): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ servicename: SERVICE, errors })
}

export async function adminPlugin(app: FastifyInstance, options: AdminPluginOptions): Promise<void> {
  const authCheck = typeof options.auth === 'function' ? options.auth : createAuthCheck(options.auth)
  const context: AdminContext = { engine: options.engine, manager: options.manager, faults: options.faults ?? new FaultState(options.engine) }
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024

  /** Admin errors in the admin envelope (JSON, servicename admin), the health check's too. */
  const handleError = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof InvalidScenarioError) return sendErrors(reply, 400, issueItems(error))
    connectionAfterError(error, request, reply)
    let apiErr = toCatalogueError(error, request, bodyLimit)
    // By the route matched, not the path as sent: `/__admin/scenario/` is the same route.
    const what = apiErr.code === 'E_UNSUPPORTED_MEDIA_TYPE' ? SCENARIO_LANGUAGE_BODIES[`${request.method} ${request.routeOptions.url ?? ''}`] : undefined
    if (what !== undefined) apiErr = apiError('E_SCENARIO_MEDIA_TYPE', { contentType: request.headers['content-type'] ?? '', what })
    if (isServerFailure(apiErr)) request.log.error({ err: error }, 'admin request failed')
    const status = apiErr.statusCode
    return sendErrors(reply, status, [apiErr, ...apiErr.more].map((e) => ({ status, message: e.message, code: e.code })))
  }

  // The health check, outside the scope that asks for credentials: a load balancer's check sends
  // none. Its errors (503 past --max-connections, 431, ...) are admin errors all the same.
  await app.register(
    async (scope) => {
      scope.setErrorHandler(handleError)
      healthRoutes(scope, { version: options.version })
    },
    { prefix: ADMIN_PREFIX }
  )

  await app.register(
    async (scope) => {
      scope.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
        // A wrong method on the health check's path (a routeless request here) is its 405, not a
        // 401: the path is open to everyone.
        if (request.routeOptions.url === undefined && request.url.split('?')[0] === HEALTH_PATH) return done()
        done(authCheck(request.headers) ? undefined : apiError('E_UNAUTHORIZED', { problem: credentialProblem(request.headers, request.url, request.raw.rawHeaders) }))
      })

      scope.setErrorHandler(handleError)
      readJsonOnly(scope)
      // An endpoint that takes no body refuses one with fields, rather than doing its work without
      // them: `POST /__admin/reset {"seed": 5}` was a reset of the same seed, and said nothing.
      scope.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
        const schema = request.routeOptions.schema as AdminSchema | undefined
        if (schema === undefined || schema['x-fleetsim-body'] !== undefined) return done()
        try {
          objectBody(request.body, `${request.method} ${request.routeOptions.url}`, '{}', [], false)
          done()
        } catch (error) {
          done(error as Error)
        }
      })

      scope.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
        const path = request.url.split('?')[0]
        // A path served with other methods: 405 with Allow, as every other path outside the operations.
        const allowed = otherMethods(request.server, request.method, path)
        if (allowed.length > 0) {
          request.servedPath = path
          reply.header('allow', allowed.join(', '))
        }
        const error =
          allowed.length > 0 ? apiError('E_PATH_METHOD_NOT_ALLOWED', { path, method: request.method, allowed }) : apiError('E_UNKNOWN_ADMIN_PATH', { method: request.method, path })
        return sendErrors(reply, error.statusCode, [{ status: error.statusCode, message: error.message, code: error.code }])
      })

      clockRoutes(scope, context)
      fleetRoutes(scope, context)
      snapshotRoutes(scope, options.saveState)
      await faultRoutes(scope, context)
      await scenarioRoutes(scope, context)
      libraryRoutes(scope, context)
    },
    { prefix: ADMIN_PREFIX }
  )
}
