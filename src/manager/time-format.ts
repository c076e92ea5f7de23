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

function minuteForm(minute: number, epochMs: number): string {
  const days = Math.floor(minute / 1440)
  const inDay = minute - days * 1440
  // Civil date from days since 1970-01-01 (proleptic Gregorian).
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  if (year < MIN_YEAR || year > MAX_YEAR) {
    const iso = new Date(epochMs).toISOString()
    return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`
  }
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]} ${TWO_DIGITS[Math.floor(inDay / 60)]}:${TWO_DIGITS[inDay % 60]}`
}
