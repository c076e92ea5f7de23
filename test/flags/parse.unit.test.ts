import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/flags/config-error.js'
import { switchFlag, valueFlag } from '../../src/flags/flag.js'
import { parseFlags } from '../../src/flags/parse.js'
import { integer, positiveNumber, runStartTime, wholeSeconds } from '../../src/flags/rules.js'

const AGENTS = valueFlag({ name: 'agents', valueName: '<n>', defaultText: '1000', help: 'agents', rule: integer(1, 100), env: true })
const DURATION = valueFlag({ name: 'duration', valueName: '<time>', defaultText: '24h', help: 'time', rule: wholeSeconds(1) })
const HTTP = switchFlag({ name: 'http', help: 'plain HTTP', env: true })
const FLAGS = [AGENTS, DURATION, HTTP]
const parse = (argv: string[], env: Record<string, string> = {}) => parseFlags(argv, FLAGS, { command: 'fleetsim test', env })

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn()
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('no error thrown')
}

describe('parseFlags', () => {
  it('reads values with --flag value and --flag=value, switches on and off', () => {
    const flags = parse(['--agents', '5', '--duration=2h', '--no-http'])
    expect(flags.get(AGENTS, 1)).toBe(5)
    expect(flags.get(DURATION, 1)).toBe(7200)
    expect(flags.get(HTTP, true)).toBe(false)
  })

  it('reads a decimal duration that is whole seconds (--duration 1.1h was refused as a fraction)', () => {
    expect(parse(['--duration', '1.1h']).get(DURATION, 1)).toBe(3960)
    expect(parse(['--duration', '8.3m']).get(DURATION, 1)).toBe(498)
  })

  it('gives the fallback for a flag that is absent', () => {
    expect(parse([]).get(AGENTS, 42)).toBe(42)
    expect(parse([]).maybe(AGENTS)).toBeUndefined()
  })

  it('takes an env twin when the flag is absent, and the flag over it', () => {
    expect(parse([], { FLEETSIM_AGENTS: '7' }).get(AGENTS, 1)).toBe(7)
    expect(parse([], { FLEETSIM_AGENTS: '7' }).origin(AGENTS)).toBe('env')
    expect(parse(['--agents', '8'], { FLEETSIM_AGENTS: '7' }).get(AGENTS, 1)).toBe(8)
    expect(parse([], { FLEETSIM_HTTP: 'yes' }).get(HTTP, false)).toBe(true)
  })

  it('ignores the env twin of a flag declared without one', () => {
    expect(parse([], { FLEETSIM_DURATION: '1h' }).maybe(DURATION)).toBeUndefined()
  })

  it('refuses other FLEETSIM_ variables only when asked to (serve, whose every flag has its twin)', () => {
    const flags = [valueFlag({ name: 'agents', valueName: '<n>', defaultText: '1', help: '', rule: Number, env: true })]
    const env = { FLEETSIM_AGENT: '3', FLEETSIM_MINE: 'x' }
    expect(parseFlags([], flags, { command: 'fleetsim test', env }).maybe(flags[0])).toBeUndefined()
    const refused = errorOf(() => parseFlags([], flags, { command: 'fleetsim test', env, unknownEnv: { allowed: (name) => name === 'FLEETSIM_MINE' } }))
    expect(refused.code).toBe('FLEETSIM_UNKNOWN_FLAG')
    expect(refused.message).toMatch(/^unknown setting FLEETSIM_AGENT in the environment: did you mean FLEETSIM_AGENTS \(--agents\)\? /)
    expect(parseFlags([], flags, { command: 'fleetsim test', env: { FLEETSIM_MINE: 'x', FLEETSIM_AGENTS: '3' }, unknownEnv: { allowed: (name) => name === 'FLEETSIM_MINE' } }).maybe(flags[0])).toBe(3)
  })

  it('suggests the nearest flag for an unknown one', () => {
    const error = errorOf(() => parse(['--durations', '1h']))
    expect(error.code).toBe('FLEETSIM_UNKNOWN_FLAG')
    expect(error.message).toBe('unknown flag --durations; did you mean --duration? (see fleetsim test --help)')
    expect(errorOf(() => parse(['--agent', '3'])).message).toContain('did you mean --agents?')
  })

  it('names a flag written with one dash as it is, where it named the short option -a', () => {
    expect(errorOf(() => parse(['-agents', '5'])).message).toBe('unknown flag -agents; did you mean --agents? Flags take two dashes (see fleetsim test --help)')
    expect(errorOf(() => parse(['-http'])).code).toBe('FLEETSIM_UNKNOWN_FLAG')
    // The value of the flag before it, and what follows --, are not flags.
    const STRING = valueFlag({ name: 'text', valueName: '<t>', defaultText: 'none', help: 'text', rule: (t: string) => t })
    expect(parseFlags(['--text', '-agents'], [...FLAGS, STRING], { command: 'fleetsim test' }).maybe(STRING)).toBe('-agents')
  })

  it('says a negated switch takes no value, where it said the flag was unknown', () => {
    const error = errorOf(() => parse(['--no-http=false']))
    expect(error.code).toBe('FLEETSIM_UNEXPECTED_VALUE')
    expect(error.message).toBe('--no-http takes no value; use --http or --no-http')
  })

  it('says only where to look when no flag is near', () => {
    expect(errorOf(() => parse(['--colour'])).message).toBe('unknown flag --colour (see fleetsim test --help)')
  })

  it('names the flag, the rule, the value and the env twin it came from', () => {
    expect(errorOf(() => parse(['--agents', 'ten'])).message).toBe('--agents must be an integer from 1 to 100, got "ten"')
    expect(errorOf(() => parse([], { FLEETSIM_AGENTS: '0' })).message).toBe('--agents must be an integer from 1 to 100, got "0" (from FLEETSIM_AGENTS)')
    expect(errorOf(() => parse([], { FLEETSIM_HTTP: 'maybe' })).message).toBe('--http must be true or false (or 1/0, yes/no, on/off), got "maybe" (from FLEETSIM_HTTP)')
  })

  it('refuses a missing value, a value on a switch and --no- on a value flag', () => {
    expect(errorOf(() => parse(['--agents'])).code).toBe('FLEETSIM_MISSING_VALUE')
    expect(errorOf(() => parse(['--agents', '--http'])).message).toBe('--agents needs a value, e.g. --agents <n>')
    expect(errorOf(() => parse(['--http=yes'])).code).toBe('FLEETSIM_UNEXPECTED_VALUE')
    expect(errorOf(() => parse(['--no-agents'])).code).toBe('FLEETSIM_UNKNOWN_FLAG')
  })

  it('tells a command run by an npm script that its flags go after --', () => {
    // `npm start --agents 50`: npm takes --agents as its own config and passes only "50".
    expect(errorOf(() => parse(['50'], { npm_lifecycle_event: 'start' })).message).toBe(
      'unexpected argument "50"; fleetsim test takes only flags (see fleetsim test --help); through npm, flags go after "--": npm start -- --agents 50'
    )
    expect(errorOf(() => parse(['50'], { npm_lifecycle_event: 'fleetsim' })).message).toContain('npm run fleetsim -- --agents 50')
  })

  it('counts positional arguments against what the command takes', () => {
    expect(errorOf(() => parse(['extra'])).message).toBe('unexpected argument "extra"; fleetsim test takes only flags (see fleetsim test --help)')
    const one = { command: 'fleetsim run', positionals: { min: 1, max: 1, name: 'SCENARIO file' } }
    expect(parseFlags(['a.yaml'], FLAGS, one).positionals).toEqual(['a.yaml'])
    expect(errorOf(() => parseFlags([], FLAGS, one)).message).toBe('fleetsim run needs a SCENARIO file (see fleetsim run --help)')
  })

  it('reports --help and -h without checking anything else', () => {
    expect(parse(['--agents', 'ten', '--help']).help).toBe(true)
    expect(parse(['-h', 'extra']).help).toBe(true)
  })
})

describe('flag rules', () => {
  it('refuses exponents, signs and fractions where an integer is due', () => {
    for (const text of ['1e0', '+1', '1.0', ' 1', '0x10']) expect(() => integer(1, 10)(text)).toThrow('be an integer from 1 to 10')
  })

  it('reads a time only with a zone, the same instant in every TZ', () => {
    expect(runStartTime('2026-01-01T00:00:00Z')).toBe(Date.UTC(2026, 0, 1))
    expect(runStartTime('2026-01-01T01:00:00+01:00')).toBe(Date.UTC(2026, 0, 1))
    expect(runStartTime('2026-01-01')).toBe(Date.UTC(2026, 0, 1))
    expect(() => runStartTime('2026-01-01T00:00:00')).toThrow('with a time zone')
    expect(() => runStartTime('2026-02-30T00:00:00Z')).toThrow('with a time zone')
  })

  it('reads positive numbers, not zero or words', () => {
    expect(positiveNumber('0.5')).toBe(0.5)
    expect(positiveNumber('1e3')).toBe(1000)
    for (const text of ['0', '-1', 'fast', 'Infinity']) expect(() => positiveNumber(text)).toThrow('be a positive number')
  })
})
