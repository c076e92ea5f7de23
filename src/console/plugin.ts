/**
 * The console at /console: pages to watch and drive the simulation in a browser, behind the
 * admin credentials (auth.ts: a login form with a session cookie, or HTTP Basic). docs/console.md
 * describes it.
 *
 *   /console/login, /console/logout       login.ts (no login needed)
 *   /console/assets/, /chart/, /vendor/    static files: web/console/, web/chart/, uPlot (assets.ts)
 *   /console/<page>                        the pages of pages/index.ts, in one shell (html.ts)
 *   /console/api/events                    the live stream (stream.ts; topic `fleet`, fleet-topic.ts)
 *   /console/api/admin/*, /console/api/rest/*   the admin and REST operations (proxy.ts)
 *   /console/api/<page's routes>           each page's own JSON
 *
 * Encapsulated: its hooks, parsers, error and not-found handlers apply under /console only.
 * Page requests without a login are sent to the login form; API requests get 401 in the admin
 * error envelope (servicename `console`). Requests that change something must carry the header
 * X-Fleetsim-Console (auth.ts says why).
 */
import { Readable } from 'node:stream'
import fastifyStatic from '@fastify/static'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isServerFailure, toCatalogueError } from '../http/error-handler.js'
import { connectionAfterError } from '../http/content-parsers.js'
import { UNDOCUMENTED } from '../http/openapi.js'
import type { FleetEngine } from '../fleet/fleet.js'
import { Journal } from '../journal/journal.js'
import type { Manager } from '../manager/manager.js'
import { createAuthCheck, type Credentials } from '../protocol/auth.js'
import { ApiError, apiError, shown } from '../protocol/errors.js'
import { STATIC_DIRS, UPLOT_DIR } from './assets.js'
import { SESSION_COOKIE, consoleUser, crossSiteReason, isSafeMethod, readCookie, type ConsoleUser } from './auth.js'
import { FleetHistory } from './fleet-history.js'
import { fleetTopic } from './fleet-topic.js'
import { PAGE_HEADERS, shell } from './layout.js'
import { API_PREFIX, CONSOLE_PREFIX } from './paths.js'
import { HOME_PATH, loginLocation, loginRoutes } from './login.js'
import type { ConsoleContext, ConsoleInject, ConsolePage } from './page.js'
import { ErrorMarkup } from './markup.js'
import { PAGES } from './pages/index.js'
import { proxyRoutes } from './proxy.js'
import { SessionStore } from './session.js'
import { EventHub, STREAM_HEAD } from './stream.js'
import { otherMethods } from '../http/allowed-methods.js'

const SERVICE = 'console'
/** While no page is open, the chart's history is still sampled this often (wall ms). */
export const HISTORY_SAMPLE_MS = 1000

export interface ConsolePluginOptions {
  engine: FleetEngine
  manager: Manager
  /** the request journal the Traffic page follows; default an empty one (no journal) */
  journal?: Journal
  appPath: string
  credentials: { rest: Credentials; admin: Credentials }
  /** runs a request through the whole app (ConsoleContext.inject) */
  inject: ConsoleInject
  /** the live stream; default a new one. buildApp passes its own, to end the streams at shutdown. */
  hub?: EventHub
  sessions?: SessionStore
  /** default PAGES */
  pages?: readonly ConsolePage[]
}

declare module 'fastify' {
  interface FastifyRequest {
    /** who is using the console (set for authenticated console routes) */
    consoleUser?: ConsoleUser
  }
}

function sendErrors(reply: FastifyReply, status: number, errors: object[]): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').header('cache-control', 'no-store').send({ servicename: SERVICE, errors })
}

function isApi(request: FastifyRequest): boolean {
  return request.url.startsWith(API_PREFIX)
}

