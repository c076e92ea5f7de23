/**
 * The server entry: turns a validated ServeConfig into a listening simulator. It loads (or
 * creates) the TLS material, creates the fleet, builds the manager app, listens (HTTPS with
 * TLS 1.2 or later unless --http), announces one line with the base URL, and closes everything
 * in order. Signals are the caller's business (src/commands/serve.ts), so tests and embedding
 * programs can start and stop servers freely.
 */
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { createServer as createHttpServer, type RequestListener, type Server, type ServerOptions } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { hostname } from 'node:os'
import pino, { type DestinationStream, type Logger } from 'pino'
import pretty from 'pino-pretty'
import { adminPlugin } from './admin/plugin.js'
import { compileForManager } from './admin/scenario-load.js'
import type { FastifyInstance } from 'fastify'
import { buildApp, createAuthCheck, createManager } from './app.js'
import { faultsPlugin } from './faults/plugin.js'
import { FaultState } from './faults/state.js'
import { AnswerCache } from './http/answer-cache.js'
import { handleClientError } from './http/client-errors.js'
import { trackConnections, type Connections } from './http/connections.js'
import { frontDoor } from './http/front-door.js'
import { markConnections } from './http/limits.js'
import type { LogLevel, ServeConfig } from './config.js'
import { createFleet, type FleetEngine } from './fleet/fleet.js'
import { createHarness, type Harness } from './harness/plugin.js'
import { startFleetLog } from './metrics/fleet-log.js'
import { metricsPlugin } from './metrics/plugin.js'
import { createRegistry } from './metrics/registry.js'
import { loadScenarioFileOrThrow } from './scenario/load.js'
import { resumeSimulation } from './state/simulation-state.js'
import { stateSaver, type StateSaver } from './state/state-saver.js'
import type { Scenario } from './scenario/types.js'
import type { CaInfo } from './tls/ca-info.js'
import type { Manager } from './manager/manager.js'
import { TLS_CIPHERS, TLS_MIN_VERSION, loadOrCreateTls } from './tls/tls-store.js'

/** Room in the request head for the request line and the headers beyond the query string. */
const HEADER_ROOM_BYTES = 16 * 1024
/** Headers that carry secrets; pino prints them as [Redacted] wherever a request is logged. */
export const REDACTED_PATHS = ['req.headers.rest_password', 'req.headers.authorization', 'headers.rest_password', 'headers.authorization']

export interface StartOptions {
  /** defaults to createLogger(config.logLevel) */
  logger?: Logger
  /** receives the one "listening" line; defaults to writing it to stdout */
  announce?: (line: string) => void
}

export interface RunningServer {
  /** scheme, host, port and application path, e.g. `https://127.0.0.1:9443/manager/mvc` */
  readonly baseUrl: string
  /** where the operations are: `${baseUrl}/restservice` */
  readonly serviceUrl: string
  /** the port actually bound (differs from config.port when that is 0) */
  readonly port: number
  readonly ca: CaInfo
  /** path of the CA certificate, for clients to trust */
  readonly caPath: string
  readonly logger: Logger
  /** the simulated fleet: clock control (advance, setClock), stats, admin overrides */
  readonly fleet: FleetEngine
  /** the request journal and client report */
  readonly harness: Harness
  /** connections open now, counted from accept (TLS handshakes included) */
  openConnections(): number
  /**
   * Stops accepting connections, destroys idle and half-open ones, lets requests in flight
   * finish for at most --shutdown-grace, then closes the app, saves the state and closes the fleet.
   */
  close(): Promise<void>
}

/**
 * pino at the given level; human-readable only when stdout is a terminal. Secret headers are
 * redacted (REDACTED_PATHS). `destination` (tests) receives the JSON lines instead of stdout.
 */
