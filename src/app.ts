/**
 * The composition root: `buildApp` assembles the whole app `fleetsim serve` answers with, and
 * nothing else does. In order: the fastify instance with the facade's parsers, validation and
 * error envelope; the request journal and strict rules (src/journal); the request limits; the
 * OpenAPI document; every operation of the spec under `${appPath}/restservice/`; the API faults
 * of the scenario and of --latency/--error-rate (src/faults); the admin API (src/admin);
 * metrics (src/metrics); the console at /console (src/console, unless --no-console); and, in front of fastify, the fast path for repeated agentinfo polls
 * (src/http/fast-path.ts). It never listens: src/server.ts serves `handler` over HTTP(S),
 * tests use `app.inject`, the benchmarks and the soak measure this very app.
 *
 * Observing requests: every operation's route sets `request.operation` (e.g. `agentinfo`) in
 * its first onRequest hook; hooks added with `app.addHook(...)` see it from their own
 * onRequest on (route-level hooks run after app-level ones, so read it from preHandler /
 * onResponse onward, or compare `request.routeOptions.config.operation`).
 */
import { readFileSync } from 'node:fs'
import type { RequestListener } from 'node:http'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { stringify as stringifyYaml } from 'yaml'
import type { Registry } from 'prom-client'
import { adminPlugin } from './admin/plugin.js'
import { consolePlugin } from './console/plugin.js'
import type { ConsoleInject } from './console/page.js'
import { EventHub } from './console/stream.js'
import { SERVE_DEFAULTS, type ServeConfig } from './config.js'
import type { Wait } from './faults/body.js'
import { quickFaultRules } from './faults/flag-rules.js'
import { faultsPlugin } from './faults/plugin.js'
import { FaultState } from './faults/state.js'
import type { FleetEngine } from './fleet/fleet.js'
import { createClientTraffic, journalRoutes, trafficPlugin, type ClientTraffic } from './journal/plugin.js'
import { AnswerCache, DEFAULT_KEPT_ANSWERS } from './http/answer-cache.js'
import { createAuthCheck } from './protocol/auth.js'
import { handleClientError } from './http/client-errors.js'
import { originForm } from './http/origin-form.js'
import { registerContentParsers } from './http/content-parsers.js'
import { createErrorHandler } from './http/error-handler.js'
import { fastPath } from './http/fast-path.js'
import { registerUnsentAnswers, unsentAnswers } from './http/unsent-answers.js'
import { oneAtATime } from './http/pipelined.js'
import lightMyRequest from 'light-my-request'
import { registerLimits } from './http/limits.js'
import { Links } from './http/links.js'
import { answerUnroutedBeforeBody, createNotFoundHandler } from './http/not-found.js'
import { openApiOptions, servedTo, UNDOCUMENTED } from './http/openapi.js'
import { createRouteKit } from './http/route-kit.js'
import { ItemFragments } from './http/kept-items.js'
import { SlabPool } from './http/slab-pool.js'
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
import { createManager, type Manager } from './manager/manager.js'
import { STORED_LIMIT_DEFAULTS, type StoredLimits } from './manager/limits.js'
import { metricsPlugin } from './metrics/plugin.js'
import { createRegistry } from './metrics/registry.js'
import { RequestLogController } from './metrics/request-log.js'
import type { StateSaver } from './state/state-saver.js'
import type { CaInfo } from './tls/ca-info.js'
import './protocol/request-context.js'