export async function consolePlugin(app: FastifyInstance, options: ConsolePluginOptions): Promise<void> {
  const { engine, manager } = options
  const pages = options.pages ?? PAGES
  const adminCheck = createAuthCheck(options.credentials.admin)
  const sessions = options.sessions ?? new SessionStore()
  const hub = options.hub ?? new EventHub()
  const history = new FleetHistory(engine)
  hub.addTopic(fleetTopic(engine, history))
  const journal = options.journal ?? new Journal(0)
  const context: ConsoleContext = { engine, manager, journal, appPath: options.appPath, hub, history, inject: options.inject, credentials: options.credentials }
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024

  // The chart has a past when a page opens: samples are taken while nobody watches too.
  const sampler = setInterval(() => history.record(), HISTORY_SAMPLE_MS).unref()
  history.record()
  // Before the server stops taking connections: an open stream would keep it waiting.
  app.addHook('preClose', async () => {
    hub.close()
  })
  app.addHook('onClose', async () => {
    clearInterval(sampler)
  })

  await app.register(
    async (scope) => {
      // The console is no part of the API the OpenAPI document describes (docs/openapi.json).
      scope.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, ...UNDOCUMENTED }
      })
      scope.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
        connectionAfterError(error, request, reply)
        // @fastify/static's refusal of a file path that would leave its folder (`%2e%2e`, once
        // decoded) or holds a NUL byte: its bare "Forbidden" said nothing of why.
        const apiErr =
          !(error instanceof ApiError) && error.statusCode === 403
            ? apiError('E_BAD_REQUEST', { detail: `the path ${shown(request.url.split('?')[0])} names no file of the console: a file's path has no ".." segment or NUL byte, plain or percent-encoded` })
            : toCatalogueError(error, request, bodyLimit)
        if (isServerFailure(apiErr)) request.log.error({ err: error }, 'console request failed')
        const status = apiErr.statusCode
        return sendErrors(reply, status, [apiErr, ...apiErr.more].map((e) => ({ status, message: e.message, code: e.code })))
      })
      scope.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
        const path = request.url.split('?')[0]
        const allowed = otherMethods(request.server, request.method, path)
        if (allowed.length > 0) {
          request.servedPath = path
          const wrongMethod = apiError('E_PATH_METHOD_NOT_ALLOWED', { path, method: request.method, allowed })
          reply.header('allow', allowed.join(', '))
          return sendErrors(reply, wrongMethod.statusCode, [{ status: wrongMethod.statusCode, message: wrongMethod.message, code: wrongMethod.code }])
        }
        const error = apiError('E_UNKNOWN_CONSOLE_PATH', { method: request.method, path, pages: pages.filter((p) => p.navId === undefined).map((p) => `${CONSOLE_PREFIX}${p.path}`) })
        return sendErrors(reply, error.statusCode, [{ status: error.statusCode, message: error.message, code: error.code }])
      })

      // Files of the package, the same for everyone: no login needed (the login page uses them).
      for (const dir of STATIC_DIRS) await scope.register(fastifyStatic, { root: dir.root, prefix: dir.prefix.slice(CONSOLE_PREFIX.length), decorateReply: false, index: false })
      await scope.register(fastifyStatic, {
        root: UPLOT_DIR.root,
        prefix: UPLOT_DIR.prefix.slice(CONSOLE_PREFIX.length),
        decorateReply: false,
        index: false,
        allowedPath: (path) => (UPLOT_DIR.files as readonly string[]).includes(path.replace(/^\//, ''))
      })

      await scope.register(async (open) => loginRoutes(open, sessions, adminCheck))

      // Everything else needs a login.
      await scope.register(async (guarded) => {
        guarded.addHook('onRequest', async (request, reply) => {
          const user = consoleUser(request.headers, sessions, adminCheck)
          if (user === undefined) {
            if (!isApi(request) && isSafeMethod(request.method)) return reply.redirect(loginLocation(request), 303)
            throw apiError('E_CONSOLE_UNAUTHORIZED')
          }
          request.consoleUser = user
          if (!isSafeMethod(request.method)) {
            const reason = crossSiteReason(request)
            if (reason !== undefined) throw apiError('E_CONSOLE_CROSS_SITE', { method: request.method, path: request.url.split('?')[0], reason })
          }
          // Pages and the JSON API read the fleet: while it is rebuilt they wait, as the REST operations do (route-kit.ts).
          await context.engine.resetting()
        })

        guarded.get('/', async (_request, reply) => reply.redirect(HOME_PATH, 303))
        for (const page of pages) {
          guarded.get<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>(page.path, async (request, reply) => {
            const markup = page.body(request.params, context, request.query)
            const body = shell({ page, pages, body: markup, user: request.consoleUser?.user ?? '', title: page.titleOf?.(request.params) })
            return reply.code(markup instanceof ErrorMarkup ? markup.status : 200).type('text/html; charset=utf-8').headers(PAGE_HEADERS).send(body)
          })
        }

        await guarded.register(
          async (api) => {
            api.get<{ Querystring: { topics?: string } }>('/events', async (request, reply) => {
              const topics = hub.topicNames()
              // Each topic once: `fleet` named 20,000 times made a reader each, and the first event held the server for seconds.
              const wanted = typeof request.query.topics === 'string' && request.query.topics !== '' ? [...new Set(request.query.topics.split(','))] : topics
              // An unknown topic would make a stream that never says anything: refused while it can still be answered.
              const unknown = wanted.find((topic) => !topics.includes(topic))
              if (unknown !== undefined) throw apiError('E_NOT_IN_ENUM', { where: 'query parameter', name: 'topics', allowed: topics, got: shown(unknown) })
              // HEAD (fastify answers it with the GET route): the stream's head, and no stream, which would never end.
              // An empty stream rather than no body: fastify's HEAD handler then sends no Content-Length, where for
              // no body it sent `Content-Length: 0`, which RFC 9110 (8.6) forbids for an answer whose GET has no end.
              if (request.method === 'HEAD') return reply.code(200).headers(STREAM_HEAD).send(Readable.from([]))
              // The stream outlives the handler: fastify hands the socket over and sends nothing itself.
              reply.hijack()
              // A stream opened with a session lasts as long as the session: log-out or expiry ends it.
              const token = request.consoleUser?.via === 'session' ? readCookie(request.headers.cookie, SESSION_COOKIE) : undefined
              hub.attach(reply.raw, wanted, token === undefined ? undefined : () => sessions.get(token) !== undefined)
            })
            for (const page of pages) page.api?.(api, context)
            await api.register(async (forwarding) => proxyRoutes(forwarding, context))
          },
          { prefix: '/api' }
        )
      })
    },
    { prefix: CONSOLE_PREFIX }
  )
}
