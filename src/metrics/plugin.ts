/**
 * The metrics plugin: `GET /metrics` in the Prometheus text format, and the request hooks that
 * feed the API metrics. Registered at the root (it skips fastify's encapsulation, as
 * fastify-plugin would), so its hooks see every route, including those registered later.
 *
 * `/metrics` needs no credentials unless `requireAuth` is set (`--metrics-auth`); then it takes
 * the facade's REST_USER / REST_PASSWORD headers, or the same pair as HTTP Basic auth, which is
 * what Prometheus's `basic_auth` scrape option sends.
 */
import { PassThrough, pipeline, type Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Registry } from 'prom-client'
import type { AuthCheck } from '../protocol/auth.js'
import { answerSeries, observeAnswer, type ApiMetrics } from './api-metrics.js'
import { operationOf } from './operation.js'
import { onResponseDone } from '../lib/response-done.js'
import { registerMetrics } from './registry.js'
import type { MetricsSource } from './source.js'

export const METRICS_PATH = '/metrics'

export interface MetricsPluginOptions {
  /** the simulator the fleet, scenario and simulator metrics read */
  engine: MetricsSource
  /** default: a new registry of its own */
  registry?: Registry
  /**
   * the API metrics already on `registry` (both from `createRegistry`), for a caller that also
   * observes answers itself (the fast path); default: registered here
   */
  api?: ApiMetrics
  /** prom-client's process and Node.js metrics on the registry (default true) */
  processMetrics?: boolean
  /** require credentials on /metrics (default false) */
  requireAuth?: boolean
  /** the facade's credential check; needed when requireAuth is set */
  authCheck?: AuthCheck
}

/** The REST_USER / REST_PASSWORD pair of an `Authorization: Basic` header, as headers the facade's check reads. */
function basicAuthHeaders(authorization: string | undefined): { rest_user?: string; rest_password?: string } {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '')
  if (match === null) return {}
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? {} : { rest_user: decoded.slice(0, colon), rest_password: decoded.slice(colon + 1) }
}

function isStream(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function'
}

function requestHooks(app: FastifyInstance, api: ApiMetrics): void {
  // Response body sizes by request; a WeakMap so nothing is added to every request object.
  const sizes = new WeakMap<FastifyRequest, number>()

  app.addHook('onRequest', function countInFlight(request: FastifyRequest, reply: FastifyReply, done: () => void) {
    api.inFlight.inc()
    // Once per response, finished, aborted or dropped from a pipeline's queue, so the gauge always comes back down.
    onResponseDone(reply.raw, request.raw.socket, () => api.inFlight.dec())
    done()
  })

  app.addHook('onSend', function measureAnswer(request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, payload?: unknown) => void) {
    if (typeof payload === 'string') sizes.set(request, Buffer.byteLength(payload))
    else if (payload instanceof Uint8Array) sizes.set(request, payload.byteLength)
    else if (isStream(payload)) {
      // Streamed lists: count the bytes as they pass; the total is complete when the response
      // finishes, which is before onResponse runs.
      let bytes = 0
      const counter = new PassThrough()
      counter.on('data', (chunk: Buffer | string) => {
        bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength
        sizes.set(request, bytes)
      })
      sizes.set(request, 0)
      done(null, pipeline(payload, counter, () => undefined))
      return
    } else sizes.set(request, 0)
    done(null, payload)
  })

  app.addHook('onResponse', function observeRequest(request: FastifyRequest, reply: FastifyReply, done: () => void) {
    observeAnswer(answerSeries(api, operationOf(request, METRICS_PATH), request.method, reply.statusCode), reply.elapsedTime / 1000, sizes.get(request) ?? 0)
    done()
  })
}

async function metricsPluginImpl(app: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const { requireAuth = false, authCheck } = options
  if (requireAuth && authCheck === undefined) throw new TypeError('metricsPlugin: requireAuth needs an authCheck')
  // Metrics on another registry than the one /metrics serves would never be seen.
  if (options.api !== undefined && options.registry === undefined) throw new TypeError('metricsPlugin: api needs the registry it is on')
  const registry = options.registry ?? new Registry()
  const api = options.api ?? registerMetrics(registry, options.engine, { process: options.processMetrics ?? true })
  requestHooks(app, api)

  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (requireAuth && authCheck !== undefined) {
      const headers = request.headers.rest_user !== undefined ? request.headers : basicAuthHeaders(request.headers.authorization)
      if (!authCheck(headers)) {
        return reply
          .code(401)
          .header('www-authenticate', 'Basic realm="fleetsim metrics", charset="UTF-8"')
          .type('text/plain; charset=utf-8')
          .send('/metrics needs credentials (--metrics-auth is on): send REST_USER and REST_PASSWORD headers, or the same pair as HTTP Basic auth\n')
      }
    }
    // A scrape during a reset waits for it: the gauges of a fleet being rebuilt read none, then some, of its agents.
    await options.engine.resetting?.()
    const text = await registry.metrics()
    return reply.type(registry.contentType).send(text)
  })
}

/**
 * Registers /metrics and the API metric hooks on the app it is given (not an encapsulated
 * child), so the hooks cover every route: the `skip-override` symbol is what fastify-plugin
 * sets, without the dependency.
 */
export const metricsPlugin = Object.assign(metricsPluginImpl, { [Symbol.for('skip-override')]: true })