export function createLogger(level: LogLevel, options: { pretty?: boolean; destination?: DestinationStream } = {}): Logger {
  const usePretty = options.pretty ?? (options.destination === undefined && process.stdout.isTTY === true)
  const base = { level, base: { pid: process.pid }, redact: REDACTED_PATHS }
  if (usePretty) return pino(base, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid' }))
  return options.destination === undefined ? pino(base) : pino(base, options.destination)
}

export async function startServer(config: ServeConfig, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel)
  const announce = options.announce ?? ((line: string) => void process.stdout.write(`${line}\n`))
  const scenario = await loadScenario(config)

  // The CA exists even with --http: addagent's ca-fingerprint and certificateinfo refer to it,
  // and a client keeps the same fingerprint whichever transport it uses.
  const tls = await loadOrCreateTls({ dataDir: config.dataDir, hosts: certificateHosts(config.host) })
  if (tls.created.ca) logger.info({ caPath: tls.caPath, fingerprint: tls.ca.fingerprint }, 'created a certificate authority')
  if (tls.created.server) logger.info({ reason: tls.serverReason }, 'issued a server certificate')

  const { fleet, manager } = await startSimulation(config, tls.ca, logger, scenario)
  const saveState = stateSaver(config, fleet, manager, tls.ca, logger)
  const { app, harness, handler } = await buildServeApp(config, { fleet, manager, ca: tls.ca, logger, saveState }).catch(async (error: unknown) => {
    await fleet.close()
    throw error
  })
  let server: Server | undefined
  let connections: Connections
  try {
    // The server is ours rather than fastify's, so TLS options, listening and closing live in
    // one place; the handler ends in fastify's documented `routing` entry, the same handler its
    // own server uses.
    const limits = serverLimits(config)
    server = config.http
      ? createHttpServer(limits, handler)
      : createHttpsServer(
          { ...limits, key: tls.key, cert: tls.cert, minVersion: TLS_MIN_VERSION, ciphers: TLS_CIPHERS, handshakeTimeout: config.headersTimeout },
          handler
        )
    server.keepAliveTimeout = config.keepAliveTimeout
    server.on('clientError', handleClientError)
    markConnections(server, config.http ? 'connection' : 'secureConnection', config.maxConnections)
    // Last, as it takes over the 'connection' listeners above (src/http/connections.ts). The
    // handshake gets as long as the request head does after it.
    connections = trackConnections(server, {
      perClient: config.maxConnectionsPerClient,
      ...(config.http ? {} : { handshakeMs: config.headersTimeout }),
      onRefused: ({ refused, addresses }) =>
        logger.warn({ refused, addresses, limit: config.maxConnectionsPerClient }, 'connections refused: over --max-connections-per-client')
    })
    await listen(server, config.host, config.port)
  } catch (error) {
    await app.close()
    await fleet.close()
    throw error
  }

  const port = (server.address() as { port: number }).port
  const baseUrl = `${config.http ? 'http' : 'https'}://${urlHost(config.host)}:${port}${config.appPath}`
  const serviceUrl = `${baseUrl}/restservice`
  announce(`fleetsim listening on ${serviceUrl} (CA fingerprint ${tls.ca.fingerprint}, CA file ${tls.caPath})`)

  // Fleet state summaries, scenario changes and timeline events at info (src/metrics/fleet-log.ts).
  const fleetLog = startFleetLog(fleet, logger)
  const saveTimer =
    saveState !== undefined && config.snapshotInterval > 0
      ? setInterval(() => saveState().catch((error: unknown) => logger.error({ err: error }, 'could not save the simulation')), config.snapshotInterval * 1000).unref()
      : undefined
  let closing: Promise<void> | undefined
  return {
    baseUrl,
    serviceUrl,
    fleet,
    harness,
    port,
    ca: tls.ca,
    caPath: tls.caPath,
    logger,
    openConnections: () => connections.open(),
    close: () => {
      closing ??= (async () => {
        logger.info('closing')
        fleetLog.stop()
        clearInterval(saveTimer)
        await connections.close(config.shutdownGrace)
        await app.close()
        // Saved once the last request has been answered, so nothing it changed is lost.
        await saveState?.().catch((error: unknown) => logger.error({ err: error }, 'could not save the simulation'))
        await fleet.close()
      })()
      return closing
    }
  }
}

export interface ServeApp {
  app: FastifyInstance
  harness: Harness
  /** the request listener to serve with: the front door (src/http/front-door.ts), then the app */
  handler: RequestListener
}

/** What buildServeApp assembles the app around. */
export interface ServeAppParts {
  fleet: FleetEngine
  manager: Manager
  ca: CaInfo
  logger: Logger
  /** saves to --state-file (POST /__admin/snapshot); undefined without one */
  saveState?: StateSaver
}

/**
 * The app `fleetsim serve` answers with: the manager facade (buildApp) with the request
 * journal and strict mode of the flags, the scenario's API faults, the admin API and metrics.
 * Ready, not listening. The benchmarks measure this very app.
 */
