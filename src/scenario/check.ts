/**
 * The small toolkit every section checker is written with: paths, the problem sink, and readers
 * for plain JavaScript values (what YAML or JSON parse into). A reader returns the normalised
 * value, or undefined after reporting why the value is wrong; checkers carry on after a problem
 * so that one run reports every problem in the file.
 *
 * Why not TypeBox here: the scenario language has values of several shapes (a duration is a
 * number or a string with units, `next` is an action name, one alternative or a list), and its
 * messages must say what was expected in the language's own terms, suggest a key for a typo,
 * and point at the YAML line. TypeBox reports JSON Schema keyword failures (a failed `anyOf`
 * becomes several generic messages about its branches), and its decoded values would still need
 * a second pass for defaults, weights and cross-field rules. Hand-written readers give one clear
 * message per problem and produce the normalised form in the same pass.
 */
import type { ScenarioErrorCode } from './errors.js'
import { suggest } from '../lib/suggest.js'
import { MAX_SCHEDULED_SECONDS, MAX_SCHEDULED_TEXT, formatSeconds, parseDuration, parseRate } from '../lib/units.js'

export type Path = readonly (string | number)[]

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/

/** `['stages', 2, 'next', 0, 'action']` → `stages[2].next[0].action` */
export function formatPath(path: Path): string {
  let out = ''
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`
    else if (PLAIN_KEY.test(seg)) out += out === '' ? seg : `.${seg}`
    else out += `[${JSON.stringify(seg)}]`
  }
  return out
}

export interface Problem {
  readonly code: ScenarioErrorCode
  readonly path: Path
  readonly message: string
  /** point at the key of the path (unknown keys) rather than at its value */
  readonly atKey: boolean
}

export class Sink {
  readonly problems: Problem[] = []
  add(code: ScenarioErrorCode, path: Path, message: string, atKey = false): undefined {
    this.problems.push({ code, path, message, atKey })
    return undefined
  }
}

export type Read<T> = (value: unknown, path: Path, sink: Sink) => T | undefined

/** How a found value is shown in a message. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a mapping'
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 37)}...` : value
    // JSON escapes C0 controls but not DEL and C1 (U+0080 to U+009F), which a terminal obeys too.
    return JSON.stringify(shown).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  }
  // YAML reads 9007199254740993 as ...992: echoed, the value read would misquote the file (from
  // 1e21 on a number is written as such, 1e+300).
  if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value) && Math.abs(value) < 1e21) {
    return `a number past 2^53, which reads only approximately (as ${value})`
  }
  return String(value)
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A mapping whose keys were checked against the allowed ones; read its fields with req/opt. */
export class Fields {
  constructor(
    readonly value: Record<string, unknown>,
    readonly path: Path,
    readonly sink: Sink
  ) {}

  has(key: string): boolean {
    return this.value[key] !== undefined
  }

  at(key: string): Path {
    return [...this.path, key]
  }

  req<T>(key: string, read: Read<T>, what?: string): T | undefined {
    if (!this.has(key)) {
      const detail = what === undefined ? '' : ` (${what})`
      return this.sink.add('FSC_MISSING', this.path, `missing required key "${key}"${detail}`)
    }
    return read(this.value[key], this.at(key), this.sink)
  }

  /** the fallback when the key is absent; undefined when it is present but wrong */
  opt<T>(key: string, read: Read<T>, fallback: T): T | undefined {
    if (!this.has(key)) return fallback
    return read(this.value[key], this.at(key), this.sink)
  }

  /** reports the key as not allowed here, with the reason */
  forbid(key: string, reason: string): void {
    if (this.has(key)) this.sink.add('FSC_NOT_ALLOWED', this.at(key), `"${key}" is not allowed ${reason}`, true)
  }
}

/** Checks that `value` is a mapping with only `allowed` keys. */
export function fields(
  value: unknown,
  path: Path,
  sink: Sink,
  allowed: readonly string[],
  what = 'a mapping'
): Fields | undefined {
  if (!isMapping(value)) return sink.add('FSC_TYPE', path, `expected ${what}, got ${describe(value)}`)
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue
    const near = suggest(key, allowed)
    const hint = near === undefined ? `; expected one of ${allowed.join(', ')}` : `; did you mean "${near}"?`
    sink.add('FSC_UNKNOWN_KEY', [...path, key], `unknown key "${key}"${hint}`, true)
  }
  return new Fields(value, path, sink)
}

// ---------------------------------------------------------------------------------------------
// Readers

/**
 * Control characters but tab and line feed: a terminal obeys them (ESC clears the
 * screen or sets the window's title when `scenario list` or `run` prints a name; CR writes over
 * the line), and XML answers
 * cannot carry them (an OS or version name is shown in agentinfo).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what is refused
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

export const text: Read<string> = (value, path, sink) => {
  if (typeof value === 'string' && CONTROL.test(value)) {
    return sink.add('FSC_FORMAT', path, `expected text without control characters (a terminal obeys them, an XML answer cannot carry them), got ${describe(value)}`)
  }
  if (typeof value === 'string' && value.trim() !== '') return value
  if (typeof value === 'number' || typeof value === 'boolean') {
    return sink.add('FSC_TYPE', path, `expected a string, got ${describe(value)}; quote it: "${String(value)}"`)
  }
  return sink.add('FSC_TYPE', path, `expected a non-empty string, got ${describe(value)}`)
}

export function integer(min: number, max = Number.MAX_SAFE_INTEGER): Read<number> {
  return (value, path, sink) => {
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value
    // Unbounded but for what a number holds exactly: said only to a value past it (1e300 was
    // told it must be ">= 1").
    const unbounded = max === Number.MAX_SAFE_INTEGER && !(typeof value === 'number' && value > max)
    const range = unbounded ? `>= ${min}` : `from ${min} to ${max === Number.MAX_SAFE_INTEGER ? '2^53 - 1' : max}`
    return sink.add('FSC_NUMBER', path, `expected an integer ${range}, got ${describe(value)}`)
  }
}

/**
 * A count of agents, 1 or more; a 0 is told what to write instead (`zeroMeans`), as `fraction: 0`
 * is taken and `count: 0` was refused with no word on it.
 */
