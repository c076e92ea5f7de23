/**
 * The rules flag values follow, shared by every command so that the same kind of value is
 * read the same way everywhere: `--workers 1e0` is refused by `serve` and `run` alike, and a
 * time without a zone is refused everywhere rather than read in the machine's local zone
 * (which would make a run's digest depend on TZ).
 */
import { formatSeconds, parseDuration } from '../lib/units.js'
import { suggest } from '../lib/suggest.js'
import { RuleError, type Rule } from './flag.js'

/** A decimal integer within [min, max]: no signs, fractions, exponents or spaces. */
export function integer(min: number, max: number, unit?: string): Rule<number> {
  const range = min === 1 && max === Number.MAX_SAFE_INTEGER ? 'be a positive integer' : `be an integer from ${min} to ${max}${unit === undefined ? '' : ` (${unit})`}`
  return (text) => {
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN
    if (Number.isSafeInteger(value) && value >= min && value <= max) return value
    throw new RuleError(range)
  }
}

/** A positive decimal number: `2`, `0.5`, `1e3`. */
export const positiveNumber: Rule<number> = (text) => {
  const value = /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text) ? Number(text) : Number.NaN
  if (Number.isFinite(value) && value > 0) return value
  throw new RuleError('be a positive number')
}

/** Any text but an empty or blank one. */
export const nonEmpty: Rule<string> = (text) => {
  if (text.trim() === '') throw new RuleError('not be empty')
  return text
}

