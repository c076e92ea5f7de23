/**
 * The rules flag values follow, shared by every command so that the same kind of value is
 * read the same way everywhere: `--workers 1e0` is refused by `serve` and `run` alike, and a
 * time without a zone is refused everywhere rather than read in the machine's local zone
 * (which would make a run's digest depend on TZ).
 */
import { formatSeconds, parseDuration } from '../lib/units.js'
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

export const isoTime: Rule<number> = (text) => {
  const time = parseIsoTime(text)
  if (time === undefined) throw new RuleError('be an ISO 8601 date-time with a time zone, like 2026-01-01T00:00:00Z')
  return time
}

/** A duration of whole seconds, at least `min`: `90s`, `5m`, `24h`, `1h30m`. */
export function wholeSeconds(min = 1): Rule<number> {
  return (text) => {
    const seconds = parseDuration(text)
    if (seconds !== undefined && Number.isInteger(seconds) && seconds >= min) return seconds
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
