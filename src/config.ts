/**
 * Configuration of `fleetsim serve`: one table of flags, each with its env twin
 * `FLEETSIM_<NAME>`, its default and its rule. `parseServeConfig` reads the command line and
 * the environment (precedence: flag, then env, then default), validates every value once and
 * returns a frozen ServeConfig. A bad value throws a ConfigError whose message names the flag
 * and the rule: `--agents must be a positive integer, got "ten"`.
 */
import { readFileSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { ConfigError } from './flags/config-error.js'
import { STORED_LIMIT_DEFAULTS, STORED_LIMIT_FLAGS, type StoredLimits } from './manager/limits.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Upper bound of --agents: far above what one machine simulates, low enough to catch typos. */
export const MAX_AGENTS = 10_000_000
export const MAX_SEED = 0xffff_ffff
/** Upper bound of --body-limit and --max-list-items (1 GiB, a billion items). */
export const MAX_LIMIT = 1024 * 1024 * 1024
/** Upper bound of --max-query-length: the query travels in the request head, which Node holds in memory. */
export const MAX_QUERY_LENGTH = 16 * 1024 * 1024
/** Lower bound of --journal-max-bytes (1 MiB): room for hundreds of ordinary entries. */
export const MIN_JOURNAL_BYTES = 1024 * 1024
/** Upper bound of the timeout flags: one day. */
export const MAX_TIMEOUT_MS = 86_400_000
/** Upper bound of --shutdown-grace: a stop that waits longer than a minute is one a supervisor kills anyway. */
export const MAX_SHUTDOWN_GRACE_MS = 60_000

/** The stored-data limits (src/manager/limits.ts) are flags of their own, by the same names. */
export interface ServeConfig extends StoredLimits {
  /** address to listen on */
  readonly host: string
  readonly port: number
  /** serve plain HTTP instead of HTTPS */
  readonly http: boolean
  /** application path without a trailing slash, e.g. `/manager/mvc` */
  readonly appPath: string
  readonly user: string
  readonly password: string
  readonly agents: number
  readonly seed: number
  /** scenario file path, as given */
  readonly scenario: string | undefined
  /** virtual seconds per real second */
  readonly speed: number
  readonly workers: number
  readonly dataDir: string
  readonly logLevel: LogLevel
  /** require the REST credentials on /metrics (src/metrics/plugin.ts) */
  readonly metricsAuth: boolean
  /** virtual time at start, epoch milliseconds */
  readonly startTime: number
  /** start with the virtual clock stopped */
  readonly paused: boolean
  /** credentials of the /__admin endpoints; the REST ones unless given */
  readonly adminUser: string
  readonly adminPassword: string
  /** largest request body, bytes */
  readonly bodyLimit: number
  /** most items one list query parameter may hold */
  readonly maxListItems: number
  /** longest query string (after `?`), bytes */
  readonly maxQueryLength: number
  /** time a client has to send a whole request, ms */
  readonly requestTimeout: number
  /** time a client has to send the request headers, ms */
  readonly headersTimeout: number
  /** an idle keep-alive connection is closed after this long, ms */
  readonly keepAliveTimeout: number
  /** open connections served at once; further ones get 503 */
  readonly maxConnections: number
  /** open connections one client address may hold, from accept (before TLS); further ones are closed at accept */
  readonly maxConnectionsPerClient: number
  /** at shutdown, how long requests in flight may take before their connections are cut, ms */
  readonly shutdownGrace: number
  /** reject requests that break a strict-mode rule (src/harness/rules.ts) with 400 */
  readonly strict: boolean
  /** request journal entries kept (0: no journal) */
  readonly journalSize: number
  /** bytes the journal's entries may hold together (src/harness/journal-bounds.ts) */
  readonly journalMaxBytes: number
  /** where the whole simulation is saved and resumed from (src/state) */
  readonly stateFile: string | undefined
  /** wall seconds between automatic saves to the state file (0: only on request and at exit) */
  readonly snapshotInterval: number
}

/** The defaults of every flag. `workers` and `startTime` depend on the machine and the moment. */
export const SERVE_DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 9443,
  http: false,
  appPath: '/manager/mvc',
  user: 'admin',
  password: 'admin',
  agents: 1000,
  seed: 1,
  scenario: undefined,
  speed: 1,
  workers: 'the number of CPUs',
  dataDir: '.fleetsim',
  logLevel: 'info',
  metricsAuth: false,
  startTime: 'now',
  paused: false,
  adminUser: 'the --user value',
  adminPassword: 'the --password value',
  bodyLimit: 1024 * 1024,
  maxListItems: 100_000,
  // 10,000 agentUuids in one query (the multi-agent load the benchmarks use) take about 370 KiB.
  maxQueryLength: 1024 * 1024,
  requestTimeout: 30_000,
  headersTimeout: 10_000,
  keepAliveTimeout: 5_000,
  maxConnections: 1024,
  maxConnectionsPerClient: 256,
  shutdownGrace: 5_000,
  strict: false,
  journalSize: 10_000,
  journalMaxBytes: 32 * 1024 * 1024,
  stateFile: undefined,
  snapshotInterval: 300,
  ...STORED_LIMIT_DEFAULTS
} as const)

