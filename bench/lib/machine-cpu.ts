/**
 * The whole machine's CPU over a stretch of time, from the kernel's counters (/proc/stat, Linux):
 * how many cores were idle on average. Beside a server's
 * own CPU and its main thread's, it says whether a load was bound by that one thread while the
 * machine had cores to spare (bench/list-load.ts).
 */
import { readFileSync } from 'node:fs'

export interface MachineTicks {
  idle: number
  total: number
  /** the CPUs the counters cover (its cpuN lines): the machine's, whatever this process may run on */
  cpus: number
}

/** The machine's CPU ticks since boot, by kind; undefined where /proc/stat cannot be read. */
export function machineTicks(): MachineTicks | undefined {
  let lines: string[]
  try {
    lines = readFileSync('/proc/stat', 'latin1').split('\n')
  } catch {
    return undefined
  }
  const line = lines[0]
  const cpus = lines.filter((text) => /^cpu\d/.test(text)).length
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is in user's too)
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number)
  if (fields.length < 8 || fields.some((n) => !Number.isFinite(n)) || cpus === 0) return undefined
  const [, , , idle, iowait] = fields
  return { idle: idle + iowait, total: fields.reduce((sum, n) => sum + n, 0), cpus }
}

/**
 * Cores idle on average between two readings (0 up to the machine's cores). The counters cover
 * every CPU of the machine, so they are scaled by its count of them (`cpus`), not by the CPUs this
 * process may run on (availableParallelism follows its affinity).
 */
export function idleCoresBetween(before: MachineTicks, after: MachineTicks): number {
  const total = after.total - before.total
  return total <= 0 ? 0 : ((after.idle - before.idle) / total) * after.cpus
}
