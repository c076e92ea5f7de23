/**
 * Configuration of `fleetsim serve`. Each flag is written once, in SERVE_FLAGS_BY_KEY: its name
 * (which gives its env twin `FLEETSIM_<NAME>`), the placeholder of its value, its default, its
 * rule (src/flags/rules.ts) and its help line. ServeConfig's type, SERVE_DEFAULTS, the help
 * table and the README's flag table (kept in step by test/cli/readme.test.ts) derive from it.
 *
 * `parseServeConfig` reads the command line and the environment with parseFlags (precedence:
 * flag, then env, then default), then checks what involves the machine or two flags at once
 * (a scenario file that exists, a password and its file twin, the admin credentials, the
 * timeouts), and returns a frozen ServeConfig. A bad value throws a ConfigError whose message
 * names the flag and the rule: `--agents must be a positive integer, got "ten"`.
 */
import { statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { ConfigError } from './flags/config-error.js'
import { RuleError, envName, switchFlag, valueFlag, type Rule, type SwitchFlag, type ValueFlag } from './flags/flag.js'
import { invalidValue, parseFlags, type ParsedFlags } from './flags/parse.js'
import { durationWithSpread, headerValue, integer, listOf, nonEmpty, oneOf, percentage, positiveNumber, runStartTime, wholeSeconds, wholeSecondsRange, workerCount } from './flags/rules.js'
import { MAX_SPEED } from './fleet/clock.js'
import { DEFAULT_JOIN_DELAY } from './fleet/fleet-types.js'
import { DEFAULT_STATUS_POLL_SECONDS } from './fleet/status-poll.js'
import { JOURNAL_DEFAULTS } from './journal/journal.js'
import { MAX_BODY_BYTES } from './journal/journal-bounds.js'
import { STORED_LIMIT_DEFAULTS, STORED_LIMIT_FLAGS, type StoredLimits } from './manager/limits.js'
import { OPERATIONS, type OperationName } from './protocol/operations.js'
import { DEFAULT_KEPT_BYTES } from './http/answer-cache.js'
import { libraryHint } from './scenario/library-dir.js'
import { PASSWORD_FILE_MAX_BYTES, readRegularFileSync, UnreadableFileError } from './lib/regular-file.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Upper bound of --agents: far above what one machine simulates, low enough to catch typos. */
export const MAX_AGENTS = 10_000_000
export const MAX_SEED = 0xffff_ffff
/** The fleet without --agents and without a scenario (with one, the scenario's fleet.agents). */
export const DEFAULT_AGENTS = 1000
/** The seed without --seed and without a scenario (with one, the scenario's fleet.seed). */
export const DEFAULT_SEED = 1
/** Upper bound of --body-limit, --max-list-items and the stored-data limits (1 GiB, a billion items). */
export const MAX_LIMIT = 1024 * 1024 * 1024
/** Upper bound of --max-query-length: the query travels in the request head, which Node holds in memory. */
export const MAX_QUERY_LENGTH = 16 * 1024 * 1024
/** Lower bound of --journal-max-bytes (1 MiB): room for hundreds of ordinary entries. */
export const MIN_JOURNAL_BYTES = 1024 * 1024
/** --unsent-answers-max-bytes: 256 MiB by default (src/http/unsent-answers.ts), from 1 MiB to 1 TiB. */
export const DEFAULT_UNSENT_ANSWER_BYTES = 256 * 1024 * 1024
const MIN_UNSENT_ANSWER_BYTES = 1024 * 1024
const MAX_UNSENT_ANSWER_BYTES = 1024 * 1024 * 1024 * 1024
/** Upper bound of the timeout flags: one day. */
export const MAX_TIMEOUT_MS = 86_400_000
/** Upper bound of --join-delay: a day of virtual time. */
export const MAX_JOIN_DELAY_SECONDS = 86_400
/** Upper bound of --shutdown-grace: a stop that waits longer than a minute is one a supervisor kills anyway. */
export const MAX_SHUTDOWN_GRACE_MS = 60_000
/** Upper bound of --latency, spread included: one day, well inside what a Node timer can wait (24.8 days). */
export const MAX_LATENCY_SECONDS = 86_400

/** The command as users type it; flag messages end with `(see fleetsim serve --help)`. */
const COMMAND = 'fleetsim serve'

/** What parseServeConfig needs from the machine; tests pass their own. */
export interface ConfigContext {
  /** epoch ms, the default of --start-time */
  now(): number
  /** the default of --workers */
  cpuCount(): number
  /** contents of a file (for --password-file); throws when unreadable, no regular file or too large */
  readFile(path: string): string
  isFile(path: string): boolean
}

export const nodeConfigContext: ConfigContext = {
  now: () => Date.now(),
  cpuCount: () => availableParallelism(),
  readFile: (path) => readRegularFileSync(path, PASSWORD_FILE_MAX_BYTES),
  isFile: (path) => {
    try {
      return statSync(path).isFile()
    } catch {
      return false
    }
  }
}

export { ConfigError, type ConfigErrorCode } from './flags/config-error.js'

/** A default written as a value: help shows it as written, `none` for undefined. */
interface Fixed<T> {
  readonly kind: 'fixed'
  readonly value: T
}
/** A default that depends on the machine or the moment: the CPU count, the time now. */
interface FromContext<T> {
  readonly kind: 'context'
  readonly of: (context: ConfigContext) => T
}
/** A default taken from other flags after parsing: the admin credentials are the REST ones. */
interface FromFlags {
  readonly kind: 'flags'
}

/** A flag of `fleetsim serve`: a flag of src/flags with its env twin and its default. */
export type ServeFlag = (ValueFlag<unknown> | SwitchFlag) & { readonly env: true; readonly default: Fixed<unknown> | FromContext<unknown> | FromFlags }

interface ValueSpec<T> {
  readonly name: string
  readonly valueName: string
  readonly rule: Rule<T>
  readonly help: string
}

/** A flag with a default written as a value; help shows it as written (or as `defaultText`, for a value that is not text). */
function value<T>(spec: ValueSpec<T> & { default: NoInfer<T>; defaultText?: string }): ValueFlag<T> & { readonly env: true; readonly default: Fixed<T> } {
  const { default: fallback, defaultText = String(fallback), ...flag } = spec
  return Object.freeze({ ...valueFlag({ ...flag, defaultText, env: true }), env: true, default: { kind: 'fixed', value: fallback } } as const)
}

/** A flag without a default: undefined unless given; help shows `none`, or `defaultText` for what its absence means. */
function optional<T>(spec: ValueSpec<T> & { defaultText?: string }): ValueFlag<T> & { readonly env: true; readonly default: Fixed<undefined> } {
  const { defaultText = 'none', ...flag } = spec
  return Object.freeze({ ...valueFlag({ ...flag, defaultText, env: true }), env: true, default: { kind: 'fixed', value: undefined } } as const)
}

/** A flag whose default depends on the machine or the moment; help shows `defaultText`. */
function valueFromContext<T>(
  spec: ValueSpec<T> & { defaultText: string; default: (context: ConfigContext) => T }
): ValueFlag<T> & { readonly env: true; readonly default: FromContext<T> } {
  const { default: of, ...flag } = spec
  return Object.freeze({ ...valueFlag({ ...flag, env: true }), env: true, default: { kind: 'context', of } } as const)
}

/** A flag whose default parseServeArgs takes from other flags; help shows `defaultText`. */
function valueFromFlags<T>(spec: ValueSpec<T> & { defaultText: string }): ValueFlag<T> & { readonly env: true; readonly default: FromFlags } {
  return Object.freeze({ ...valueFlag({ ...spec, env: true }), env: true, default: { kind: 'flags' } } as const)
}

/** A switch, off unless given. */
function off(spec: { name: string; help: string }): SwitchFlag & { readonly env: true; readonly default: Fixed<boolean> } {
  return Object.freeze({ ...switchFlag({ ...spec, env: true }), env: true, default: { kind: 'fixed', value: false } } as const)
}

/** A switch, on unless turned off with `--no-<name>`. */
function on(spec: { name: string; help: string }): SwitchFlag & { readonly env: true; readonly default: Fixed<boolean> } {
  return Object.freeze({ ...switchFlag({ ...spec, env: true, defaultText: 'true' }), env: true, default: { kind: 'fixed', value: true } } as const)
}

/** Any text, even empty: the value is checked after parsing (a file read through the context). */
const anyText: Rule<string> = (text) => text

/** --speed: a positive number up to the clock's MAX_SPEED. */
const speedFactor: Rule<number> = (text) => {
  const speed = positiveNumber(text)
  if (speed > MAX_SPEED) throw new RuleError(`be at most ${MAX_SPEED} (11.6 days a second; the fleet steps back to back well below that)`)
  return speed
}

const hostName: Rule<string> = (text) => {
  // Brackets only around a whole IPv6 address: `[::1` passed, then failed to listen on `[[::1]`.
  if (text === '' || /[\s/]/.test(text) || (/[[\]]/.test(text) && !/^\[[^[\]]+\]$/.test(text))) throw new RuleError('be a host name or IP address')
  return text.replace(/^\[(.*)\]$/, '$1')
}

/**
 * Segments of letters, digits and `-._~` (RFC 3986's unreserved characters), none of them `.` or
 * `..`: what every client sends as it is and every router reads literally. A `:` or `*` is a
 * parameter or a wildcard to fastify's router, which then answered paths outside the app path,
 * and a different operation path from the fast path's (src/http/fast-path.ts).
 */
const APP_PATH_SEGMENTS = /^(\/[A-Za-z0-9._~-]+)+$/

const appPath: Rule<string> = (text) => {
  if (!text.startsWith('/')) throw new RuleError('start with "/"')
  const path = text.replace(/\/+$/, '')
  if (path === '') throw new RuleError('name at least one path segment, like /manager/mvc')
  if (!APP_PATH_SEGMENTS.test(path) || path.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new RuleError('be segments of letters, digits, "-", ".", "_" and "~" (none of them "." or "..") between single slashes, like /manager/mvc')
  }
  return path
}

/** --max-added-agents: room in the fleet's memory for that many more agents, so bounded as --agents is. */
const addedAgentCount: Rule<number> = integer(0, MAX_AGENTS)

const positiveInteger = integer(1, Number.MAX_SAFE_INTEGER)
/** Says "a positive integer" first: a typo like `ten` is told the kind of value, not the bound. serve's and run's --agents. */
export const agentCount: Rule<number> = (text) => {
  // Digits past the bound, however many (past a safe integer too): the bound is what they break.
  if (/^\d+$/.test(text) && Number(text) > MAX_AGENTS) throw new RuleError(`be at most ${MAX_AGENTS}`)
  return positiveInteger(text)
}

/** serve's and run's --seed: the 32-bit seed a scenario's fleet.seed is too. */
export const seedNumber: Rule<number> = integer(0, MAX_SEED)

const milliseconds = (min: number, max: number) => integer(min, max, 'milliseconds')

/** A stored-data limit (src/manager/limits.ts names the flag and holds the default, which the manager uses without flags). */
function storedLimit(key: keyof StoredLimits, valueName: '<n>' | '<bytes>', help: string) {
  return value({ name: STORED_LIMIT_FLAGS[key], valueName, rule: integer(1, MAX_LIMIT), default: STORED_LIMIT_DEFAULTS[key], help })
}

/** Every flag of `fleetsim serve`, keyed by its ServeConfig field, in help order. */
export const SERVE_FLAGS_BY_KEY = Object.freeze({
  host: value({ name: 'host', valueName: '<address>', rule: hostName, default: '127.0.0.1', help: 'address to listen on; also put in the server certificate' }),
  port: value({ name: 'port', valueName: '<port>', rule: integer(0, 65535), default: 9443, help: 'port to listen on (0: any free port)' }),
  http: off({ name: 'http', help: 'serve plain HTTP instead of HTTPS' }),
  appPath: value({ name: 'app-path', valueName: '<path>', rule: appPath, default: '/manager/mvc', help: 'application path; operations are at <app-path>/restservice/<operation>' }),
  user: value({ name: 'user', valueName: '<name>', rule: headerValue, default: 'admin', help: 'the REST_USER clients must send' }),
  password: value({ name: 'password', valueName: '<text>', rule: headerValue, default: 'admin', help: 'the REST_PASSWORD clients must send' }),
  passwordFile: optional({ name: 'password-file', valueName: '<file>', rule: anyText, help: 'read the password from the first line of this file instead' }),
  adminUser: valueFromFlags({ name: 'admin-user', valueName: '<name>', rule: headerValue, defaultText: 'the --user value', help: 'the REST_USER the /__admin endpoints require' }),
  adminPassword: valueFromFlags({ name: 'admin-password', valueName: '<text>', rule: headerValue, defaultText: 'the --password value', help: 'the REST_PASSWORD the /__admin endpoints require' }),
  adminPasswordFile: optional({ name: 'admin-password-file', valueName: '<file>', rule: anyText, help: 'read the admin password from the first line of this file instead' }),
  agents: optional({
    name: 'agents',
    valueName: '<n>',
    rule: agentCount,
    // Absent: DEFAULT_AGENTS, or with --scenario the scenario's fleet.agents.
    defaultText: String(DEFAULT_AGENTS),
    help: "number of simulated agents at start; with --scenario, replaces the scenario's fleet.agents (which holds when --agents is not given)"
  }),
  maxAddedAgents: optional({
    name: 'max-added-agents',
    valueName: '<n>',
    rule: addedAgentCount,
    // Absent, the fleet takes 5 % of the agents it starts with (a scenario's, with --scenario).
    defaultText: '5 % of the agents, at least 1000',
    help: 'agents addagent can add over a run, deleted ones included; more gets 409'
  }),
  seed: optional({
    name: 'seed',
    valueName: '<n>',
    rule: seedNumber,
    defaultText: String(DEFAULT_SEED),
    help: "seed of every random choice; same seed, same fleet; with --scenario, replaces the scenario's fleet.seed (which holds when --seed is not given)"
  }),
  scenario: optional({ name: 'scenario', valueName: '<file>', rule: anyText, help: 'scenario file (YAML) driving the fleet' }),
  speed: value({ name: 'speed', valueName: '<factor>', rule: speedFactor, default: 1, help: 'virtual seconds per real second (3600: an hour per second), at most 1,000,000' }),
  workers: valueFromContext({ name: 'workers', valueName: '<n>', rule: workerCount, defaultText: 'the number of CPUs', default: (context) => context.cpuCount(), help: 'worker threads stepping the fleet, 1 to 1024; more than the CPUs is warned about at start' }),
  dataDir: value({ name: 'data-dir', valueName: '<dir>', rule: nonEmpty, default: '.fleetsim', help: 'where the CA and server certificate are kept (tls/)' }),
  logLevel: value({ name: 'log-level', valueName: '<level>', rule: oneOf(LOG_LEVELS), default: 'info', help: `log level: ${LOG_LEVELS.join(', ')}` }),
  metricsAuth: off({ name: 'metrics-auth', help: 'require the REST credentials on /metrics (headers or HTTP Basic auth)' }),
  console: on({ name: 'console', help: 'serve the console at /console (admin credentials); --no-console turns it off' }),
  startTime: valueFromContext({ name: 'start-time', valueName: '<iso>', rule: runStartTime, defaultText: 'now', default: (context) => context.now(), help: 'virtual time at start, ISO 8601 with a time zone (2024-01-01T00:00:00Z)' }),
  paused: off({ name: 'paused', help: 'start with the virtual clock paused' }),
  joinDelay: value({
    name: 'join-delay',
    valueName: '<duration>',
    rule: wholeSecondsRange(MAX_JOIN_DELAY_SECONDS),
    default: DEFAULT_JOIN_DELAY,
    defaultText: `${DEFAULT_JOIN_DELAY.min}s..${DEFAULT_JOIN_DELAY.max}s`,
    help: 'virtual time an agent added with addagent takes to report in (OFFLINE until then); a range like 2s..9s is drawn per agent, 0 is at once'
  }),
  statusPoll: value({
    name: 'status-poll',
    valueName: '<duration>',
    rule: wholeSeconds(0),
    default: DEFAULT_STATUS_POLL_SECONDS,
    defaultText: `${DEFAULT_STATUS_POLL_SECONDS}s`,
    help: "how often the manager polls each agent for status, as the real one does every minute: agentinfo shows an agent's counters, load, memory and lastOnline as of its last poll or change of state; 0 shows them live"
  }),
  bodyLimit: value({ name: 'body-limit', valueName: '<bytes>', rule: integer(1, MAX_LIMIT), default: 1024 * 1024, help: 'largest request body; a larger one gets 413' }),
  maxListItems: value({ name: 'max-list-items', valueName: '<n>', rule: integer(1, MAX_LIMIT), default: 100_000, help: 'most items of one list query parameter; more get 400' }),
  // 10,000 agentUuids in one query (the multi-agent load the benchmarks use) take about 370 kB.
  maxQueryLength: value({ name: 'max-query-length', valueName: '<bytes>', rule: integer(1, MAX_QUERY_LENGTH), default: 1024 * 1024, help: 'longest query string; a longer one gets 414' }),
  requestTimeout: value({ name: 'request-timeout', valueName: '<ms>', rule: milliseconds(1, MAX_TIMEOUT_MS), default: 30_000, help: 'time a client has to send a whole request before the connection is closed' }),
  headersTimeout: value({ name: 'headers-timeout', valueName: '<ms>', rule: milliseconds(1, MAX_TIMEOUT_MS), default: 10_000, help: 'time a client has to send the request headers (at most --request-timeout)' }),
  keepAliveTimeout: value({ name: 'keep-alive-timeout', valueName: '<ms>', rule: milliseconds(1, MAX_TIMEOUT_MS), default: 5_000, help: 'an idle keep-alive connection is closed after this long' }),
  sendTimeout: value({ name: 'send-timeout', valueName: '<ms>', rule: milliseconds(1, MAX_TIMEOUT_MS), default: 60_000, help: 'a connection whose client reads none of its answer for this long is closed' }),
  unsentAnswersMaxBytes: value({
    name: 'unsent-answers-max-bytes',
    valueName: '<bytes>',
    rule: integer(MIN_UNSENT_ANSWER_BYTES, MAX_UNSENT_ANSWER_BYTES, 'bytes'),
    default: DEFAULT_UNSENT_ANSWER_BYTES,
    help: 'bytes of answers of 64 KiB or more waiting for their clients to read them the server may hold together; an answer to a GET that would take them past it gets 503 (one answer alone is always sent)'
  }),
  maxConnections: value({ name: 'max-connections', valueName: '<n>', rule: integer(1, 1_000_000), default: 1024, help: 'open connections served at once; past it, one idle a second or more between requests is closed to make room, or requests on further ones get 503' }),
  maxConnectionsPerClient: value({
    name: 'max-connections-per-client',
    valueName: '<n>',
    rule: integer(1, 1_000_000),
    default: 256,
    help: 'open connections one client address may hold, TLS handshakes included; further ones are closed at accept'
  }),
  shutdownGrace: value({
    name: 'shutdown-grace',
    valueName: '<ms>',
    rule: milliseconds(0, MAX_SHUTDOWN_GRACE_MS),
    default: 5_000,
    help: 'at SIGINT, SIGTERM or SIGHUP, time requests in flight get to finish before their connections are cut'
  }),
  strict: off({ name: 'strict', help: 'reject requests that break a protocol rule with 400 (lenient: answer and record)' }),
  latency: optional({
    name: 'latency',
    valueName: '<duration>[±<spread>]',
    rule: durationWithSpread(MAX_LATENCY_SECONDS),
    help: 'every REST call answers this much later, drawn uniformly within the spread (200ms±50ms; +- for ±); a fault rule (docs/admin.md)'
  }),
  errorRate: optional({
    name: 'error-rate',
    valueName: '<percent>',
    rule: percentage,
    help: 'this share of REST calls (5%) get an injected 500 error instead of their answer; a fault rule (docs/admin.md)'
  }),
  faultOperations: optional({
    name: 'fault-operations',
    valueName: '<op,...>',
    rule: listOf(Object.keys(OPERATIONS) as OperationName[], 'operations'),
    help: 'limit --latency and --error-rate to these operations (none: every operation)'
  }),
  journalSize: value({ name: 'journal-size', valueName: '<n>', rule: integer(0, 10_000_000), default: JOURNAL_DEFAULTS.size, help: 'requests kept in the journal of /__admin/requests and /__admin/report (0: none)' }),
  journalMaxBytes: value({
    name: 'journal-max-bytes',
    valueName: '<bytes>',
    rule: integer(MIN_JOURNAL_BYTES, MAX_LIMIT, 'bytes'),
    default: JOURNAL_DEFAULTS.maxBytes,
    help: 'bytes the journal entries may hold together; past it the oldest are dropped'
  }),
  keptAnswersMaxBytes: value({
    name: 'kept-answers-max-bytes',
    valueName: '<bytes>',
    rule: integer(0, MAX_LIMIT, 'bytes'),
    default: DEFAULT_KEPT_BYTES,
    help: 'bytes the finished agentinfo answers kept for sending again may hold together (0: keep none, build every answer)'
  }),
  journalBodyBytes: value({
    name: 'journal-body-bytes',
    valueName: '<bytes>',
    rule: integer(0, MAX_BODY_BYTES, 'bytes'),
    default: JOURNAL_DEFAULTS.bodyBytes,
    help: 'bytes of each request and answer body a journal entry keeps, cut on a character boundary (0: none)'
  }),
  stateFile: optional({
    name: 'state-file',
    valueName: '<file>',
    rule: nonEmpty,
    help: 'resume the whole simulation from this file if it exists; save it there periodically, on POST /__admin/snapshot and at exit; one server per file (<file>.lock)'
  }),
  snapshotInterval: value({
    name: 'snapshot-interval',
    valueName: '<s>',
    rule: integer(0, 86_400, 'seconds'),
    default: 300,
    help: 'wall seconds between automatic saves to --state-file (0: only on request and at exit); given without --state-file, refused'
  }),
  maxLabels: storedLimit('maxLabels', '<n>', 'custom labels the manager holds; creating more gets 409'),
  maxLabelsPerAgent: storedLimit('maxLabelsPerAgent', '<n>', 'custom labels one agent has; assigning more gets 409'),
  maxLabelValueBytes: storedLimit('maxLabelValueBytes', '<bytes>', 'longest custom label value (UTF-8); a longer one gets 400'),
  maxNameBytes: storedLimit('maxNameBytes', '<bytes>', 'longest name of a custom label, template, manager field or agent (UTF-8); a longer one gets 400'),
  maxTextBytes: storedLimit('maxTextBytes', '<bytes>', 'longest description or address of a template, manager field or agent (UTF-8); a longer one gets 400'),
  maxVerbatimBytes: storedLimit('maxVerbatimBytes', '<bytes>', 'longest verbatim text of a template or agent (UTF-8); a longer one gets 400'),
  maxTemplates: storedLimit('maxTemplates', '<n>', 'master and sub templates the manager holds; creating more gets 409'),
  maxFields: storedLimit('maxFields', '<n>', 'manager fields the manager holds; creating more gets 409')
})

type Table = typeof SERVE_FLAGS_BY_KEY

/** Every flag of `fleetsim serve`, in help order. */
export const SERVE_FLAGS: readonly ServeFlag[] = Object.freeze(Object.values(SERVE_FLAGS_BY_KEY))

/** Flags that give another flag's value from a file rather than a value of their own. */
const FILE_TWINS = ['passwordFile', 'adminPasswordFile'] as const
type ConfigKey = Exclude<keyof Table, (typeof FILE_TWINS)[number]>

/** What a flag's rule returns (true or false for a switch), or its default. */
type ValueOf<F> = (F extends ValueFlag<infer T> ? T : boolean) | (F extends { readonly default: Fixed<infer D> } ? D : never)

/**
 * The validated configuration of `fleetsim serve`, one field per flag (SERVE_FLAGS_BY_KEY), frozen.
 * Units are the flag's: `startTime` is epoch ms, the timeouts are ms, `snapshotInterval` is wall
 * seconds. The stored-data limits are StoredLimits (src/manager/limits.ts).
 */
export type ServeConfig = { readonly [K in ConfigKey]: ValueOf<Table[K]> } & {
  /**
   * The clock's flags given, flag or env twin (`--speed`, `--start-time`, `--paused`): a run
   * resumed from --state-file keeps its saved clock, and says these are ignored.
   */
  readonly clockFlagsGiven?: readonly string[]
  /** `--agents` and `--seed` given by their env twins, by those twins' names (`FLEETSIM_AGENTS`), for the messages of src/scenario/fleet-flags.ts */
  readonly fleetFlagsGivenAs?: { readonly agents?: string; readonly seed?: string }
}

/** The default of every flag; where it depends on the machine, the moment or another flag, the text help shows. */
export const SERVE_DEFAULTS = Object.freeze(
  Object.fromEntries(
    Object.entries(SERVE_FLAGS_BY_KEY)
      .filter(([key]) => !(FILE_TWINS as readonly string[]).includes(key))
      .map(([key, flag]) => [key, flag.default.kind === 'fixed' ? flag.default.value : flag.defaultText])
  ) as { readonly [K in ConfigKey]: Table[K]['default'] extends Fixed<infer D> ? D : string }
)

/** The result of reading serve's command line: `--help`, or a configuration. */
export type ServeArgs = { readonly help: true } | { readonly help: false; readonly config: ServeConfig }

/**
 * The repository's own `FLEETSIM_*` variables, read by its benches and tests, not by serve: a
 * shell that set one for them is not refused (bench/README.md, README.md).
 */
function isToolingEnv(name: string): boolean {
  return name.startsWith('FLEETSIM_BENCH_') || name === 'FLEETSIM_SOAK_ROLE' || name === 'FLEETSIM_CHROMIUM'
}

/**
 * Reads `fleetsim serve` flags (without the subcommand) and the environment. `--help` anywhere
 * asks for help and nothing else is checked; otherwise a frozen, validated ServeConfig or a
 * ConfigError.
 */
export function parseServeArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  context: ConfigContext = nodeConfigContext
): ServeArgs {
  const flags = parseFlags(argv, SERVE_FLAGS, { command: COMMAND, env, unknownEnv: { allowed: isToolingEnv } })
  if (flags.help) return { help: true }

  const values = Object.fromEntries(Object.entries(SERVE_FLAGS_BY_KEY).map(([key, flag]) => [key, flags.maybe(flag) ?? fallback(flag, context)])) as {
    -readonly [K in keyof Table]: ValueOf<Table[K]>
  }
  const { passwordFile: _passwordFile, adminPasswordFile: _adminPasswordFile, ...given } = values
  const F = SERVE_FLAGS_BY_KEY

  if (given.scenario !== undefined && !context.isFile(given.scenario)) {
    const refused = invalidValue(F.scenario, given.scenario, 'name an existing file', flags.origin(F.scenario))
    throw new ConfigError(refused.code, refused.message + libraryHint(given.scenario))
  }
  const restPassword = passwordFromFile(flags, context, F.password, F.passwordFile) ?? given.password
  const config: ServeConfig = {
    ...given,
    password: restPassword,
    // The admin endpoints take the REST credentials unless told otherwise.
    adminUser: flags.maybe(F.adminUser) ?? given.user,
    adminPassword: passwordFromFile(flags, context, F.adminPassword, F.adminPasswordFile) ?? flags.maybe(F.adminPassword) ?? restPassword,
    clockFlagsGiven: [F.speed, F.startTime, F.paused].filter((flag) => flags.origin(flag) !== undefined).map((flag) => `--${flag.name}`),
    fleetFlagsGivenAs: {
      ...(flags.origin(F.agents) === 'env' ? { agents: envName(F.agents.name) } : {}),
      ...(flags.origin(F.seed) === 'env' ? { seed: envName(F.seed.name) } : {})
    }
  }
  /** A flag as it was given: its name, or its env twin's. */
  const asGiven = (flag: ServeFlag) => (flags.origin(flag) === 'env' ? envName(flag.name) : `--${flag.name}`)
  if (config.faultOperations !== undefined && config.latency === undefined && config.errorRate === undefined) {
    const name = asGiven(F.faultOperations)
    throw new ConfigError('FLEETSIM_MISSING_VALUE', `${name} limits --latency and --error-rate, and neither is given; add one of them or leave ${name} out`)
  }
  if (flags.origin(F.snapshotInterval) !== undefined && config.stateFile === undefined) {
    // Nothing is saved without a file: the interval given would be read as nothing.
    const name = asGiven(F.snapshotInterval)
    throw new ConfigError('FLEETSIM_MISSING_VALUE', `${name} sets how often --state-file is saved, and no --state-file is given; add --state-file <file> or leave ${name} out`)
  }
  if (config.headersTimeout > config.requestTimeout) {
    // Node refuses a server whose header wait outlasts the whole-request wait.
    throw new ConfigError(
      'FLEETSIM_CONFLICTING_FLAGS',
      `--headers-timeout (${config.headersTimeout}) must not exceed --request-timeout (${config.requestTimeout}); lower the first or raise the second`
    )
  }
  return { help: false, config: Object.freeze(config) }
}

