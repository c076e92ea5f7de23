/**
 * Reads a command line against a table of flags (src/flags/flag.ts). Precedence: the flag,
 * then its env twin (flags declared with `env: true`), then the default the caller supplies.
 * Every error is a ConfigError that names the flag and says what to do:
 *
 *   unknown flag --durations; did you mean --duration? (see fleetsim run --help)
 *   --duration must be a duration of whole seconds, at least 1s (like 90s, 5m, 24h), got "soon"
 */
import { parseArgs } from 'node:util'
import { suggest } from '../lib/suggest.js'
import { ConfigError } from './config-error.js'
import { RuleError, envName, type Flag, type FlagValue } from './flag.js'

export interface ParseOptions {
  /** the command as users type it, for messages: `fleetsim run` */
  readonly command: string
  /** the environment to read env twins from; default none */
  readonly env?: Readonly<Record<string, string | undefined>>
  /**
   * Given: any other `FLEETSIM_*` variable in `env` is refused as an unknown flag is, unless
   * `allowed` says it is not a flag's (a tool's own). For a command whose every flag has its twin
   * (serve): a command with flags that have none would refuse their names.
   */
  readonly unknownEnv?: { readonly allowed: (name: string) => boolean }
  /** how many positional arguments the command takes (default none), and what they are called */
  readonly positionals?: { readonly min: number; readonly max: number; readonly name: string }
}

/** Where a flag's value came from. */
export type Origin = 'flag' | 'env'

export interface ParsedFlags {
  /** `--help` or `-h` was given: the caller prints its usage and ignores the rest */
  readonly help: boolean
  readonly positionals: readonly string[]
  /** the flag's value, or `fallback` when neither the flag nor its env twin was given */
  get<F extends Flag>(flag: F, fallback: FlagValue<F>): FlagValue<F>
  /** the flag's value, or undefined when neither the flag nor its env twin was given */
  maybe<F extends Flag>(flag: F): FlagValue<F> | undefined
  /** whether the value came from the command line or the environment; undefined when absent */
  origin(flag: Flag): Origin | undefined
}

interface Given {
  text: string | boolean
  from: Origin
}

export function parseFlags(argv: readonly string[], flags: readonly Flag[], options: ParseOptions): ParsedFlags {
  const byName = new Map(flags.map((flag) => [flag.name, flag]))
  const seeHelp = `(see ${options.command} --help)`
  refuseSingleDashNames(argv, byName, seeHelp)
  const { tokens } = parseArgs({
    args: [...argv],
    options: { help: { type: 'boolean', short: 'h' }, ...Object.fromEntries(flags.map((flag) => [flag.name, { type: flag.kind === 'switch' ? 'boolean' : 'string' }])) },
    strict: false,
    allowPositionals: true,
    allowNegative: true,
    tokens: true
  })

  const given = new Map<string, Given>()
  const positionals: string[] = []
  let help = false
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value)
      continue
    }
    if (token.kind !== 'option') continue
    if (token.name === 'help' && !byName.has('help')) {
      help = true
      continue
    }
    const flag = byName.get(token.name)
    const negated = token.rawName.startsWith('--no-')
    // `--no-http=false`: parseArgs names the whole `no-http`; the switch is there, the value is the mistake.
    const negatedSwitch = flag === undefined && negated ? byName.get(token.rawName.slice('--no-'.length)) : undefined
    if (negatedSwitch?.kind === 'switch' && token.inlineValue === true) {
      throw new ConfigError('FLEETSIM_UNEXPECTED_VALUE', `${token.rawName} takes no value; use --${negatedSwitch.name} or --no-${negatedSwitch.name}`)
    }
    if (flag === undefined || (negated && flag.kind !== 'switch')) {
      const guess = suggest(token.rawName.replace(/^-+/, ''), [...byName.keys()])
      // `fleetsim serve --version`: the version is the program's, asked before any command.
      const hint = token.name === 'version' ? '; the version is `fleetsim --version`' : guess === undefined ? '' : `; did you mean --${guess}?`
      throw new ConfigError('FLEETSIM_UNKNOWN_FLAG', `unknown flag ${token.rawName}${hint} ${seeHelp}`)
    }
    if (flag.kind === 'switch') {
      if (token.inlineValue === true) {
        throw new ConfigError('FLEETSIM_UNEXPECTED_VALUE', `${token.rawName} takes no value; use --${flag.name} or --no-${flag.name}`)
      }
      given.set(flag.name, { text: !negated, from: 'flag' })
      continue
    }
    // strict: false lets `--port --http` take "--http" as the port; that is a missing value.
    if (token.value === undefined || (token.inlineValue !== true && token.value.startsWith('--'))) {
      throw new ConfigError('FLEETSIM_MISSING_VALUE', `--${flag.name} needs a value, e.g. --${flag.name} ${flag.valueName}`)
    }
    given.set(flag.name, { text: token.value, from: 'flag' })
  }
  if (help) return { help, positionals, get: (_flag, fallback) => fallback, maybe: () => undefined, origin: () => undefined }

  const expected = options.positionals ?? { min: 0, max: 0, name: 'argument' }
  if (positionals.length > expected.max) {
    const extra = positionals[expected.max]
    const what = expected.max === 0 ? `${options.command} takes only flags` : `${options.command} takes at most ${expected.max} ${expected.name}`
    throw new ConfigError('FLEETSIM_UNEXPECTED_ARGUMENT', `unexpected argument "${extra}"; ${what} ${seeHelp}${underNpm(options.env)}`)
  }
  if (positionals.length < expected.min) {
    throw new ConfigError('FLEETSIM_UNEXPECTED_ARGUMENT', `${options.command} needs ${expected.min === 1 ? 'a' : expected.min} ${expected.name} ${seeHelp}`)
  }

  for (const flag of flags) {
    if (given.has(flag.name) || flag.env !== true) continue
    const text = options.env?.[envName(flag.name)]
    if (text !== undefined && text !== '') given.set(flag.name, { text, from: 'env' })
  }
  if (options.env !== undefined && options.unknownEnv !== undefined) refuseUnknownEnv(options.env, flags, options.unknownEnv.allowed, seeHelp)

  const values = new Map<string, unknown>()
  for (const [name, { text, from }] of given) {
    const flag = byName.get(name) as Flag
    values.set(name, convert(flag, text, from))
  }
  const maybe = <F extends Flag>(flag: F) => values.get(flag.name) as FlagValue<F> | undefined
  return {
    help,
    positionals,
    maybe,
    get: (flag, fallback) => (values.has(flag.name) ? (values.get(flag.name) as FlagValue<typeof flag>) : fallback),
    origin: (flag) => given.get(flag.name)?.from
  }
}

