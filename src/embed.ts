/**
 * `startFleetsim`: a simulator for a client's own test suite. It starts on a free port (HTTPS
 * with a CA in a temporary data directory unless `http` is set), with the clock paused at a
 * fixed start time by default so a test decides when time passes, and hands back everything a
 * test needs: the URL, the CA to trust, the credentials, clock control, the journal, the
 * report, the engine, and `close()` (which also removes the temporary directory).
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SERVE_DEFAULTS, parseServeConfig } from './config.js'
import type { ClockState } from './fleet/clock.js'
import type { FleetEngine } from './fleet/fleet.js'
import { createLogger, startServer } from './server.js'
import type { JournalEntry, JournalFilter } from './journal/journal.js'
import type { ClientReport } from './journal/report.js'

export interface FleetsimOptions {
  /** agents at start; default 100, or with `scenario` the scenario's `fleet.agents` (which this replaces when given) */
  agents?: number
  /** default 1, or with `scenario` the scenario's `fleet.seed` (which this replaces when given) */
  seed?: number
  /** a scenario file path, or a scenario document as an object */
  scenario?: string | Record<string, unknown>
  /** plain HTTP instead of HTTPS; default false */
  http?: boolean
  /** where the CA lives; default a new temporary directory, removed on close */
  dataDir?: string
  /** default `admin` and a random password */
  user?: string
  password?: string
  strict?: boolean
  journalSize?: number
  /** bytes the journal's entries may hold together; default 32 MiB */
  journalMaxBytes?: number
  /** bytes of each request and answer body a journal entry keeps (0: none); default 4 KiB */
  journalBodyBytes?: number
  /** bytes the answers kept for sending again may hold together (0: none); default 32 MiB */
  keptAnswersMaxBytes?: number
  /** bytes of large answers their clients have not read the server may hold together (past it, 503); default 256 MiB */
  unsentAnswersMaxBytes?: number
  /** default `/manager/mvc` */
  appPath?: string
  /** virtual start time (ISO 8601); default 2026-01-01T00:00:00Z */
  startTime?: string
  /** start with the clock paused; default true (advance it from the test) */
  paused?: boolean
  /** virtual seconds per real second when running; default 1 */
  speed?: number
  /** default 1 */
  workers?: number
  /** every REST call answers this much later, as `--latency`: `200ms` or `200ms±50ms`; default none */
  latency?: string
  /** this share of REST calls gets an injected error, as `--error-rate`: `5%`; default none */
  errorRate?: string
  /** the operations `latency` and `errorRate` apply to, as `--fault-operations`; default every operation */
  faultOperations?: readonly string[]
  /**
   * virtual time an agent added with addagent takes to report in: seconds (`0`: at once) or
   * serve's `--join-delay` text (`5s`, a range `2s..9s`); default 2s..9s, as serve's
   */
  joinDelay?: number | string
  /**
   * how often the manager polls each agent for status, as `--status-poll`: seconds (`0`: an
   * agent's counters, load and memory are live) or a duration (`5m`); default 60s, as serve's
   */
  statusPoll?: number | string
}

export interface RunningFleetsim {
  /** where the operations are: `${baseUrl}/restservice` */
  url: string
  /** scheme, host, port and application path */
  baseUrl: string
  /** scheme, host and port: the `/__admin/*` endpoints are here */
  origin: string
  /** the CA certificate (PEM) to trust */
  ca: string
  caFingerprint: string
  credentials: { user: string; password: string }
  /** headers every request needs: REST_USER and REST_PASSWORD */
  headers: Record<string, string>
  clock: {
    /** moves virtual time forward by whole seconds and resolves once the fleet got there */
    advance(seconds: number): Promise<ClockState>
    /** resolves once the fleet holds still at the paused clock's second (every step round ended) */
    pause(): Promise<ClockState>
    resume(): Promise<ClockState>
    setSpeed(speed: number): Promise<ClockState>
    state(): ClockState
  }
  journal(filter?: JournalFilter): JournalEntry[]
  clearJournal(): void
  report(): ClientReport
  engine: FleetEngine
  close(): Promise<void>
}