/** What parseServeConfig needs from the machine; tests pass their own. */
export interface ConfigContext {
  /** epoch ms, the default of --start-time */
  now(): number
  /** the default of --workers */
  cpuCount(): number
  /** contents of a file (for --password-file); throws when unreadable */
  readFile(path: string): string
  isFile(path: string): boolean
}

export const nodeConfigContext: ConfigContext = {
  now: () => Date.now(),
  cpuCount: () => availableParallelism(),
  readFile: (path) => readFileSync(path, 'utf8'),
  isFile: (path) => {
    try {
      return statSync(path).isFile()
    } catch {
      return false
    }
  }
}

export { ConfigError, type ConfigErrorCode } from './flags/config-error.js'

type ValueKey = keyof ServeConfig | 'passwordFile' | 'adminPasswordFile'

export interface FlagSpec {
  /** flag name without dashes, e.g. `app-path` */
  readonly name: string
  readonly key: ValueKey
  readonly type: 'string' | 'boolean'
  /** placeholder shown in help, e.g. `<n>` */
  readonly valueName?: string
  /** the default as help shows it */
  readonly defaultText: string
  readonly meaning: string
}

/** Every flag of `fleetsim serve`, in help order. */
export const SERVE_FLAGS: readonly FlagSpec[] = Object.freeze([
  { name: 'host', key: 'host', type: 'string', valueName: '<address>', defaultText: SERVE_DEFAULTS.host, meaning: 'address to listen on; also put in the server certificate' },
  { name: 'port', key: 'port', type: 'string', valueName: '<port>', defaultText: String(SERVE_DEFAULTS.port), meaning: 'port to listen on (0: any free port)' },
  { name: 'http', key: 'http', type: 'boolean', defaultText: 'false', meaning: 'serve plain HTTP instead of HTTPS' },
  { name: 'app-path', key: 'appPath', type: 'string', valueName: '<path>', defaultText: SERVE_DEFAULTS.appPath, meaning: 'application path; operations are at <app-path>/restservice/<operation>' },
  { name: 'user', key: 'user', type: 'string', valueName: '<name>', defaultText: SERVE_DEFAULTS.user, meaning: 'the REST_USER clients must send' },
  { name: 'password', key: 'password', type: 'string', valueName: '<text>', defaultText: SERVE_DEFAULTS.password, meaning: 'the REST_PASSWORD clients must send' },
  { name: 'password-file', key: 'passwordFile', type: 'string', valueName: '<file>', defaultText: 'none', meaning: 'read the password from the first line of this file instead' },
  { name: 'admin-user', key: 'adminUser', type: 'string', valueName: '<name>', defaultText: SERVE_DEFAULTS.adminUser, meaning: 'the REST_USER the /__admin endpoints require' },
  { name: 'admin-password', key: 'adminPassword', type: 'string', valueName: '<text>', defaultText: SERVE_DEFAULTS.adminPassword, meaning: 'the REST_PASSWORD the /__admin endpoints require' },
  { name: 'admin-password-file', key: 'adminPasswordFile', type: 'string', valueName: '<file>', defaultText: 'none', meaning: 'read the admin password from the first line of this file instead' },
  { name: 'agents', key: 'agents', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.agents), meaning: 'number of simulated agents at start' },
  { name: 'seed', key: 'seed', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.seed), meaning: 'seed of every random choice; same seed, same fleet' },
  { name: 'scenario', key: 'scenario', type: 'string', valueName: '<file>', defaultText: 'none', meaning: 'scenario file (YAML) driving the fleet' },
  { name: 'speed', key: 'speed', type: 'string', valueName: '<factor>', defaultText: String(SERVE_DEFAULTS.speed), meaning: 'virtual seconds per real second (3600: an hour per second)' },
  { name: 'workers', key: 'workers', type: 'string', valueName: '<n>', defaultText: SERVE_DEFAULTS.workers, meaning: 'worker threads stepping the fleet' },
  { name: 'data-dir', key: 'dataDir', type: 'string', valueName: '<dir>', defaultText: SERVE_DEFAULTS.dataDir, meaning: 'where the CA and server certificate are kept (tls/)' },
  { name: 'log-level', key: 'logLevel', type: 'string', valueName: '<level>', defaultText: SERVE_DEFAULTS.logLevel, meaning: `log level: ${LOG_LEVELS.join(', ')}` },
  { name: 'metrics-auth', key: 'metricsAuth', type: 'boolean', defaultText: 'false', meaning: 'require the REST credentials on /metrics (headers or HTTP Basic auth)' },
  { name: 'start-time', key: 'startTime', type: 'string', valueName: '<iso>', defaultText: SERVE_DEFAULTS.startTime, meaning: 'virtual time at start, ISO 8601 with a time zone (2024-01-01T00:00:00Z)' },
  { name: 'paused', key: 'paused', type: 'boolean', defaultText: 'false', meaning: 'start with the virtual clock paused' },
  { name: 'body-limit', key: 'bodyLimit', type: 'string', valueName: '<bytes>', defaultText: String(SERVE_DEFAULTS.bodyLimit), meaning: 'largest request body; a larger one gets 413' },
  { name: 'max-list-items', key: 'maxListItems', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.maxListItems), meaning: 'most items of one list query parameter; more get 400' },
  { name: 'max-query-length', key: 'maxQueryLength', type: 'string', valueName: '<bytes>', defaultText: String(SERVE_DEFAULTS.maxQueryLength), meaning: 'longest query string; a longer one gets 414' },
  { name: 'request-timeout', key: 'requestTimeout', type: 'string', valueName: '<ms>', defaultText: String(SERVE_DEFAULTS.requestTimeout), meaning: 'time a client has to send a whole request before the connection is closed' },
  { name: 'headers-timeout', key: 'headersTimeout', type: 'string', valueName: '<ms>', defaultText: String(SERVE_DEFAULTS.headersTimeout), meaning: 'time a client has to send the request headers (at most --request-timeout)' },
  { name: 'keep-alive-timeout', key: 'keepAliveTimeout', type: 'string', valueName: '<ms>', defaultText: String(SERVE_DEFAULTS.keepAliveTimeout), meaning: 'an idle keep-alive connection is closed after this long' },
  { name: 'max-connections', key: 'maxConnections', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.maxConnections), meaning: 'open connections served at once; requests on further ones get 503' },
  { name: 'max-connections-per-client', key: 'maxConnectionsPerClient', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.maxConnectionsPerClient), meaning: 'open connections one client address may hold, TLS handshakes included; further ones are closed at accept' },
  { name: 'shutdown-grace', key: 'shutdownGrace', type: 'string', valueName: '<ms>', defaultText: String(SERVE_DEFAULTS.shutdownGrace), meaning: 'at SIGINT/SIGTERM, time requests in flight get to finish before their connections are cut' },
  { name: 'strict', key: 'strict', type: 'boolean', defaultText: 'false', meaning: 'reject requests that break a protocol rule with 400 (lenient: answer and record)' },
  { name: 'journal-size', key: 'journalSize', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.journalSize), meaning: 'requests kept in the journal of /__admin/requests and /__admin/report (0: none)' },
  { name: 'journal-max-bytes', key: 'journalMaxBytes', type: 'string', valueName: '<bytes>', defaultText: String(SERVE_DEFAULTS.journalMaxBytes), meaning: 'bytes the journal entries may hold together; past it the oldest are dropped' },
  { name: 'state-file', key: 'stateFile', type: 'string', valueName: '<file>', defaultText: 'none', meaning: 'resume the whole simulation from this file if it exists; save it there periodically, on POST /__admin/snapshot and at exit' },
  { name: 'snapshot-interval', key: 'snapshotInterval', type: 'string', valueName: '<s>', defaultText: String(SERVE_DEFAULTS.snapshotInterval), meaning: 'wall seconds between automatic saves to --state-file (0: only on request and at exit)' },
  { name: STORED_LIMIT_FLAGS.maxLabels, key: 'maxLabels', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.maxLabels), meaning: 'custom labels the manager holds; creating more gets 409' },
  { name: STORED_LIMIT_FLAGS.maxLabelsPerAgent, key: 'maxLabelsPerAgent', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.maxLabelsPerAgent), meaning: 'custom labels one agent has; assigning more gets 409' },
  { name: STORED_LIMIT_FLAGS.maxLabelValueBytes, key: 'maxLabelValueBytes', type: 'string', valueName: '<bytes>', defaultText: String(SERVE_DEFAULTS.maxLabelValueBytes), meaning: 'longest custom label value (UTF-8); a longer one gets 400' },
  { name: STORED_LIMIT_FLAGS.maxNameBytes, key: 'maxNameBytes', type: 'string', valueName: '<bytes>', defaultText: String(SERVE_DEFAULTS.maxNameBytes), meaning: 'longest name of a custom label, template, manager field or agent (UTF-8); a longer one gets 400' },
  { name: STORED_LIMIT_FLAGS.maxTextBytes, key: 'maxTextBytes', type: 'string', valueName: '<bytes>', defaultText: String(SERVE_DEFAULTS.maxTextBytes), meaning: 'longest description or address of a template, manager field or agent (UTF-8); a longer one gets 400' },
  { name: STORED_LIMIT_FLAGS.maxVerbatimBytes, key: 'maxVerbatimBytes', type: 'string', valueName: '<bytes>', defaultText: String(SERVE_DEFAULTS.maxVerbatimBytes), meaning: 'longest verbatim text of a template or agent (UTF-8); a longer one gets 400' },
  { name: STORED_LIMIT_FLAGS.maxTemplates, key: 'maxTemplates', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.maxTemplates), meaning: 'master and sub templates the manager holds; creating more gets 409' },
  { name: STORED_LIMIT_FLAGS.maxFields, key: 'maxFields', type: 'string', valueName: '<n>', defaultText: String(SERVE_DEFAULTS.maxFields), meaning: 'manager fields the manager holds; creating more gets 409' }
] satisfies FlagSpec[])

