/**
 * The machine's CPU between two readings of /proc/stat (bench/lib/machine-cpu.ts): idle and
 * stolen ticks as cores, from counters that only grow.
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { coresBetween, machineTicks } from '../../bench/lib/machine-cpu.js'

describe('the machine CPU reading', () => {
  it('turns idle and stolen ticks between two readings into cores', () => {
    const before = { idle: 1000, steal: 10, total: 5000, cpus: 2 }
    // 400 ticks passed on 2 cores: 100 idle, 20 stolen.
    expect(coresBetween(before, { idle: 1100, steal: 30, total: 5400, cpus: 2 })).toEqual({ idle: 0.5, steal: 0.1 })
    // Scaled by the machine's CPUs the counters cover, whatever this process may run on.
    expect(coresBetween({ ...before, cpus: 4 }, { idle: 1100, steal: 30, total: 5400, cpus: 4 })).toEqual({ idle: 1, steal: 0.2 })
    // No tick passed: nothing idle, rather than a division by zero.
    expect(coresBetween(before, before)).toEqual({ idle: 0, steal: 0 })
  })

  it.runIf(existsSync('/proc/stat'))('reads counters that grow, idle among them', () => {
    const first = machineTicks()
    expect(first).toBeDefined()
    const second = machineTicks()
    expect(second!.total).toBeGreaterThanOrEqual(first!.total)
    expect(second!.idle).toBeGreaterThanOrEqual(first!.idle)
    expect(first!.idle).toBeLessThanOrEqual(first!.total)
    // One cpuN line a CPU: at least the CPUs this process may run on.
    expect(first!.cpus).toBeGreaterThanOrEqual(availableParallelism())
  })
})