export async function startFleetsim(options: FleetsimOptions = {}): Promise<RunningFleetsim> {
  const temp = options.dataDir === undefined ? await mkdtemp(join(tmpdir(), 'fleetsim-')) : undefined
  const dataDir = options.dataDir ?? (temp as string)
  const user = options.user ?? 'admin'
  const password = options.password ?? randomBytes(12).toString('base64url')
  try {
    let scenarioPath: string | undefined
    if (typeof options.scenario === 'string') scenarioPath = options.scenario
    else if (options.scenario !== undefined) {
      // JSON is YAML: the object goes through the same loader as a file would.
      scenarioPath = join(dataDir, 'embedded-scenario.json')
      await writeFile(scenarioPath, JSON.stringify(options.scenario))
    }
    const argv = [
      '--host', '127.0.0.1',
      '--port', '0',
      // Given to serve only when set (or, without a scenario, the embedded default of 100 agents):
      // with a scenario, a value given replaces the scenario's and one left out leaves it.
      ...(options.agents !== undefined || scenarioPath === undefined ? ['--agents', String(options.agents ?? 100)] : []),
      ...(options.seed === undefined ? [] : ['--seed', String(options.seed)]),
      '--data-dir', dataDir,
      // With `=`: a random password starts with `--` one time in 4,096 (base64url), and `--password --x`
      // reads as a flag without its value.
      `--user=${user}`,
      `--password=${password}`,
      '--workers', String(options.workers ?? 1),
      '--speed', String(options.speed ?? 1),
      '--start-time', options.startTime ?? '2026-01-01T00:00:00Z',
      '--app-path', options.appPath ?? '/manager/mvc',
      '--journal-size', String(options.journalSize ?? SERVE_DEFAULTS.journalSize),
      '--journal-max-bytes', String(options.journalMaxBytes ?? SERVE_DEFAULTS.journalMaxBytes),
      '--journal-body-bytes', String(options.journalBodyBytes ?? SERVE_DEFAULTS.journalBodyBytes),
      '--kept-answers-max-bytes', String(options.keptAnswersMaxBytes ?? SERVE_DEFAULTS.keptAnswersMaxBytes),
      '--unsent-answers-max-bytes', String(options.unsentAnswersMaxBytes ?? SERVE_DEFAULTS.unsentAnswersMaxBytes),
      '--log-level', 'silent',
      ...(options.joinDelay === undefined ? [] : ['--join-delay', String(options.joinDelay)]),
      ...(options.statusPoll === undefined ? [] : ['--status-poll', String(options.statusPoll)]),
      ...(options.http === true ? ['--http'] : []),
      ...(options.strict === true ? ['--strict'] : []),
      ...(options.paused ?? true ? ['--paused'] : []),
      ...(scenarioPath === undefined ? [] : ['--scenario', scenarioPath]),
      // With `=` the value is passed as given, even one starting with dashes, for the rule to judge.
      ...(options.latency === undefined ? [] : [`--latency=${options.latency}`]),
      ...(options.errorRate === undefined ? [] : [`--error-rate=${options.errorRate}`]),
      ...(options.faultOperations === undefined ? [] : [`--fault-operations=${options.faultOperations.join(',')}`])
    ]
    // No environment: an embedding test must not pick up FLEETSIM_* of the shell it runs in.
    const config = parseServeConfig(argv, {})
    const server = await startServer(config, { logger: createLogger('silent', { pretty: false }), announce: () => undefined })
    const engine = server.fleet
    const traffic = server.traffic
    return {
      url: server.serviceUrl,
      baseUrl: server.baseUrl,
      origin: new URL(server.baseUrl).origin,
      ca: server.ca.pem,
      caFingerprint: server.ca.fingerprint,
      credentials: { user, password },
      headers: { REST_USER: user, REST_PASSWORD: password },
      clock: {
        advance: (seconds) => engine.advance(seconds),
        pause: () => engine.setClock({ paused: true }),
        resume: () => engine.setClock({ paused: false }),
        setSpeed: (speed) => engine.setClock({ speed }),
        state: () => engine.clockState()
      },
      journal: (filter) => traffic.journal.query(filter ?? {}),
      clearJournal: () => traffic.journal.clear(),
      report: () => traffic.report(),
      engine,
      close: async () => {
        await server.close()
        if (temp !== undefined) await rm(temp, { recursive: true, force: true })
      }
    }
  } catch (error) {
    if (temp !== undefined) await rm(temp, { recursive: true, force: true })
    throw error
  }
}