/** The env twin of a flag: `app-path` → `FLEETSIM_APP_PATH`. */
export function envName(flag: string): string {
  return `FLEETSIM_${flag.toUpperCase().replace(/-/g, '_')}`
}

type Raw = { value: string | boolean; from: 'flag' | 'env' }

/**
 * Reads `fleetsim serve` flags (without the subcommand) and the environment into a frozen,
 * validated ServeConfig. Throws ConfigError.
 */
export function parseServeConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  context: ConfigContext = nodeConfigContext
): ServeConfig {
  const fromFlags = readFlags(argv)
  const raw = new Map<ValueKey, Raw>()
  for (const spec of SERVE_FLAGS) {
    const flagValue = fromFlags.get(spec.name)
    const envValue = env[envName(spec.name)]
    if (flagValue !== undefined) raw.set(spec.key, { value: flagValue, from: 'flag' })
    else if (envValue !== undefined && envValue !== '') raw.set(spec.key, { value: envValue, from: 'env' })
  }

  const read = <T>(key: ValueKey, fallback: T, convert: (value: string, fail: (rule: string) => never) => T): T => {
    const given = raw.get(key)
    if (given === undefined) return fallback
    const spec = specOf(key)
    const fail = (rule: string): never => {
      const origin = given.from === 'env' ? ` (from ${envName(spec.name)})` : ''
      throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${spec.name} must ${rule}, got "${String(given.value)}"${origin}`)
    }
    return convert(String(given.value), fail)
  }
  const flag = (key: ValueKey, fallback: boolean): boolean => read(key, fallback, parseBoolean)

  const user = read('user', SERVE_DEFAULTS.user as string, (value, fail) => (value.trim() === '' ? fail('not be empty') : value))
  const password = resolvePassword(raw, context, 'password', 'passwordFile') ?? SERVE_DEFAULTS.password
  const config: ServeConfig = {
    host: read('host', SERVE_DEFAULTS.host, (value, fail) => {
      if (value === '' || /[\s/]/.test(value)) fail('be a host name or IP address')
      return value.replace(/^\[(.*)\]$/, '$1')
    }),
    port: read('port', SERVE_DEFAULTS.port, (value, fail) => integerIn(value, 0, 65535) ?? fail('be an integer from 0 to 65535')),
    http: flag('http', SERVE_DEFAULTS.http),
    appPath: read('appPath', SERVE_DEFAULTS.appPath, parseAppPath),
    user,
    password,
    agents: read('agents', SERVE_DEFAULTS.agents, (value, fail) => {
      const agents = integerIn(value, 1, Number.MAX_SAFE_INTEGER) ?? fail('be a positive integer')
      return agents <= MAX_AGENTS ? agents : fail(`be at most ${MAX_AGENTS}`)
    }),
    seed: read('seed', SERVE_DEFAULTS.seed, (value, fail) => integerIn(value, 0, MAX_SEED) ?? fail(`be an integer from 0 to ${MAX_SEED}`)),
    scenario: read<string | undefined>('scenario', SERVE_DEFAULTS.scenario, (value, fail) =>
      context.isFile(value) ? value : fail('name an existing file')
    ),
    speed: read('speed', SERVE_DEFAULTS.speed, (value, fail) => {
      const speed = /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(value) ? Number(value) : Number.NaN
      return Number.isFinite(speed) && speed > 0 ? speed : fail('be a positive number')
    }),
    workers: read('workers', context.cpuCount(), (value, fail) => integerIn(value, 1, 1024) ?? fail('be an integer from 1 to 1024')),
    dataDir: read('dataDir', SERVE_DEFAULTS.dataDir, (value, fail) => (value.trim() === '' ? fail('not be empty') : value)),
    logLevel: read('logLevel', SERVE_DEFAULTS.logLevel as LogLevel, (value, fail) =>
      (LOG_LEVELS as readonly string[]).includes(value) ? (value as LogLevel) : fail(`be one of ${LOG_LEVELS.join(', ')}`)
    ),
    metricsAuth: flag('metricsAuth', SERVE_DEFAULTS.metricsAuth),
    startTime: read('startTime', context.now(), (value, fail) =>
      parseIsoTime(value) ?? fail('be an ISO 8601 date-time with a time zone, like 2024-01-01T00:00:00Z')
    ),
    paused: flag('paused', SERVE_DEFAULTS.paused),
    adminUser: read('adminUser', undefined as string | undefined, (value, fail) => (value.trim() === '' ? fail('not be empty') : value)) ?? user,
    adminPassword: resolvePassword(raw, context, 'adminPassword', 'adminPasswordFile') ?? password,
    bodyLimit: read('bodyLimit', SERVE_DEFAULTS.bodyLimit, (value, fail) => integerIn(value, 1, MAX_LIMIT) ?? fail(`be an integer from 1 to ${MAX_LIMIT}`)),
    maxListItems: read('maxListItems', SERVE_DEFAULTS.maxListItems, (value, fail) => integerIn(value, 1, MAX_LIMIT) ?? fail(`be an integer from 1 to ${MAX_LIMIT}`)),
    maxQueryLength: read('maxQueryLength', SERVE_DEFAULTS.maxQueryLength, (value, fail) => integerIn(value, 1, MAX_QUERY_LENGTH) ?? fail(`be an integer from 1 to ${MAX_QUERY_LENGTH}`)),
    requestTimeout: read('requestTimeout', SERVE_DEFAULTS.requestTimeout, (value, fail) => integerIn(value, 1, MAX_TIMEOUT_MS) ?? fail(`be an integer from 1 to ${MAX_TIMEOUT_MS} (milliseconds)`)),
    headersTimeout: read('headersTimeout', SERVE_DEFAULTS.headersTimeout, (value, fail) => integerIn(value, 1, MAX_TIMEOUT_MS) ?? fail(`be an integer from 1 to ${MAX_TIMEOUT_MS} (milliseconds)`)),
    keepAliveTimeout: read('keepAliveTimeout', SERVE_DEFAULTS.keepAliveTimeout, (value, fail) => integerIn(value, 1, MAX_TIMEOUT_MS) ?? fail(`be an integer from 1 to ${MAX_TIMEOUT_MS} (milliseconds)`)),
    maxConnections: read('maxConnections', SERVE_DEFAULTS.maxConnections, (value, fail) => integerIn(value, 1, 1_000_000) ?? fail('be an integer from 1 to 1000000')),
    maxConnectionsPerClient: read('maxConnectionsPerClient', SERVE_DEFAULTS.maxConnectionsPerClient, (value, fail) => integerIn(value, 1, 1_000_000) ?? fail('be an integer from 1 to 1000000')),
    shutdownGrace: read('shutdownGrace', SERVE_DEFAULTS.shutdownGrace, (value, fail) => integerIn(value, 0, MAX_SHUTDOWN_GRACE_MS) ?? fail(`be an integer from 0 to ${MAX_SHUTDOWN_GRACE_MS} (milliseconds)`)),
    strict: flag('strict', SERVE_DEFAULTS.strict),
    journalSize: read('journalSize', SERVE_DEFAULTS.journalSize, (value, fail) => integerIn(value, 0, 10_000_000) ?? fail('be an integer from 0 to 10000000')),
    journalMaxBytes: read('journalMaxBytes', SERVE_DEFAULTS.journalMaxBytes, (value, fail) => integerIn(value, MIN_JOURNAL_BYTES, MAX_LIMIT) ?? fail(`be an integer from ${MIN_JOURNAL_BYTES} to ${MAX_LIMIT} (bytes)`)),
    stateFile: read('stateFile', SERVE_DEFAULTS.stateFile as string | undefined, (value, fail) => (value.trim() === '' ? fail('not be empty') : value)),
    snapshotInterval: read('snapshotInterval', SERVE_DEFAULTS.snapshotInterval, (value, fail) => integerIn(value, 0, 86_400) ?? fail('be an integer from 0 to 86400 (seconds)')),
    maxLabels: read('maxLabels', SERVE_DEFAULTS.maxLabels, storedLimit),
    maxLabelsPerAgent: read('maxLabelsPerAgent', SERVE_DEFAULTS.maxLabelsPerAgent, storedLimit),
    maxLabelValueBytes: read('maxLabelValueBytes', SERVE_DEFAULTS.maxLabelValueBytes, storedLimit),
    maxNameBytes: read('maxNameBytes', SERVE_DEFAULTS.maxNameBytes, storedLimit),
    maxTextBytes: read('maxTextBytes', SERVE_DEFAULTS.maxTextBytes, storedLimit),
    maxVerbatimBytes: read('maxVerbatimBytes', SERVE_DEFAULTS.maxVerbatimBytes, storedLimit),
    maxTemplates: read('maxTemplates', SERVE_DEFAULTS.maxTemplates, storedLimit),
    maxFields: read('maxFields', SERVE_DEFAULTS.maxFields, storedLimit)
  }
  if (config.headersTimeout > config.requestTimeout) {
    // Node refuses a server whose header wait outlasts the whole-request wait.
    throw new ConfigError(
      'FLEETSIM_CONFLICTING_FLAGS',
      `--headers-timeout (${config.headersTimeout}) must not exceed --request-timeout (${config.requestTimeout}); lower the first or raise the second`
    )
  }
  return Object.freeze(config)
}

function specOf(key: ValueKey): FlagSpec {
  const spec = SERVE_FLAGS.find((candidate) => candidate.key === key)
  if (spec === undefined) throw new Error(`no flag for ${key}`)
  return spec
}

/** Walks the command line with parseArgs' tokens so every error can name the flag. */
function readFlags(argv: readonly string[]): Map<string, string | boolean> {
  const options = Object.fromEntries(SERVE_FLAGS.map((spec) => [spec.name, { type: spec.type }]))
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, allowNegative: true, tokens: true })
  const values = new Map<string, string | boolean>()
  for (const token of tokens) {
    if (token.kind === 'positional') {
      throw new ConfigError('FLEETSIM_UNEXPECTED_ARGUMENT', `unexpected argument "${token.value}"; fleetsim serve takes only flags (see fleetsim --help)`)
    }
    if (token.kind !== 'option') continue
    const spec = SERVE_FLAGS.find((candidate) => candidate.name === token.name)
    const negated = token.rawName.startsWith('--no-')
    if (spec === undefined || (negated && spec.type !== 'boolean')) {
      throw new ConfigError('FLEETSIM_UNKNOWN_FLAG', `unknown flag ${token.rawName} (see fleetsim --help)`)
    }
    if (spec.type === 'boolean') {
      if (token.inlineValue) {
        throw new ConfigError('FLEETSIM_UNEXPECTED_VALUE', `${token.rawName} takes no value; use --${spec.name} or --no-${spec.name}`)
      }
      values.set(spec.name, !negated)
      continue
    }
    // strict: false lets `--port --http` take "--http" as the port; treat it as a missing value.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      throw new ConfigError('FLEETSIM_MISSING_VALUE', `--${spec.name} needs a value, e.g. --${spec.name} ${spec.valueName ?? '<value>'}`)
    }
    values.set(spec.name, token.value)
  }
  return values
}

function parseBoolean(value: string, fail: (rule: string) => never): boolean {
  const text = value.toLowerCase()
  if (['true', '1', 'yes', 'on'].includes(text)) return true
  if (['false', '0', 'no', 'off'].includes(text)) return false
  return fail('be true or false')
}

function parseAppPath(value: string, fail: (rule: string) => never): string {
  if (!value.startsWith('/')) fail('start with "/"')
  if (/[\s?#%\\]/.test(value) || value.includes('//')) fail('be a plain path without spaces, "?", "#", "%", "\\" or "//"')
  const path = value.replace(/\/+$/, '')
  return path === '' ? fail('name at least one path segment, like /manager/mvc') : path
}

/**
 * A password flag and its file twin (--password/--password-file, --admin-password/
 * --admin-password-file): the one from the higher source wins; both at one level is an error.
 * Undefined when neither is given.
 */
function resolvePassword(raw: Map<ValueKey, Raw>, context: ConfigContext, textKey: ValueKey, fileKey: ValueKey): string | undefined {
  const password = raw.get(textKey)
  const file = raw.get(fileKey)
  const textFlag = specOf(textKey).name
  const fileFlag = specOf(fileKey).name
  if (password !== undefined && file !== undefined && password.from === file.from) {
    const names = password.from === 'flag' ? [`--${textFlag}`, `--${fileFlag}`] : [envName(textFlag), envName(fileFlag)]
    throw new ConfigError('FLEETSIM_CONFLICTING_FLAGS', `${names[0]} and ${names[1]} cannot be used together; give one of them`)
  }
  const origin = (given: Raw, flag: string) => (given.from === 'env' ? ` (from ${envName(flag)})` : '')
  if (file !== undefined && (password === undefined || file.from === 'flag')) {
    const path = String(file.value)
    let text: string
    try {
      text = context.readFile(path)
    } catch {
      throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${fileFlag} must name a readable file, got "${path}"${origin(file, fileFlag)}`)
    }
    const firstLine = text.split(/\r?\n/, 1)[0] ?? ''
    if (firstLine === '') {
      throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${fileFlag} must name a file whose first line is the password, got "${path}"${origin(file, fileFlag)}`)
    }
    return firstLine
  }
  if (password === undefined) return undefined
  if (password.value === '') {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${textFlag} must not be empty, got ""${origin(password, textFlag)}`)
  }
  return String(password.value)
}

/** A stored-data limit (--max-labels, --max-name-bytes, ...): a count or a size in bytes. */
function storedLimit(value: string, fail: (rule: string) => never): number {
  return integerIn(value, 1, MAX_LIMIT) ?? fail(`be an integer from 1 to ${MAX_LIMIT}`)
}

/** A decimal integer within [min, max], or undefined. Rejects signs, fractions, exponents and spaces. */
function integerIn(value: string, min: number, max: number): number | undefined {
  if (!/^\d+$/.test(value)) return undefined
  const number = Number(value)
  return Number.isSafeInteger(number) && number >= min && number <= max ? number : undefined
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/

/** Epoch ms of an ISO 8601 date (UTC midnight) or date-time with Z or an offset; undefined otherwise. */
export function parseIsoTime(value: string): number | undefined {
  const match = ISO_TIME.exec(value)
  if (match === null) return undefined
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = match
  const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate()
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > daysInMonth) return undefined
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined
  const time = Date.parse(value)
  return Number.isFinite(time) ? time : undefined
}
