/**
 * The machine's CPU between two readings of /proc/stat (bench/lib/machine-cpu.ts): idle ticks as
 * cores, from counters that only grow.
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { idleCoresBetween, machineTicks } from '../../bench/lib/machine-cpu.js'

describe('the machine CPU reading', () => {
  it('turns idle ticks between two readings into cores', () => {
    const before = { idle: 1000, total: 5000, cpus: 2 }
    // 400 ticks passed on 2 cores: 100 idle.
    expect(idleCoresBetween(before, { idle: 1100, total: 5400, cpus: 2 })).toBe(0.5)
    // Scaled by the machine's CPUs the counters cover, whatever this process may run on.
    expect(idleCoresBetween({ ...before, cpus: 4 }, { idle: 1100, total: 5400, cpus: 4 })).toBe(1)
    // No tick passed: nothing idle, rather than a division by zero.
    expect(idleCoresBetween(before, before)).toBe(0)
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
