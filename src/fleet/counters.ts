/**
 * Event counters, load and memory of an agent, as functions of time.
 *
 * Between two events an agent's conditions are constant, so its counters grow linearly and
 * can be computed for any instant without stepping second by second. They are written back
 * ("materialised") only when an event changes the conditions (advanceCounters, called
 * before every change). Every quantity is an integer, so materialising at different
 * instants gives the same totals to the bit: the digest does not depend on how a run was cut
 * into steps.
 */
import { ModuleStatus } from '../protocol/states.js'
import { Flag, Link, MAX_MODULES, type FleetViews } from './layout.js'
import { QUEUE_CAPACITY, type FleetProgram } from './program.js'
import { Stream, hash32 } from './random.js'

export interface Counters {
  received: number
  sent: number
  dropped: number
  queued: number
  moduleReceived: number[]
}

/** Events per second a module receives while running (0 for outputs). */
export function moduleRate(program: FleetProgram, v: FleetViews, i: number, k: number): number {
  const spec = program.moduleSets[v.moduleSetIdx[i]]?.modules[k]
  if (spec === undefined || spec.type !== 'INPUT') return 0
  const span = spec.rateMax - spec.rateMin + 1
  return spec.rateMin + (hash32(program.seed, i, k, Stream.MODULE_RATE) % span)
}

/**
 * Counters of agent i at time t, given the materialised values at countAt. Pure: writes
 * nothing. `out.moduleReceived` must have MAX_MODULES entries.
 */
export function countersAt(program: FleetProgram, v: FleetViews, i: number, t: number, out: Counters): Counters {
  out.received = v.received[i]
  out.sent = v.sent[i]
  out.dropped = v.dropped[i]
  out.queued = v.queued[i]
  const base = i * MAX_MODULES
  for (let k = 0; k < MAX_MODULES; k++) out.moduleReceived[k] = v.moduleReceived[base + k]
  const dt = t - v.countAt[i]
  if (dt <= 0 || (v.flags[i] & Flag.EXISTS) === 0 || (v.flags[i] & Flag.NOT_JOINED) !== 0) return out

  const modules = program.moduleSets[v.moduleSetIdx[i]]?.modules ?? []
  let inRate = 0
  let outputUp = false
  for (let k = 0; k < v.moduleCount[i]; k++) {
    if (v.moduleStatus[base + k] !== ModuleStatus.RUNNING) continue
    if (modules[k]?.type === 'OUTPUT') {
      outputUp = true
    } else {
      const rate = moduleRate(program, v, i, k)
      inRate += rate
      out.moduleReceived[k] += rate * dt
    }
  }
  const arriving = inRate * dt
  out.received += arriving
  // Output modules deliver unless the agent's network is down.
  if (outputUp && v.link[i] !== Link.DOWN) {
    // A backlog drains at a spare capacity of three times the input rate (at least 50/s).
    const drained = Math.min(out.queued, (3 * inRate + 50) * dt)
    out.queued -= drained
    out.sent += arriving + drained
  } else {
    const room = QUEUE_CAPACITY - out.queued
    if (arriving <= room) {
      out.queued += arriving
    } else {
      out.queued = QUEUE_CAPACITY
      out.dropped += arriving - room
    }
  }
  return out
}

export function newCounters(): Counters {
  return { received: 0, sent: 0, dropped: 0, queued: 0, moduleReceived: new Array(MAX_MODULES).fill(0) }
}

const scratch = newCounters()

/** Materialises agent i's counters at time t (call before changing its conditions). */
export function advanceCounters(program: FleetProgram, v: FleetViews, i: number, t: number): void {
  if (t <= v.countAt[i]) return
  const c = countersAt(program, v, i, t, scratch)
  v.received[i] = c.received
  v.sent[i] = c.sent
  v.dropped[i] = c.dropped
  v.queued[i] = c.queued
  const base = i * MAX_MODULES
  for (let k = 0; k < MAX_MODULES; k++) v.moduleReceived[base + k] = c.moduleReceived[k]
  v.countAt[i] = t
}

/** Smooth noise in [-1, 1]: hashed knots every `period` seconds, interpolated with a cosine. */
function smoothNoise(seed: number, i: number, stream: number, t: number, period: number): number {
  const x = t / period
  const k = Math.floor(x)
  const a = hash32(seed, i, k, stream) / 2147483648 - 1
  const b = hash32(seed, i, k + 1, stream) / 2147483648 - 1
  const w = (1 - Math.cos((x - k) * Math.PI)) / 2
  return a + (b - a) * w
}

/** One-minute load average: a per-agent base that wanders over minutes. */
export function loadAt(program: FleetProgram, i: number, t: number, running: boolean): number {
  const base = 0.05 + (hash32(program.seed, i, 1, Stream.IDENTITY) % 1000) / 500
  const wave = 1 + 0.6 * smoothNoise(program.seed, i, 101, t, 300)
  const value = running ? base * wave : 0.02 * wave
  return Math.round(value * 100) / 100
}

/** Resident memory of the agent process, in bytes: a base, noise, and the queued backlog. */
export function memoryAt(program: FleetProgram, i: number, t: number, queued: number): number {
  const baseMiB = 24 + (hash32(program.seed, i, 2, Stream.IDENTITY) % 120)
  const wave = 1 + 0.08 * smoothNoise(program.seed, i, 102, t, 600)
  return Math.round(baseMiB * wave * 1048576 + queued * 512)
}
