/**
 * The manager's date form `YYYY-MM-DD HH:MM`: "local" time of the simulated manager, which
 * runs in UTC, taken from virtual epoch milliseconds.
 *
 * The form changes once a minute, and an agentinfo answer formats the same minutes again and
 * again (every online agent's lastOnline is the fleet's current second): the last few minutes
 * formatted are kept, keyed by the minute.
 */
const CACHED_MINUTES = 8
const minutes: number[] = []
const forms: string[] = []
let nextSlot = 0

export function formatLocalMinute(epochMs: number): string {
  if (!Number.isFinite(epochMs)) return ''
  const minute = Math.floor(epochMs / 60_000)
  for (let k = 0; k < minutes.length; k++) if (minutes[k] === minute) return forms[k]
  const iso = new Date(epochMs).toISOString() // 2024-05-01T12:34:56.789Z
  const form = `${iso.slice(0, 10)} ${iso.slice(11, 16)}`
  minutes[nextSlot] = minute
  forms[nextSlot] = form
  nextSlot = (nextSlot + 1) % CACHED_MINUTES
  return form
}
