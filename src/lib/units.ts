/**
 * Durations and rates as scenario files write them.
 *
 * Durations: a number of seconds (`90`, `0.5`) or a string of one or more number+unit parts,
 * `500ms`, `30s`, `5m`, `2h`, `1d`, `1h30m`, the units largest first and each once, as Prometheus
 * reads them: `1h1h` or `30m1h` is refused rather than read as 2h or 1h30m.
 * Rates: `<count>/<unit>` with unit `s`, `m`, `h` or `d` (`3/h`, `0.5/m`), or `0`.
 * Both parse to seconds (durations) or per-second (rates).
 */

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }

/**
 * The longest span the fleet schedules from now (a `for`, a ramp, a stage's delay, a timeline's
 * time): 10 years. The fleet keeps its times as 32-bit whole seconds of its run (src/fleet/layout.ts),
 * about 68 years: a longer span wrapped round, and `for: 30000d` ended within a minute.
 */
export const MAX_SCHEDULED_SECONDS = 10 * 365 * 86_400
/** MAX_SCHEDULED_SECONDS as messages say it. */
export const MAX_SCHEDULED_TEXT = '3650d (10 years)'

const DURATION_PART = /(\d+(?:\.\d+)?|\.\d+)(ms|s|m|h|d)/y
const RATE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*\/\s*(s|m|h|d)\s*$/

/** Seconds, or undefined when the value is not a duration. Negative values are rejected. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined
  if (typeof value !== 'string') return undefined
  const text = value.trim()
  if (text === '') return undefined
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text)
  let total = 0
  let at = 0
  // Each part's unit is smaller than the one before: a unit repeated or out of order is a typo.
  let previousUnit = Infinity
  while (at < text.length) {
    DURATION_PART.lastIndex = at
    const m = DURATION_PART.exec(text)
    if (m === null) return undefined
    const unit = UNIT_SECONDS[m[2]] ?? NaN
    if (!(unit < previousUnit)) return undefined
    previousUnit = unit
    total += Number(m[1]) * unit
    at = DURATION_PART.lastIndex
  }
  return Number.isFinite(total) ? snapToWhole(total) : undefined
}

/**
 * `seconds`, or the whole number it is within binary rounding of: a decimal times its unit is
 * off by such an error (`1.1h` is 3960.0000000000005, `4.1m` 245.99999999999997), which made a
 * whole number of seconds look fractional (refused where the fleet takes whole seconds, with the
 * wrong whole value suggested). A real fraction, however small, stays what it is.
 */
function snapToWhole(seconds: number): number {
  const whole = Math.round(seconds)
  return Math.abs(seconds - whole) <= Math.max(1, Math.abs(seconds)) * 1e-12 ? whole : seconds
}

/** Events per second, or undefined when the value is not a rate. */
export function parseRate(value: unknown): number | undefined {
  if (value === 0 || value === '0') return 0
  if (typeof value !== 'string') return undefined
  const m = RATE.exec(value)
  if (m === null) return undefined
  return Number(m[1]) / (UNIT_SECONDS[m[2]] ?? NaN)
}

/** `90` → `1m30s`, for messages. */
export function formatSeconds(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`
  const parts: string[] = []
  let rest = seconds
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`)
      rest %= size
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${Number(rest.toFixed(3))}s`)
  return parts.join('')
}
