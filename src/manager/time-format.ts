/**
 * The manager's date form `YYYY-MM-DD HH:MM`: "local" time of the simulated manager, which
 * runs in UTC, taken from virtual epoch milliseconds.
 */
export function formatLocalMinute(epochMs: number): string {
  if (!Number.isFinite(epochMs)) return ''
  const iso = new Date(epochMs).toISOString() // 2024-05-01T12:34:56.789Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`
}
