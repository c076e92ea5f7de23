/**
 * The manager's date form `YYYY-MM-DD HH:MM`: "local" time of the simulated manager, which
 * runs in UTC, taken from virtual epoch milliseconds.
 *
 * Written with integer arithmetic (the civil-from-days algorithm of H. Hinnant's date
 * library) rather than through a Date and toISOString: a list answer formats two dates per
 * agent, every agent a different start. The last minutes formatted are kept as well, as an
 * answer formats the same minute again and again (every online agent's lastOnline is the
 * fleet's current second).
 */
const CACHED_MINUTES = 8
const minutes: number[] = []
const forms: string[] = []
let nextSlot = 0

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'))
/** Years ISO 8601 writes with four digits; others are left to Date's own form. */
const MIN_YEAR = 0
const MAX_YEAR = 9999

export function formatLocalMinute(epochMs: number): string {
  if (!Number.isFinite(epochMs)) return ''
  const minute = Math.floor(epochMs / 60_000)
  for (let k = 0; k < minutes.length; k++) if (minutes[k] === minute) return forms[k]
  const form = minuteForm(minute, epochMs)
  minutes[nextSlot] = minute
  forms[nextSlot] = form
  nextSlot = (nextSlot + 1) % CACHED_MINUTES
  return form
}

/** The fields of the minute civilMinute read last: year, month, day, hour, minute. */
const civil = new Int32Array(5)
const YEAR = 0
const MONTH = 1
const DAY = 2
const HOUR = 3
const MINUTE = 4

/** Reads minute `minute` since 1970 into `civil`; false if its year is outside MIN_YEAR to MAX_YEAR. */
function civilMinute(minute: number): boolean {
  const days = Math.floor(minute / 1440)
  const inDay = minute - days * 1440
  // Civil date from days since 1970-01-01 (proleptic Gregorian).
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const month = mp < 10 ? mp + 3 : mp - 9
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  if (!(year >= MIN_YEAR && year <= MAX_YEAR)) return false
  civil[YEAR] = year
  civil[MONTH] = month
  civil[DAY] = doy - Math.floor((153 * mp + 2) / 5) + 1
  civil[HOUR] = Math.floor(inDay / 60)
  civil[MINUTE] = inDay % 60
  return true
}

function minuteForm(minute: number, epochMs: number): string {
  if (!civilMinute(minute)) {
    // ISO 8601's expanded form (`+275760-09-13T00:00:00.000Z`): the date is what comes before the T.
    const iso = new Date(epochMs).toISOString()
    const t = iso.indexOf('T')
    return `${iso.slice(0, t)} ${iso.slice(t + 1, t + 6)}`
  }
  const year = civil[YEAR]
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[civil[MONTH]]}-${TWO_DIGITS[civil[DAY]]} ${TWO_DIGITS[civil[HOUR]]}:${TWO_DIGITS[civil[MINUTE]]}`
}

/** Bytes writeLocalMinute writes: the form of a year from 0 to 9999. */
export const LOCAL_MINUTE_BYTES = 16

/**
 * formatLocalMinute's form written as ASCII into `into` at `at` (room: LOCAL_MINUTE_BYTES), no
 * string made; returns where it ended, or -1 (nothing written) for a time whose year is outside 0
 * to 9999, or not finite: its form is formatLocalMinute's to write. For the items of long lists
 * (src/http/item-bytes.ts): two dates an item, the agent's start a minute of its own.
 */
export function writeLocalMinute(into: Uint8Array, at: number, epochMs: number): number {
  if (!Number.isFinite(epochMs) || !civilMinute(Math.floor(epochMs / 60_000))) return -1
  const year = civil[YEAR]
  at = pairAt(into, at, Math.floor(year / 100))
  at = pairAt(into, at, year % 100)
  into[at++] = 45 // -
  at = pairAt(into, at, civil[MONTH])
  into[at++] = 45
  at = pairAt(into, at, civil[DAY])
  into[at++] = 32 // space
  at = pairAt(into, at, civil[HOUR])
  into[at++] = 58 // :
  return pairAt(into, at, civil[MINUTE])
}

/** Two ASCII digits of `n` (0 to 99). */
function pairAt(into: Uint8Array, at: number, n: number): number {
  const tens = Math.floor(n / 10)
  into[at] = 48 + tens
  into[at + 1] = 48 + n - tens * 10
  return at + 2
}