export function agentCount(zeroMeans: string): Read<number> {
  const atLeastOne = integer(1)
  return (value, path, sink) => (value === 0 ? sink.add('FSC_NUMBER', path, `expected an integer >= 1, got 0: ${zeroMeans}`) : atLeastOne(value, path, sink))
}

export function number(min: number, max = Infinity, exclusiveMin = false): Read<number> {
  return (value, path, sink) => {
    const ok = typeof value === 'number' && Number.isFinite(value) && (exclusiveMin ? value > min : value >= min)
    if (ok && value <= max) return value
    const low = exclusiveMin ? `> ${min}` : `>= ${min}`
    const range = max === Infinity ? low : `${low} and <= ${max}`
    return sink.add('FSC_NUMBER', path, `expected a number ${range}, got ${describe(value)}`)
  }
}

export const fraction: Read<number> = (value, path, sink) => {
  if (typeof value === 'number' && value >= 0 && value <= 1) return value
  return sink.add('FSC_FRACTION', path, `expected a fraction between 0 and 1, got ${describe(value)}`)
}

export const weight: Read<number> = (value, path, sink) => {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value
  return sink.add('FSC_WEIGHT', path, `expected a finite weight greater than 0, got ${describe(value)}`)
}

export const duration: Read<number> = (value, path, sink) => {
  const seconds = parseDuration(value)
  if (seconds !== undefined) return seconds
  return sink.add('FSC_DURATION', path, `expected a duration like "30s", "5m" or "1h30m" (units largest first, each once), got ${describe(value)}`)
}

/** a duration greater than zero */
export const positiveDuration: Read<number> = (value, path, sink) => {
  const seconds = duration(value, path, sink)
  if (seconds === undefined || seconds > 0) return seconds
  return sink.add('FSC_DURATION', path, `expected a duration greater than 0, got ${describe(value)}`)
}

/**
 * A duration of whole seconds: a virtual time the fleet schedules (a timeline time, a `for`, a
 * ramp, a stage delay). The fleet moves in steps of one virtual second, so a fraction would be
 * rounded away without a word: `every: 1ms` fired a thousand times in each second.
 */
export const wholeDuration: Read<number> = (value, path, sink) => {
  const seconds = duration(value, path, sink)
  if (seconds !== undefined && seconds > MAX_SCHEDULED_SECONDS) {
    return sink.add('FSC_DURATION', path, `expected at most ${MAX_SCHEDULED_TEXT}, the longest span the fleet schedules, got ${describe(value)}`)
  }
  if (seconds === undefined || Number.isInteger(seconds)) return seconds
  const whole = formatSeconds(Math.max(1, Math.ceil(seconds)))
  return sink.add('FSC_DURATION', path, `expected whole seconds (the fleet moves in steps of one virtual second), got ${describe(value)}; write "${whole}" or another whole number of seconds`)
}

/** whole seconds, greater than zero */
export const positiveWholeDuration: Read<number> = (value, path, sink) => {
  const seconds = wholeDuration(value, path, sink)
  if (seconds === undefined || seconds > 0) return seconds
  return sink.add('FSC_DURATION', path, `expected a duration greater than 0, got ${describe(value)}`)
}

export const rate: Read<number> = (value, path, sink) => {
  const perSecond = parseRate(value)
  if (perSecond !== undefined) return perSecond
  return sink.add('FSC_RATE', path, `expected a rate like "3/h" or "0.5/m", got ${describe(value)}`)
}

export function oneOf<T extends string>(allowed: readonly T[], what: string): Read<T> {
  return (value, path, sink) => {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T
    const near = typeof value === 'string' ? suggest(value, allowed) : undefined
    const hint = near === undefined ? '' : `; did you mean "${near}"?`
    return sink.add('FSC_ENUM', path, `expected ${what} (${allowed.join(', ')}), got ${describe(value)}${hint}`)
  }
}

/** One value or a list of them; always a non-empty list. */
export function oneOrMany<T>(read: Read<T>): Read<T[]> {
  return (value, path, sink) => {
    if (!Array.isArray(value)) {
      const one = read(value, path, sink)
      return one === undefined ? undefined : [one]
    }
    if (value.length === 0) return sink.add('FSC_TYPE', path, 'expected a value or a non-empty list, got an empty list')
    return listOf(read)(value, path, sink)
  }
}

/** A list, each item read; undefined if any item is wrong (all items are still checked). */
export function listOf<T>(read: Read<T>): Read<T[]> {
  return (value, path, sink) => {
    if (!Array.isArray(value)) return sink.add('FSC_TYPE', path, `expected a list, got ${describe(value)}`)
    const out: T[] = []
    let ok = true
    value.forEach((item, i) => {
      const got = read(item, [...path, i], sink)
      if (got === undefined) ok = false
      else out.push(got)
    })
    return ok ? out : undefined
  }
}