export async function buildServeApp(config: ServeConfig, parts: ServeAppParts): Promise<ServeApp> {
  const { fleet, manager, ca, logger, saveState } = parts
  const authCheck = createAuthCheck({ user: config.user, password: config.password })
  const answers = new AnswerCache(fleet)
  const { registry, api } = createRegistry(fleet, { stateSaves: saveState?.totals })
  const harness = createHarness({
    strict: config.strict,
    journalSize: config.journalSize,
    journalMaxBytes: config.journalMaxBytes,
    auth: { user: config.adminUser, password: config.adminPassword }
  })
  // Fault injection state, shared by the faults plugin and the admin API that switches it.
  const faults = new FaultState(fleet)
  const app = await buildApp({
    fleet,
    appPath: config.appPath,
    auth: { user: config.user, password: config.password },
    ca,
    logger,
    bodyLimit: config.bodyLimit,
    maxListItems: config.maxListItems,
    maxQueryLength: config.maxQueryLength,
    harness,
    manager,
    answers
  })
  try {
    // The scenario's API faults (src/faults) and the admin API (src/admin, docs/admin.md).
    await app.register(faultsPlugin, { state: faults })
    await app.register(adminPlugin, { engine: fleet, manager, auth: { user: config.adminUser, password: config.adminPassword }, faults, ...(saveState === undefined ? {} : { saveState }) })
    // Metrics (src/metrics, docs/metrics.md): /metrics and the API metric hooks for this fleet;
    // --metrics-auth makes /metrics take the REST credentials.
    await app.register(metricsPlugin, { engine: fleet, registry, api, requireAuth: config.metricsAuth, authCheck })
    await app.ready()
  } catch (error) {
    await app.close()
    throw error
  }
  const handler = frontDoor(
    {
      answers,
      authCheck,
      journal: harness.journal,
      now: () => fleet.now(),
      api,
      // Strict rules, fault rules and request lines need fastify's hooks for every request.
      open: () => !harness.strict && !faults.active() && !logger.isLevelEnabled('info')
    },
    app.routing.bind(app) as RequestListener
  )
  return { app, harness, handler }
}

/**
 * The scenario of --scenario. The file is loaded and checked first, so a broken scenario is
 * reported with every problem before anything starts.
 */
/**
 * The fleet and the manager: resumed from --state-file when that file exists (its scenario,
 * clock and seed win over the flags), else built from --scenario or the flags.
 */
async function startSimulation(
  config: ServeConfig,
  ca: CaInfo,
  logger: Logger,
  scenario: Scenario | undefined
): Promise<{ fleet: FleetEngine; manager: Manager }> {
  if (config.stateFile !== undefined && existsSync(config.stateFile)) {
    const resumed = await resumeSimulation(config.stateFile, { ca, workers: config.workers, limits: config })
    if (scenario !== undefined) logger.warn({ stateFile: config.stateFile, scenario: scenario.name }, 'resuming from the state file: --scenario is ignored')
    logger.info({ stateFile: config.stateFile, second: resumed.engine.second(), agents: resumed.engine.size() }, 'resumed the simulation from the state file')
    return { fleet: resumed.engine, manager: resumed.manager }
  }
  const fleet = await createFleet({
    agents: config.agents,
    seed: config.seed,
    workers: config.workers,
    speed: config.speed,
    startTime: config.startTime,
    paused: config.paused,
    caFingerprint: ca.fingerprint,
    // With a scenario the fleet starts empty and is rebuilt from it below, once the manager
    // exists to own the scenario's templates: building --agents first would be wasted work.
    ...(scenario !== undefined ? { agents: 0 } : {})
  })
  const manager = createManager(fleet, ca, { limits: config })
  if (scenario !== undefined) {
    try {
      await fleet.reset(compileForManager(scenario, fleet.clock.epochMs, manager))
    } catch (error) {
      await fleet.close()
      throw new Error(`--scenario ${config.scenario}: ${(error as Error).message}`, { cause: error })
    }
    logger.info({ scenario: scenario.name, agents: fleet.size() }, 'scenario loaded')
  }
  return { fleet, manager }
}

async function loadScenario(config: ServeConfig): Promise<Scenario | undefined> {
  if (config.scenario === undefined) return undefined
  return loadScenarioFileOrThrow(config.scenario)
}

/** Names the server certificate must cover for this --host (a wildcard address: this machine's name). */
function certificateHosts(host: string): string[] {
  return host === '0.0.0.0' || host === '::' ? [hostname()] : [host]
}

/** A host a local client can use in a URL: wildcard addresses become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

async function listen(server: Server, host: string, port: number): Promise<void> {
  server.listen(port, host)
  try {
    await once(server, 'listening')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const hint =
      code === 'EADDRINUSE' ? 'the port is in use (another fleetsim? choose one with --port)'
      : code === 'EADDRNOTAVAIL' ? 'the address is not on this machine (check --host)'
      : code === 'EACCES' ? 'no permission to use this port (choose one above 1023 with --port)'
      : (error as Error).message
    throw new Error(`cannot listen on ${urlHost(host)}:${port}: ${hint}`, { cause: error })
  }
}

/**
 * Node's protections against slow and greedy clients, from the limit flags (docs/limits.md).
 * The request head may hold the whole query string, so it may be that long plus room for the
 * headers; a longer head gets Node's bare 431, a long query within it the app's 414.
 */
function serverLimits(config: ServeConfig): ServerOptions {
  return {
    requestTimeout: config.requestTimeout,
    headersTimeout: config.headersTimeout,
    // How often Node looks for connections past those two timeouts (its default is 30 s).
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(config.headersTimeout / 4))),
    maxHeaderSize: config.maxQueryLength + HEADER_ROOM_BYTES,
    // The app answers a missing Host in the error envelope (src/http/limits.ts).
    requireHostHeader: false
  }
}