/** What the app serves: the simulation, and what it needs from outside the process. */
export interface AppParts {
  /** the simulated fleet (src/fleet): the facade reads and changes it, the admin API drives its clock */
  fleet: FleetEngine
  /** the CA agents' configurations name (addagent's ca-fingerprint, certificateinfo) */
  ca: CaInfo
  /** templates, labels, fields and certificates; default a new one over the fleet and CA, with the settings' limits */
  manager?: Manager
  /** a pino logger (fastify logs through it); default no logging */
  logger?: Logger
  /** saves the simulation (POST /__admin/snapshot); absent without --state-file */
  saveState?: StateSaver
  /** how an injected latency waits; default a real timer (tests record the waits instead) */
  faultWait?: Wait
  /** kept agentinfo answers (src/http/answer-cache.ts); default a new cache over the fleet */
  answers?: AnswerCache
  /** memory of the lists made once for several requests (src/http/slab-pool.ts); default a new pool */
  slabs?: SlabPool
  /** prom-client's process and Node.js metrics on /metrics; default true */
  processMetrics?: boolean
  /**
   * whether the fast path may answer now, on top of its own conditions (not strict, no fault
   * rule, no request lines in the log); default always. The differential test switches it.
   */
  fastPath?: () => boolean
  /**
   * registers more on the app before it is ready (hooks, routes): an embedding program's own
   * routes, or a test's deliberately broken server. Runs after everything else is registered.
   * Requests the fast path answers skip fastify and so these hooks too: pass
   * `fastPath: () => false` when a hook must see every agentinfo request.
   */
  extend?: (app: FastifyInstance) => unknown
}

/** The settings the app reads from the serve flags (docs: README flag table, docs/limits.md). */
export type AppSettings = Pick<
  ServeConfig,
  | 'appPath'
  | 'user'
  | 'password'
  | 'adminUser'
  | 'adminPassword'
  | 'bodyLimit'
  | 'maxListItems'
  | 'maxQueryLength'
  | 'strict'
  | 'journalSize'
  | 'journalMaxBytes'
  | 'journalBodyBytes'
  | 'keptAnswersMaxBytes'
  | 'unsentAnswersMaxBytes'
  | 'metricsAuth'
  | 'console'
  | 'latency'
  | 'errorRate'
  | 'faultOperations'
> &
  StoredLimits & {
    /** `host:port` agentmanager reports the agent listener on */
    readonly agentListener: string
  }

/** The app's settings when a caller gives none: the serve flags' defaults (src/config.ts). */
export const APP_DEFAULTS: AppSettings = Object.freeze({
  appPath: SERVE_DEFAULTS.appPath,
  user: SERVE_DEFAULTS.user,
  password: SERVE_DEFAULTS.password,
  // The admin credentials default to the REST ones (buildApp applies that to given ones too).
  adminUser: SERVE_DEFAULTS.user,
  adminPassword: SERVE_DEFAULTS.password,
  bodyLimit: SERVE_DEFAULTS.bodyLimit,
  maxListItems: SERVE_DEFAULTS.maxListItems,
  maxQueryLength: SERVE_DEFAULTS.maxQueryLength,
  strict: SERVE_DEFAULTS.strict,
  journalSize: SERVE_DEFAULTS.journalSize,
  journalMaxBytes: SERVE_DEFAULTS.journalMaxBytes,
  journalBodyBytes: SERVE_DEFAULTS.journalBodyBytes,
  keptAnswersMaxBytes: SERVE_DEFAULTS.keptAnswersMaxBytes,
  unsentAnswersMaxBytes: SERVE_DEFAULTS.unsentAnswersMaxBytes,
  metricsAuth: SERVE_DEFAULTS.metricsAuth,
  console: SERVE_DEFAULTS.console,
  latency: SERVE_DEFAULTS.latency,
  errorRate: SERVE_DEFAULTS.errorRate,
  faultOperations: SERVE_DEFAULTS.faultOperations,
  agentListener: '0.0.0.0:4041',
  ...STORED_LIMIT_DEFAULTS
})

/** The assembled app, ready, not listening. */
export interface FleetsimApp {
  readonly app: FastifyInstance
  /** the request listener to serve with: pipelined requests one at a time (src/http/pipelined.ts), the fast path (src/http/fast-path.ts), then fastify */
  readonly handler: RequestListener
  /** the request journal and client report */
  readonly traffic: ClientTraffic
  /** the API fault rules in force (the scenario's and the quick fault flags', switched by the admin API) */
  readonly faults: FaultState
  /** the Prometheus registry /metrics exposes */
  readonly registry: Registry
  /** requests the fast path answered without fastify */
  fastPathAnswers(): number
  /**
   * The console's live streams (Server-Sent Events, src/console/stream.ts). A server ends them
   * (`streams.close()`) as it starts to close: an open stream is a request in flight and would
   * hold the shutdown for its whole grace.
   */
  readonly streams: EventHub
  readonly manager: Manager
  close(): Promise<void>
}