/**
 * A flag's name after one dash (`-agents 5`): parseArgs reads it as the short options -a, -g, ...
 * and the message named `-a`. Said as the flag it is, with the two dashes it takes. An argument
 * that is the value of the flag before it (`--password -seed`) is left alone.
 */
function refuseSingleDashNames(argv: readonly string[], byName: ReadonlyMap<string, Flag>, seeHelp: string): void {
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k]
    if (arg === '--') return
    const previous = k === 0 ? undefined : argv[k - 1]
    const takesIt = previous !== undefined && previous.startsWith('--') && !previous.includes('=') && byName.get(previous.slice(2))?.kind === 'value'
    const name = /^-([a-z][a-z-]+)(?:=.*)?$/.exec(arg)?.[1]
    if (takesIt || name === undefined) continue
    if (byName.has(name) || name === 'help') throw new ConfigError('FLEETSIM_UNKNOWN_FLAG', `unknown flag -${name}; did you mean --${name}? Flags take two dashes ${seeHelp}`)
  }
}

/**
 * A `FLEETSIM_*` variable that is no flag's env twin: a misspelled one (`FLEETSIM_AGENT=50`) was
 * read as nothing, and the server started with the default, as an unknown flag would have if it
 * were not refused.
 */
function refuseUnknownEnv(env: Readonly<Record<string, string | undefined>>, flags: readonly Flag[], allowed: (name: string) => boolean, seeHelp: string): void {
  const twins = new Map(flags.filter((flag) => flag.env === true).map((flag) => [envName(flag.name), flag.name]))
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith(ENV_PREFIX) || twins.has(name) || allowed(name) || env[name] === undefined) continue
    const guess = suggest(name.slice(ENV_PREFIX.length).toLowerCase().replace(/_/g, '-'), [...twins.values()])
    const hint = guess === undefined ? '' : `did you mean ${envName(guess)} (--${guess})? `
    throw new ConfigError(
      'FLEETSIM_UNKNOWN_FLAG',
      `unknown setting ${name} in the environment: ${hint}each flag's variable is FLEETSIM_ and its name in capitals (FLEETSIM_APP_PATH for --app-path) ${seeHelp}; or unset ${name}`
    )
  }
}

const ENV_PREFIX = 'FLEETSIM_'

/** `--flag must <rule>, got "<text>" (from FLEETSIM_FLAG)`: the message of every rule broken. */
export function invalidValue(flag: Flag, text: string, rule: string, from: Origin = 'flag'): ConfigError {
  const origin = from === 'env' ? ` (from ${envName(flag.name)})` : ''
  return new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag.name} must ${rule}, got "${text}"${origin}`)
}

/**
 * A hint when an npm script runs the command: `npm start --agents 50` hands `--agents` to npm
 * (which warns "Unknown cli config" and drops it) and only `50` to the script.
 */
function underNpm(env: ParseOptions['env']): string {
  const script = env?.npm_lifecycle_event
  if (script === undefined || script === '') return ''
  const run = script === 'start' || script === 'test' ? `npm ${script}` : `npm run ${script}`
  return `; through npm, flags go after "--": ${run} -- --agents 50`
}

function convert(flag: Flag, text: string | boolean, from: Origin): unknown {
  if (flag.kind === 'switch') {
    if (typeof text === 'boolean') return text
    const word = text.toLowerCase()
    if (['true', '1', 'yes', 'on'].includes(word)) return true
    if (['false', '0', 'no', 'off'].includes(word)) return false
    throw invalidValue(flag, text, 'be true or false (or 1/0, yes/no, on/off)', from)
  }
  try {
    return flag.rule(String(text))
  } catch (error) {
    if (error instanceof RuleError) throw invalidValue(flag, String(text), error.rule, from)
    throw error
  }
}
