/**
 * The whole machine's CPU over a stretch of time, from the kernel's counters (/proc/stat, Linux):
 * how many cores were idle on average, and how many the hypervisor took (steal). Beside a server's
 * own CPU and its main thread's, it says whether a load was bound by that one thread while the
 * machine had cores to spare (bench/list-load.ts).
 */
import { readFileSync } from 'node:fs'

export interface MachineTicks {
  idle: number
  steal: number
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
  const [, , , idle, iowait, , , steal] = fields
  return { idle: idle + iowait, steal, total: fields.reduce((sum, n) => sum + n, 0), cpus }
}

/**
 * Cores idle and taken by the hypervisor on average between two readings (0 up to the machine's
 * cores). The counters cover every CPU of the machine, so they are scaled by its count of them
 * (`cpus`), not by the CPUs this process may run on (availableParallelism follows its affinity).
 */
export function coresBetween(before: MachineTicks, after: MachineTicks): { idle: number; steal: number } {
  const cores = after.cpus
  const total = after.total - before.total
  if (total <= 0) return { idle: 0, steal: 0 }
  return { idle: ((after.idle - before.idle) / total) * cores, steal: ((after.steal - before.steal) / total) * cores }
}