/** One of the given words, exactly. */
export function oneOf<const T extends string>(words: readonly T[]): Rule<T> {
  return (text) => {
    if ((words as readonly string[]).includes(text)) return text as T
    throw new RuleError(`be one of ${words.join(', ')}`)
  }
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/

/**
 * Epoch ms of an ISO 8601 date (read as UTC midnight) or a date-time with `Z` or an offset;
 * undefined otherwise. A date-time without a zone is refused: read in the local zone it would
 * name another instant on every machine.
 */
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

/**
 * Start times are before this: a run has a thousand years of virtual time before its dates pass
 * year 9999, past which `toISOString` writes them with a sign and six digits (`+010000-01-01…`).
 */
const LATEST_START = Date.UTC(9000, 0, 1)
/**
 * Start times are at or after this, the Unix epoch: an agent's dates (started, lastOnline) reach
 * back before the start, and a start in year 0 showed `started` as `-000001-12 27T16`.
 */
const EARLIEST_START = Date.UTC(1970, 0, 1)

/** A run's start time (--start-time of serve and run): an ISO 8601 date-time with a zone, from EARLIEST_START to before LATEST_START. */
export const runStartTime: Rule<number> = (text) => {
  const time = parseIsoTime(text)
  if (time === undefined) throw new RuleError('be an ISO 8601 date-time with a time zone, like 2026-01-01T00:00:00Z')
  if (time < EARLIEST_START) {
    throw new RuleError('be at or after 1970-01-01T00:00:00Z: agents\' dates reach back before the start, and before year 0 they have no YYYY-MM-DD form')
  }
  if (time >= LATEST_START) {
    throw new RuleError('be before 9000-01-01T00:00:00Z: dates past year 9999 are written with a sign and six digits (+010000-…), which ISO 8601 and XML Schema clients do not read')
  }
  return time
}

/** A duration of whole seconds, at least `min` (and at most `max` when given, `why` saying why): `90s`, `5m`, `24h`, `1h30m`. */
export function wholeSeconds(min = 1, max?: { seconds: number; why: string }): Rule<number> {
  return (text) => {
    const seconds = parseDuration(text)
    if (seconds !== undefined && Number.isInteger(seconds) && seconds >= min) {
      if (max === undefined || seconds <= max.seconds) return seconds
      throw new RuleError(`be at most ${formatSeconds(max.seconds)}, ${max.why}`)
    }
    throw new RuleError(`be a duration of whole seconds, at least ${min}s (like 90s, 5m, 24h)`)
  }
}

/** Whole seconds from `min` to `max`, both included; `min` = `max` is one fixed duration. */
export interface SecondsRange {
  readonly min: number
  readonly max: number
}

/**
 * A duration of whole seconds (`0`, `5s`, `1m`) or a range of them (`2s..9s`), none longer
 * than `limit` seconds: a range is drawn from, a single duration is used as it is.
 */
export function wholeSecondsRange(limit: number): Rule<SecondsRange> {
  const shape = `be a duration of whole seconds (like 0, 5s, 1m) or a range of them (like 2s..9s), at most ${formatSeconds(limit)}`
  return (text) => {
    const parts = text.split('..')
    const min = parseDuration(parts[0])
    const max = parts.length === 1 ? min : parseDuration(parts[1])
    const whole = (seconds: number | undefined): seconds is number => seconds !== undefined && Number.isInteger(seconds) && seconds <= limit
    if (parts.length > 2 || !whole(min) || !whole(max)) throw new RuleError(shape)
    if (min > max) throw new RuleError(`give the shorter duration of a range first (${parts[1]}..${parts[0]})`)
    return Object.freeze({ min, max })
  }
}

/** An http:// or https:// URL. */
export const httpUrl: Rule<URL> = (text) => {
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new RuleError('be an http:// or https:// URL')
  return url
}

/** Worker threads stepping a fleet: `serve --workers` and `run --workers` alike. */
export const workerCount = integer(1, 1024)

/**
 * The warning, said once at start, for more --workers than the CPUs the machine offers
 * (os.availableParallelism()): allowed, as any number of workers gives the same run and a
 * command line may be written on a larger machine, but a mistake more often than not (1024
 * threads on 2 cores); undefined when they fit.
 */
export function workersWarning(workers: number, cpus: number): string | undefined {
  if (workers <= cpus) return undefined
  return `--workers ${workers} is more than the ${cpus} CPU${cpus === 1 ? '' : 's'} this machine offers (os.availableParallelism()): the threads beyond ${cpus} step the fleet no faster and each costs memory and start-up time; give --workers ${cpus} or leave it out`
}

/** A wait and how far either side of it a draw may land, in milliseconds. */
export interface SpreadMs {
  readonly ms: number
  readonly spreadMs: number
}

/** `200ms`, `1s`, `1m30s`: a duration with its unit (a bare number could mean seconds or milliseconds). */
const DURATION_WITH_UNIT = String.raw`\s*((?:(?:\d+(?:\.\d+)?|\.\d+)(?:ms|s|m|h|d))+)\s*`
const SPREAD = new RegExp(`^${DURATION_WITH_UNIT}(?:(?:±|\\+-)${DURATION_WITH_UNIT})?$`)

/** Seconds to milliseconds, rounded to the microsecond: `0.001 * 333` is not quite 0.333. */
const toMs = (seconds: number) => Math.round(seconds * 1e6) / 1e3

/**
 * A duration with an optional spread either side of it: `200ms`, `200ms±50ms` (or `200ms+-50ms`
 * where ± is hard to type). The spread may not exceed the duration, so no draw is below 0, and
 * duration plus spread is at most `maxSeconds`.
 */
export function durationWithSpread(maxSeconds: number): Rule<SpreadMs> {
  return (text) => {
    const match = SPREAD.exec(text)
    const seconds = match === null ? undefined : parseDuration(match[1])
    const spread = match?.[2] === undefined ? 0 : parseDuration(match[2])
    if (seconds === undefined || spread === undefined) throw new RuleError('be a duration with a unit, optionally ± a spread, like 200ms or 200ms±50ms')
    if (spread > seconds) throw new RuleError('have a spread no larger than the duration, so no wait is below 0')
    if (seconds + spread > maxSeconds) throw new RuleError(`be at most ${formatSeconds(maxSeconds)}, spread included`)
    return { ms: toMs(seconds), spreadMs: toMs(spread) }
  }
}

/** A percentage from 0% to 100%, as a fraction: `5%` → 0.05. The % is required: `0.05` could mean either. */
export const percentage: Rule<number> = (text) => {
  const match = /^\s*(-?(?:\d+(?:\.\d+)?|\.\d+))\s*%\s*$/.exec(text)
  if (match === null) throw new RuleError('be a percentage like 5% or 0.5%')
  const percent = Number(match[1])
  if (percent < 0 || percent > 100) throw new RuleError('be from 0% to 100%')
  // Divided, not multiplied by 0.01: 57 / 100 is the double nearest 0.57, 57 * 0.01 is not.
  return percent / 100
}

/** Words from `words`, separated by commas, each once: `agentinfo,appinfo`. */
export function listOf<const T extends string>(words: readonly T[], noun: string): Rule<readonly T[]> {
  return (text) => {
    const items = text.split(',').map((item) => item.trim())
    const unknown = items.find((item) => !(words as readonly string[]).includes(item))
    if (unknown !== undefined) {
      const guess = unknown === '' ? undefined : suggest(unknown, words)
      const what = unknown === '' ? 'an empty one is not' : `"${unknown}" is not one${guess === undefined ? '' : ` (did you mean ${guess}?)`}`
      throw new RuleError(`name ${noun} separated by commas; ${what}`)
    }
    return Object.freeze([...new Set(items)]) as readonly T[]
  }
}

/**
 * A REST_USER or REST_PASSWORD value: text a client can send as a header. HTTP drops the spaces
 * and tabs around a header value and allows no control characters in it, so a password with a
 * space at either end was accepted here and then refused to every client that sent it.
 */
export const headerValue: Rule<string> = (text) => {
  if (text === '') throw new RuleError('not be empty')
  if (/^[ \t]|[ \t]$/.test(text)) throw new RuleError('not start or end with a space or tab (HTTP drops them around a header value, so no client could send it)')
  // eslint-disable-next-line no-control-regex -- the control characters are what is refused
  if (/[\x00-\x1f\x7f]/.test(text)) throw new RuleError('not hold a control character (a header value cannot)')
  return text
}
