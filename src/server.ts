/**
 * The server entry: turns a validated ServeConfig into a listening simulator. It loads (or
 * creates) the TLS material, creates the fleet, builds the manager app, listens (HTTPS with
 * TLS 1.2 or later unless --http), announces one line with the base URL, and closes everything
 * in order. Signals are the caller's business (src/commands/serve.ts), so tests and embedding
 * programs can start and stop servers freely.
 */
import { once } from 'node:events'
import { createServer as createHttpServer, type Server, type ServerOptions } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { availableParallelism, hostname } from 'node:os'
import pino, { type DestinationStream, type Logger } from 'pino'
import { buildApp } from './app.js'
import type { LogLevel, ServeConfig } from './config.js'
import type { FleetEngine } from './fleet/fleet.js'
import type { ClientTraffic } from './journal/plugin.js'
import { connectHandler, handleClientError } from './http/client-errors.js'
import { trackConnections, type Connections } from './http/connections.js'
import { continueWhenRead, refuseOtherExpectations } from './http/expect-continue.js'
import { MAX_HEADER_FIELDS, markConnections } from './http/limits.js'
import { refuseProxiedRequests } from './http/proxy-protocol.js'
import { startFleetLog } from './metrics/fleet-log.js'
import { terminalDestination } from './metrics/terminal-log.js'
import { loadServeScenario, startSimulation, type ServeScenario } from './simulation.js'
import { lockStateFile, releaseAtClose, type StateLock } from './state/state-lock.js'
import { savePeriodically, stateSaver } from './state/state-saver.js'
import type { CaInfo } from './tls/ca-info.js'
import { TLS_CIPHERS, TLS_MIN_VERSION, loadOrCreateTls } from './tls/tls-store.js'
import { prepareOutputDir } from './flags/output-dir.js'
import { prepareStateFile } from './state/prepare-state-file.js'
import { workersWarning } from './flags/rules.js'

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
  readonly traffic: ClientTraffic
  /** connections open now, counted from accept (TLS handshakes included) */
  openConnections(): number
  /**
   * Stops accepting connections, destroys idle and half-open ones, lets requests in flight
   * finish for at most --shutdown-grace, then closes the app, saves the state and closes the fleet.
   * `saveFailed`: the save at close failed (logged), so the run since the last save is lost.
   */
  close(): Promise<{ saveFailed: boolean }>
}

/**
 * pino at the given level; human-readable only when stdout is a terminal, one line per record
 * (src/metrics/terminal-log.ts). Secret headers are redacted (REDACTED_PATHS). `destination`
 * (tests) receives the lines instead of stdout: JSON, or the terminal's lines with `pretty`.
 */
export function createLogger(level: LogLevel, options: { pretty?: boolean; destination?: DestinationStream } = {}): Logger {
  const usePretty = options.pretty ?? (options.destination === undefined && process.stdout.isTTY === true)
  const base = { level, base: { pid: process.pid }, redact: REDACTED_PATHS }
  if (usePretty) return pino(base, terminalDestination(options.destination ?? process.stdout))
  return options.destination === undefined ? pino(base) : pino(base, options.destination)
}

export async function startServer(config: ServeConfig, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel)
  const announce = options.announce ?? ((line: string) => void process.stdout.write(`${line}\n`))
  const cpus = availableParallelism()
  const tooManyWorkers = workersWarning(config.workers, cpus)
  if (tooManyWorkers !== undefined) logger.warn({ workers: config.workers, cpus }, tooManyWorkers)
  const scenario = await loadServeScenario(config)

  // Checked first, so a --data-dir that cannot be written is named as the flag it is.
  await prepareOutputDir('data-dir', config.dataDir)
  if (config.stateFile !== undefined) await prepareStateFile(config.stateFile)
  // One server per state file, held until the save at close is done: taken before the file is
  // read to resume from it, so a second server neither reads a file being saved nor saves over it.
  const lock = config.stateFile === undefined ? undefined : await lockStateFile(config.stateFile)
  try {
    return await startLocked(config, { logger, announce, scenario, lock })
  } catch (error) {
    await lock?.release()
    throw error
  }
}

interface Started {
  logger: Logger
  announce: (line: string) => void
  scenario: ServeScenario | undefined
  lock: StateLock | undefined
}