/**
 * Reads `fleetsim serve` flags (without the subcommand) and the environment into a frozen,
 * validated ServeConfig. Throws ConfigError, also for `--help` (a command line to run, not to
 * configure; `fleetsim serve` uses parseServeArgs, which answers it).
 */
export function parseServeConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  context: ConfigContext = nodeConfigContext
): ServeConfig {
  const parsed = parseServeArgs(argv, env, context)
  if (parsed.help) throw new ConfigError('FLEETSIM_UNEXPECTED_ARGUMENT', `--help asks for help, not a configuration; run ${COMMAND} --help to read it`)
  return parsed.config
}

function fallback(flag: ServeFlag, context: ConfigContext): unknown {
  switch (flag.default.kind) {
    case 'fixed':
      return flag.default.value
    case 'context':
      return flag.default.of(context)
    case 'flags':
      // Set by parseServeArgs from the flags it depends on.
      return undefined
  }
}

/**
 * A password flag and its file twin (--password/--password-file, --admin-password/
 * --admin-password-file): the one from the higher source (flag over env) wins; both at one
 * level is an error. The first line of the file when the file wins, undefined otherwise.
 */
function passwordFromFile(flags: ParsedFlags, context: ConfigContext, textFlag: ValueFlag<string>, fileFlag: ValueFlag<string>): string | undefined {
  const textFrom = flags.origin(textFlag)
  const fileFrom = flags.origin(fileFlag)
  const path = flags.maybe(fileFlag)
  if (path === undefined || fileFrom === undefined) return undefined
  if (textFrom === fileFrom) {
    const names = textFrom === 'flag' ? [`--${textFlag.name}`, `--${fileFlag.name}`] : [envName(textFlag.name), envName(fileFlag.name)]
    throw new ConfigError('FLEETSIM_CONFLICTING_FLAGS', `${names[0]} and ${names[1]} cannot be used together; give one of them`)
  }
  if (textFrom === 'flag') return undefined
  let text: string
  try {
    text = context.readFile(path)
  } catch (error) {
    throw invalidValue(fileFlag, path, `name a readable file${error instanceof UnreadableFileError ? ` (${error.message})` : ''}`, fileFrom)
  }
  // A byte order mark (an editor's, on Windows) is no part of the password.
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? ''
  if (firstLine === '') throw invalidValue(fileFlag, path, 'name a file whose first line is the password', fileFrom)
  try {
    return headerValue(firstLine)
  } catch (error) {
    if (!(error instanceof RuleError)) throw error
    throw invalidValue(fileFlag, path, `name a file whose first line, the password, does ${error.message}`, fileFrom)
  }
}