const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

/**
 * Builds the whole app. `settings` are usually a ServeConfig; anything left out takes
 * APP_DEFAULTS, and the admin credentials default to the REST ones.
 */
export async function buildApp(parts: AppParts, given: Partial<AppSettings> = {}): Promise<FleetsimApp> {
  const settings: AppSettings = {
    ...APP_DEFAULTS,
    adminUser: given.user ?? APP_DEFAULTS.adminUser,
    adminPassword: given.password ?? APP_DEFAULTS.adminPassword,
    ...given,
    appPath: normaliseAppPath(given.appPath ?? APP_DEFAULTS.appPath)
  }
  const { fleet, ca } = parts
  const rest = { user: settings.user, password: settings.password }
  const admin = { user: settings.adminUser, password: settings.adminPassword }
  const restAuth = createAuthCheck(rest)
  const manager = parts.manager ?? createManager(fleet, ca, { limits: settings })
  const answers = parts.answers ?? new AnswerCache(fleet, DEFAULT_KEPT_ANSWERS, settings.keptAnswersMaxBytes)
  const traffic = createClientTraffic({
    strict: settings.strict,
    journalSize: settings.journalSize,
    journalMaxBytes: settings.journalMaxBytes,
    journalBodyBytes: settings.journalBodyBytes,
    auth: admin
  })
  // Shared by the faults plugin, which applies the rules, and the admin API, which switches them.
  const faults = new FaultState(fleet, { flagRules: quickFaultRules(settings) })
  const streams = new EventHub()
  const { registry, api } = createRegistry(fleet, { process: parts.processMetrics ?? true, ...(parts.saveState === undefined ? {} : { stateSaves: parts.saveState.totals }) })
  // Answers clients have not read, bounded where fastify sends them and where the fast path does.
  const unsent = unsentAnswers({ maxBytes: settings.unsentAnswersMaxBytes, gauge: api.unsentBytes })

  const kit = createRouteKit({
    manager,
    links: new Links(settings.appPath),
    agentListener: settings.agentListener,
    answers,
    fragments: new ItemFragments(),
    slabs: parts.slabs ?? new SlabPool(),
    appVersion: PACKAGE_VERSION,
    authCheck: restAuth
  })

  const app = Fastify({
    bodyLimit: settings.bodyLimit,
    // Router errors (a bad percent-encoding, an overlong path segment) in the error envelope.
    frameworkErrors: handleFrameworkError,
    // Unreadable HTTP on servers fastify itself listens with (tests); src/server.ts installs the same.
    clientErrorHandler: handleClientError,
    http: { requireHostHeader: false },
    // `…/appinfo/` is `…/appinfo` (and `…/appinfo.json/` is `…/appinfo.json`): a client that adds
    // the slash means the operation (Spring MVC, which the manager's paths suggest, matched it by
    // default before version 6), and a 405 would name the very method the client used.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
    // One structured line per request (operation, status, time) instead of fastify's pair.
    logController: new RequestLogController(),
    // pino's Logger is a FastifyBaseLogger; saying so keeps the instance's type the one plugins take.
    ...(parts.logger === undefined ? { logger: false } : { loggerInstance: parts.logger as FastifyBaseLogger })
  })
  try {
    app.setValidatorCompiler(createValidatorCompiler(settings.maxListItems))
    app.decorateRequest('operation', '')
    app.decorateRequest('format', 'xml')
    app.decorateRequest('bodyText', '')
    app.decorateRequest('streamedStates', null)
    app.decorateRequest('servedPath', null)
    registerContentParsers(app)
    app.setErrorHandler(createErrorHandler(settings.bodyLimit))
    app.setNotFoundHandler(createNotFoundHandler(settings.appPath, settings.console ? [] : [{ path: '/console', flag: '--no-console' }]))
    // First of the onSend hooks, so the journal and the metrics record the 503 it may answer instead.
    registerUnsentAnswers(app, unsent)
    // Before the routes, so its hooks wrap every one of them (see src/journal/recorder.ts).
    await app.register(trafficPlugin, {
      traffic,
      now: () => fleet.now(),
      uuidOf: (name) => {
        const index = fleet.findByName(name)
        return index === undefined ? undefined : fleet.uuid(index)
      },
      faultCounts: () => fleet.stats.faultsInjected
    })
    registerLimits(app, { maxQueryLength: settings.maxQueryLength })
    answerUnroutedBeforeBody(app)
    await registerOpenApi(app, settings.appPath)

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
      { prefix: `${settings.appPath}/restservice` }
    )
    journalRoutes(app, { traffic, authCheck: createAuthCheck(admin) })
    app.get('/openapi.json', { schema: UNDOCUMENTED }, async (request) => servedTo(app.swagger(), request))
    app.get('/openapi.yaml', { schema: UNDOCUMENTED }, async (request, reply) => reply.type('application/yaml; charset=utf-8').send(stringifyYaml(servedTo(app.swagger(), request))))

    await app.register(faultsPlugin, { state: faults, ...(parts.faultWait === undefined ? {} : { wait: parts.faultWait }) })
    await app.register(adminPlugin, { engine: fleet, manager, auth: admin, faults, version: PACKAGE_VERSION, ...(parts.saveState === undefined ? {} : { saveState: parts.saveState }) })
    // --metrics-auth makes /metrics take the REST credentials (docs/security.md).
    await app.register(metricsPlugin, { engine: fleet, registry, api, requireAuth: settings.metricsAuth, authCheck: restAuth })
    // The console's buttons run the real operations through the whole app (src/console/proxy.ts).
    if (settings.console) {
      await app.register(consolePlugin, { engine: fleet, manager, journal: traffic.journal, appPath: settings.appPath, credentials: { rest, admin }, inject: injectInto(app), hub: streams })
    }
    await parts.extend?.(app)
    await app.ready()
  } catch (error) {
    await app.close()
    throw error
  }

  const allowed = parts.fastPath ?? (() => true)
  const fast = fastPath(
    {
      answers,
      kit,
      appPath: settings.appPath,
      maxQueryLength: settings.maxQueryLength,
      maxListItems: settings.maxListItems,
      authCheck: restAuth,
      journal: traffic.journal,
      now: () => fleet.now(),
      api,
      unsent,
      // Strict rules, fault rules and request lines need fastify's hooks for every request; a
      // request during a reset waits for its end in the route's first hook (route-kit.ts).
      open: () => !traffic.strict && !faults.active() && parts.logger?.isLevelEnabled('info') !== true && allowed() && fleet.resetting() === undefined
    },
    app.routing.bind(app) as RequestListener
  )
  return { app, handler: originForm(oneAtATime(fast.handler)), traffic, faults, registry, manager, fastPathAnswers: fast.answered, streams, close: () => app.close() }
}

/** `manager/mvc/` → `/manager/mvc` */
function normaliseAppPath(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`
}

/** The OpenAPI document of the route schemas, with what src/http/openapi.ts adds. */
async function registerOpenApi(app: FastifyInstance, appPath: string): Promise<void> {
  await app.register(swagger, openApiOptions({ appPath, version: PACKAGE_VERSION }))
}

/**
 * How the console's forwarders run a request through the whole app: as `app.inject` does (fastify
 * hands it to its `routing` entry, the handler of its own server), on a mock socket that is
 * `encrypted` when the console's own request came over TLS. The answer's links then name the
 * scheme the console's user reached, as its Host (passed on) names the address: `app.inject`'s
 * mock socket is never encrypted, so they read `http://` on an HTTPS server.
 */
function injectInto(app: FastifyInstance): ConsoleInject {
  return (options, { encrypted } = { encrypted: false }) =>
    lightMyRequest((request, response) => {
      if (encrypted) Object.defineProperty(request.socket, 'encrypted', { value: true })
      app.routing(request, response)
    }, options)
}