/** The rest of startServer, once the state file (if any) is this server's. */
async function startLocked(config: ServeConfig, { logger, announce, scenario, lock }: Started): Promise<RunningServer> {
  if (lock?.tookOverFrom !== undefined) logger.warn({ lock: lock.path, stalePid: lock.tookOverFrom }, 'took over the lock of --state-file from a fleetsim that is gone (killed, or crashed)')
  // The CA exists even with --http: addagent's ca-fingerprint and certificateinfo refer to it,
  // and a client keeps the same fingerprint whichever transport it uses.
  // A server certificate issued for this start is written once the server listens: a start that
  // cannot listen (a --host not on this machine, a port in use) keeps the last good one.
  const tls = await loadOrCreateTls({ dataDir: config.dataDir, hosts: certificateHosts(config.host), serverWrite: 'later' })
  if (tls.created.ca) logger.info({ caPath: tls.caPath, fingerprint: tls.ca.fingerprint }, 'created a certificate authority')

  const { fleet, manager } = await startSimulation(config, tls.ca, logger, scenario)
  const saveState = stateSaver(config, fleet, manager, tls.ca, logger)
  const { app, traffic, handler, streams } = await buildApp({ fleet, manager, ca: tls.ca, logger, ...(saveState === undefined ? {} : { saveState }) }, config).catch(async (error: unknown) => {
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
    // On the HTTPS port, requests on a connection that began with a PROXY protocol header are
    // refused over TLS, where the client behind the load balancer reads it (src/http/proxy-protocol.ts).
    server = config.http
      ? createHttpServer(limits, handler)
      : createHttpsServer(
          { ...limits, key: tls.key, cert: tls.cert, minVersion: TLS_MIN_VERSION, ciphers: TLS_CIPHERS, handshakeTimeout: config.headersTimeout, ALPNCallback: chooseAlpn },
          refuseProxiedRequests(handler)
        )
    server.keepAliveTimeout = config.keepAliveTimeout
    // One field more than the app takes: a request past the limit gets its 431 (src/http/limits.ts)
    // instead of losing the fields past Node's default in silence.
    server.maxHeadersCount = MAX_HEADER_FIELDS + 1
    server.on('clientError', handleClientError)
    // Without a listener Node closes a CONNECT's connection without answering.
    server.on('connect', connectHandler(config.appPath))
    // 100 Continue only once the app reads the body: a refusal from the head comes first.
    continueWhenRead(server)
    refuseOtherExpectations(server)
    // Room is made by closing an idle connection, which trackConnections (below) knows of.
    markConnections(server, config.http ? 'connection' : 'secureConnection', config.maxConnections, () => connections.reclaimIdle())
    // Last, as it takes over the 'connection' listeners above (src/http/connections.ts). The
    // handshake gets as long as the request head does after it.
    connections = trackConnections(server, {
      perClient: config.maxConnectionsPerClient,
      sendMs: config.sendTimeout,
      // A connection whose client ended its side waits as long for its answers as one does for its request head.
      ...(config.http ? { endedMs: config.headersTimeout } : { handshakeMs: config.headersTimeout }),
      onRefused: ({ refused, addresses }) =>
        logger.warn({ refused, addresses, limit: config.maxConnectionsPerClient }, 'connections refused: over --max-connections-per-client')
    })
    await listen(server, config.host, config.port)
    await tls.saveServerCertificate()
    if (tls.created.server) logger.info({ reason: tls.serverReason }, 'issued a server certificate')
  } catch (error) {
    // Listening but the certificate could not be written: nobody has been told of this server yet.
    if (server?.listening === true) await new Promise((resolve) => (server as Server).close(resolve))
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
  const periodicSaves =
    saveState !== undefined && config.snapshotInterval > 0
      ? savePeriodically(saveState, config.snapshotInterval * 1000, (error) => logger.error({ err: error }, 'could not save the simulation'))
      : undefined
  let closing: Promise<{ saveFailed: boolean }> | undefined
  return {
    baseUrl,
    serviceUrl,
    fleet,
    traffic,
    port,
    ca: tls.ca,
    caPath: tls.caPath,
    logger,
    openConnections: () => connections.open(),
    close: () => {
      closing ??= (async () => {
        logger.info('closing')
        fleetLog.stop()
        periodicSaves?.stop()
        // Open console streams would otherwise count as requests in flight for the whole grace.
        streams.close()
        await connections.close(config.shutdownGrace)
        await app.close()
        // Saved once the last request has been answered, so nothing it changed is lost.
        const saveFailed = await (saveState?.().then(
          () => false,
          (error: unknown) => (logger.error({ err: error }, 'could not save the simulation'), true)
        ) ?? false)
        try {
          await fleet.close()
        } finally {
          // After the save at close: another server may have the file now.
          if (lock !== undefined) await releaseAtClose(lock, logger)
        }
        return { saveFailed }
      })()
      return closing
    }
  }
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

/**
 * The application protocol of a TLS connection (ALPN): HTTP/1.1 whenever the client offers it,
 * as https's default list does. A client that offers HTTP/2 alone (Node's http2.connect, `openssl
 * s_client -alpn h2`) got the TLS alert "no application protocol" from that list, where an HTTP/2
 * client with prior knowledge gets a GOAWAY saying HTTP/1.1 is required (http2-refusal.ts): it
 * is given h2, so its preface reaches the HTTP/1.1 parser and it gets that GOAWAY too.
 */
function chooseAlpn({ protocols }: { protocols: string[] }): string | undefined {
  return ['http/1.1', 'http/1.0', 'h2'].find((protocol) => protocols.includes(protocol))
}
