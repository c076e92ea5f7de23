/**
 * buildApp registers the whole manager facade (every operation of the spec under
 * `${appPath}/restservice/`, content parsers, error envelope, 404/405, OpenAPI) and never
 * listens: the server entry listens, tests use `inject`.
 *
 * Observing requests: every operation's route sets `request.operation` (e.g. `agentinfo`) in
 * its first onRequest hook; hooks added with `app.addHook(...)` after buildApp see it from
 * their own onRequest on (route-level hooks run after app-level ones, so read it from
 * preHandler / onResponse onward, or compare `request.routeOptions.config.operation`).
 */
import { readFileSync } from 'node:fs'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import swagger from '@fastify/swagger'
import type { Fleet } from './fleet/fleet-api.js'
import type { CaInfo } from './tls/ca-info.js'
import { AnswerCache } from './http/answer-cache.js'
import { createAuthCheck } from './http/auth.js'
import { registerContentParsers } from './http/content-parsers.js'
import { createErrorHandler } from './http/error-handler.js'
import { handleClientError } from './http/client-errors.js'
import { registerLimits } from './http/limits.js'
import { Links } from './http/links.js'
import { createNotFoundHandler } from './http/not-found.js'
import { createRouteKit } from './http/route-kit.js'
import { agentCommandRoutes } from './http/routes/agent-commands.js'
import { agentConfigRoutes } from './http/routes/agent-config.js'
import { agentinfoRoutes } from './http/routes/agentinfo.js'
import { certificateRoutes } from './http/routes/certificateinfo.js'
import { labelRoutes } from './http/routes/labels.js'
import { managerRoutes } from './http/routes/manager-info.js'
import { templateRoutes } from './http/routes/templates.js'
import { viewRoutes } from './http/routes/view.js'
import { MAX_PARAM_LENGTH, handleFrameworkError } from './http/unrouted.js'
import { createValidatorCompiler } from './http/validation.js'
import { createHarness, harnessPlugin, type Harness } from './harness/plugin.js'
import type { StoredLimits } from './manager/limits.js'
import { createManager, type Manager } from './manager/manager.js'
import { RequestLogController } from './metrics/request-log.js'
import './http/request-context.js'

export { createAuthCheck, type AuthCheck, type Credentials } from './http/auth.js'
export { createManager, type Manager } from './manager/manager.js'

export interface AppOptions {
  fleet: Fleet
  /** application path ending in `mvc`; default `/manager/mvc` */
  appPath?: string
  auth: { user: string; password: string }
  ca: CaInfo
  logger?: FastifyServerOptions['logger'] | FastifyBaseLogger
  /** largest request body in bytes; default 1 MiB */
  bodyLimit?: number
  /** most items one list query parameter may hold; default 100000 */
  maxListItems?: number
  /** longest query string in bytes (414 past it); default 1 MiB */
  maxQueryLength?: number
  /** manager state to serve; default a fresh one for the fleet and CA */
  manager?: Manager
  /**
   * how much the default manager stores for clients (labels, fields, templates, agents' text;
   * src/manager/limits.ts); default STORED_LIMIT_DEFAULTS. A given `manager` keeps its own.
   */
  storedLimits?: Partial<StoredLimits>
  /** `host:port` agentmanager reports the agent listener on; default `0.0.0.0:4041` */
  agentListener?: string
  /** request journal and strict mode (src/harness); default a lenient one with 10,000 entries */
  harness?: Harness
  /** kept agentinfo-by-name answers, shared with a front door (src/http/front-door.ts); default one of its own */
  answers?: AnswerCache
}

export const DEFAULT_APP_PATH = '/manager/mvc'
export const DEFAULT_BODY_LIMIT = 1024 * 1024
export const DEFAULT_MAX_LIST_ITEMS = 100_000
export const DEFAULT_MAX_QUERY_LENGTH = 1024 * 1024

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

function isLoggerInstance(logger: AppOptions['logger']): logger is FastifyBaseLogger {
  return typeof logger === 'object' && logger !== null && typeof (logger as FastifyBaseLogger).child === 'function'
}

/** `manager/mvc/` → `/manager/mvc` */
function normaliseAppPath(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const appPath = normaliseAppPath(options.appPath ?? DEFAULT_APP_PATH)
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const logger = options.logger
  const app = Fastify({
    bodyLimit,
    // Router errors (a bad percent-encoding, an overlong path segment) in the error envelope.
    frameworkErrors: handleFrameworkError,
    // Unreadable HTTP on servers fastify itself listens with (tests, benchmarks); src/server.ts installs the same.
    clientErrorHandler: handleClientError,
    http: { requireHostHeader: false },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // One structured line per request (operation, status, time) instead of fastify's pair.
    logController: new RequestLogController(),
    ...(isLoggerInstance(logger) ? { loggerInstance: logger } : { logger: logger ?? false })
  })

  app.setValidatorCompiler(createValidatorCompiler(options.maxListItems ?? DEFAULT_MAX_LIST_ITEMS))
  app.decorateRequest('operation', '')
  app.decorateRequest('format', 'xml')
  registerContentParsers(app)
  app.setErrorHandler(createErrorHandler(bodyLimit))
  app.setNotFoundHandler(createNotFoundHandler(appPath))
  // Before the routes, so its hooks wrap every one of them (see src/harness/recorder.ts).
  const harness = options.harness ?? createHarness()
  await app.register(harnessPlugin, {
    harness,
    // The admin credentials when the harness has its own (--admin-user), else the facade's.
    authCheck: createAuthCheck(harness.auth ?? options.auth),
    now: () => options.fleet.now(),
    uuidOf: (name) => {
      const index = options.fleet.findByName(name)
      return index === undefined ? undefined : options.fleet.uuid(index)
    },
    faultCounts: () => (options.fleet as Partial<{ stats: { faultsInjected: Record<string, number> } }>).stats?.faultsInjected ?? {}
  })
  registerLimits(app, { maxQueryLength: options.maxQueryLength ?? DEFAULT_MAX_QUERY_LENGTH })

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'fleetsim agent manager REST service',
        description: 'Simulated agent manager. Every operation needs the REST_USER and REST_PASSWORD headers.',
        version: PACKAGE_VERSION
      },
      components: {
        securitySchemes: {
          restUser: { type: 'apiKey', in: 'header', name: 'REST_USER' },
          restPassword: { type: 'apiKey', in: 'header', name: 'REST_PASSWORD' }
        }
      },
      security: [{ restUser: [], restPassword: [] }]
    }
  })

  const kit = createRouteKit({
    manager: options.manager ?? createManager(options.fleet, options.ca, { limits: options.storedLimits }),
    links: new Links(appPath),
    agentListener: options.agentListener ?? '0.0.0.0:4041',
    answers: options.answers ?? new AnswerCache(options.fleet),
    appVersion: PACKAGE_VERSION,
    authCheck: createAuthCheck(options.auth)
  })
  await app.register(
    async (scope) => {
      agentinfoRoutes(scope, kit)
      agentConfigRoutes(scope, kit)
      agentCommandRoutes(scope, kit)
      labelRoutes(scope, kit)
      templateRoutes(scope, kit)
      managerRoutes(scope, kit)
      certificateRoutes(scope, kit)
      viewRoutes(scope, kit)
    },
    { prefix: `${appPath}/restservice` }
  )

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  return app
}
