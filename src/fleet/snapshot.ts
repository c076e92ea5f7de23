/**
 * The whole fleet as bytes: a snapshot to continue the run elsewhere, putting one back, and
 * the digest, a hash over the same bytes that says whether two fleets are equal bit for bit.
 * Each reads every field of agents [0, used) and the sparse data, so the engine takes them in
 * an exclusive turn, between step rounds, where they are consistent.
 */
import { createHash } from 'node:crypto'
import type { FieldName } from './layout.js'
import { VirtualClock } from './clock.js'
import type { FleetCore } from './fleet-core.js'
import type { ScenarioRuntime } from './scenario-runtime.js'
import type { EngineSnapshot } from './fleet-types.js'

/**
 * Everything needed to continue this run elsewhere: the agents' bytes, the sparse data, the
 * clock and the scenario's progress.
 */
export function takeSnapshot(core: FleetCore, scenario: ScenarioRuntime | undefined): EngineSnapshot {
  const buffers = {} as Record<FieldName, Uint8Array>
  for (const [name, buffer] of Object.entries(core.buffers) as Array<[FieldName, SharedArrayBuffer]>) {
    const perAgent = buffer.byteLength / core.capacity
    // A copy: the live buffer keeps changing after the snapshot is taken.
    buffers[name] = new Uint8Array(buffer, 0, perAgent * core.used).slice()
  }
  return {
    seed: core.seed,
    startTime: core.options.startTime,
    initialAgents: core.initialAgents,
    used: core.used,
    steppedTo: core.steppedTo,
    clockMs: core.clock.elapsedMs(),
    lockout: core.lockout,
    lockoutEndsAt: core.lockoutEndsAt,
    speed: core.clock.speed,
    paused: core.clock.paused,
    scenario: scenario?.compiled.scenario ?? null,
    ...core.overrides.entries(),
    stats: structuredClone(core.stats),
    buffers
  }
}

/**
 * Puts a saved fleet back in place of a freshly begun one (FleetCore.begin) whose capacity
 * holds it, with the same scenario, compiled again.
 */
export function resume(core: FleetCore, scenario: ScenarioRuntime | undefined, saved: EngineSnapshot): void {
  if (saved.used > core.capacity) throw new RangeError(`the saved fleet has ${saved.used} agent slots, more than the ${core.capacity} allocated`)
  for (const [name, bytes] of Object.entries(saved.buffers) as Array<[FieldName, Uint8Array]>) {
    if (!(name in core.buffers)) throw new RangeError(`the saved fleet has an unknown field "${name}"`)
    new Uint8Array(core.buffers[name]).set(bytes)
  }
  core.used = saved.used
  core.steppedTo = saved.steppedTo
  core.lockout = saved.lockout
  core.lockoutEndsAt = saved.lockoutEndsAt
  core.clock = new VirtualClock(core.options.startTime, { speed: core.clock.speed, paused: core.clock.paused })
  core.clock.advance(resumedClockMs(saved))
  for (const [i, name] of saved.names) core.overrides.setName(i, name)
  for (const [i, uuid] of saved.uuids) core.overrides.setUuid(i, uuid)
  for (const [i, config] of saved.configs) core.overrides.setConfig(i, config)
  // The totals are the saved run's: metrics count them as started again (FleetStats.restarts).
  Object.assign(core.stats, saved.stats, { restarts: core.stats.restarts + 1 })
  if (scenario !== undefined) {
    // Occurrences up to the saved second have fired; the cursor skips them.
    scenario.cursor.due(saved.steppedTo)
  }
  core.census.recount(core)
}

/**
 * Where the clock resumes: where it was saved, within the second the fleet stood at. Paused
 * mid-second (by a pause at a wall moment), the clock stood up to a second past steppedTo, and a
 * resume at steppedTo put it back by that much. A clock further ahead (a fleet behind a running
 * clock), or a file saved before clockMs, resumes in steppedTo's second, the fleet's own time.
 */
function resumedClockMs(saved: EngineSnapshot): number {
  const second = saved.steppedTo * 1000
  const at = saved.clockMs
  return at !== undefined && Number.isFinite(at) && at > second ? Math.min(at, second + 999) : second
}

/** A hash of the whole fleet: equal digests mean equal fleets, bit for bit. */
export function fleetDigest(core: FleetCore): string {
  const hash = createHash('sha256')
  hash.update(JSON.stringify({ second: core.steppedTo, used: core.used, lockout: core.lockout }))
  for (const [name, buffer] of Object.entries(core.buffers)) {
    // Sequence numbers count writes, which depends on how the run was cut into rounds.
    if (name === 'seq') continue
    const perAgent = buffer.byteLength / core.capacity
    hash.update(new Uint8Array(buffer, 0, perAgent * core.used))
  }
  const { names, uuids, configs } = core.overrides.entries()
  hash.update(JSON.stringify([names, uuids, configs]))
  return hash.digest('hex')
}
