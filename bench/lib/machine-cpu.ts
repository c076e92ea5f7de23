/**
 * The whole machine's CPU over a stretch of time, from the kernel's counters (/proc/stat, Linux):
 * how many cores were idle on average, and how many the hypervisor took (steal). Beside a server's
 * own CPU and its main thread's, it says whether a load was bound by that one thread while the
 * machine had cores to spare (bench/list-load.ts).
 */
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

export interface MachineTicks {
  idle: number
  steal: number
  total: number
}

/** The machine's CPU ticks since boot, by kind; undefined where /proc/stat cannot be read. */
export function machineTicks(): MachineTicks | undefined {
  let line: string
  try {
    line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0]
  } catch {
    return undefined
  }
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is in user's too)
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number)
  if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return undefined
  const [, , , idle, iowait, , , steal] = fields
  return { idle: idle + iowait, steal, total: fields.reduce((sum, n) => sum + n, 0) }
}

/** Cores idle and taken by the hypervisor on average between two readings (0 up to the machine's cores). */
export function coresBetween(before: MachineTicks, after: MachineTicks, cores = availableParallelism()): { idle: number; steal: number } {
  const total = after.total - before.total
  if (total <= 0) return { idle: 0, steal: 0 }
  return { idle: ((after.idle - before.idle) / total) * cores, steal: ((after.steal - before.steal) / total) * cores }
}
