/**
 * The fleet's census: agents by state, how many exist, and the summed input rate of every
 * running module. Kept from the tallies that step tasks and mutations return, so reading the
 * counts never scans the fleet; a full pass (recount) is only needed at build, after a resume
 * and after a worker died (the tally of the work it did before dying is lost).
 */
import { AGENT_STATES, AgentState, MODES, MODULE_STATUSES, ModuleStatus, type AgentStateName } from '../protocol/states.js'
import { Flag, MAX_MODULES, type FleetViews } from './layout.js'
import type { FleetProgram } from './program.js'
import { moduleRate } from './counters.js'
import type { StepTally } from './lifecycle.js'
import type { FleetCounts } from './fleet-api.js'
import type { FleetComposition, FleetStats } from './fleet-types.js'

/** Composition is rebuilt from a pass over the fleet at most this often (wall ms). */
const COMPOSITION_MAX_AGE_MS = 10_000

/** The part of the fleet a pass over it reads: agents [0, used) are the ones ever brought to life. */
export interface CensusSource {
  readonly v: FleetViews
  readonly used: number
  readonly program: FleetProgram
}

export class Census {
  /** agents by state code */
  readonly byState: number[] = new Array(AGENT_STATES.length).fill(0)
  /** agents that exist (deleted agents excluded) */
  existing = 0
  /** summed events/s of every running input module of every existing agent */
  fleetRate = 0
  private compositionCache: { at: number; value: FleetComposition } | undefined

  /** `stats` receives the transitions and module figures of every tally absorbed. */
  constructor(private readonly stats: FleetStats) {}

  /** Forgets everything: the fleet is being rebuilt (a recount follows). */
  clear(): void {
    this.byState.fill(0)
    this.existing = 0
    this.fleetRate = 0
    this.compositionCache = undefined
  }

  /** Applies what a step task or a mutation changed. */
  absorb(tally: StepTally): void {
    const n = AGENT_STATES.length
    for (let k = 0; k < tally.transitions.length; k++) {
      const count = tally.transitions[k]
      if (count === 0) continue
      this.byState[Math.floor(k / n)] -= count
      this.byState[k % n] += count
      this.stats.transitions[k] += count
    }
    for (let s = 0; s < n; s++) {
      if (tally.appeared[s] === 0) continue
      this.byState[s] += tally.appeared[s]
      this.existing += tally.appeared[s]
    }
    this.fleetRate += tally.rateDelta
    this.stats.moduleCrashes += tally.moduleCrashes
    this.stats.moduleRestarts += tally.moduleRestarts
  }

  /** Counts by state, existing agents and the fleet's input rate from a full pass. */
  recount(fleet: CensusSource): void {
    this.byState.fill(0)
    this.fleetRate = 0
    this.existing = 0
    for (let i = 0; i < fleet.used; i++) {
      if ((fleet.v.flags[i] & Flag.EXISTS) === 0) continue
      this.existing++
      this.byState[fleet.v.state[i]]++
      this.fleetRate += runningRate(fleet, i)
    }
  }

  /** Agent i has just come to exist (added through the API or joined by the timeline). */
  added(fleet: CensusSource, i: number): void {
    this.existing++
    this.byState[fleet.v.state[i]]++
    this.fleetRate += runningRate(fleet, i)
  }

  /** Agent i is about to be deleted (it still carries its state and modules). */
  removed(fleet: CensusSource, i: number): void {
    this.byState[fleet.v.state[i]]--
    this.existing--
    this.fleetRate -= runningRate(fleet, i)
  }

  counts(): FleetCounts {
    const byState = {} as Record<AgentStateName, number>
    AGENT_STATES.forEach((name, code) => (byState[name] = this.byState[code]))
    return { agents: this.existing, byState }
  }

  /** Agents connected to the manager: every state but OFFLINE and UNMANAGED. */
  connectedCount(): number {
    return this.existing - this.byState[AgentState.OFFLINE] - this.byState[AgentState.UNMANAGED]
  }

  /**
   * Agents by mode and version, modules by status. These change rarely (API calls, upgrades,
   * crashes), so a pass over the fleet is cached for up to 10 s of wall time instead of being
   * repeated on every scrape; at a million agents the pass takes a few milliseconds.
   */
  composition(fleet: CensusSource): FleetComposition {
    const now = performance.now()
    if (this.compositionCache !== undefined && now - this.compositionCache.at < COMPOSITION_MAX_AGE_MS) return this.compositionCache.value
    const { v, program } = fleet
    const modes = new Array(MODES.length).fill(0)
    const versions = new Array(program.versions.names.length).fill(0)
    const modules = new Array(MODULE_STATUSES.length).fill(0)
    for (let i = 0; i < fleet.used; i++) {
      if ((v.flags[i] & Flag.EXISTS) === 0) continue
      modes[v.mode[i]]++
      versions[v.versionIdx[i]]++
      for (let k = 0; k < v.moduleCount[i]; k++) modules[v.moduleStatus[i * MAX_MODULES + k]]++
    }
    const toRecord = (names: readonly string[], counts: number[]) => Object.fromEntries(names.map((name, k) => [name, counts[k]]))
    const value: FleetComposition = {
      byMode: toRecord(MODES, modes),
      byVersion: toRecord(program.versions.names, versions),
      modulesByStatus: toRecord(MODULE_STATUSES, modules),
      scanMs: performance.now() - now
    }
    this.compositionCache = { at: now, value }
    return value
  }
}

/** Counts by scanning every agent: for tests that check the incremental counts. */
export function scanCounts(fleet: CensusSource): number[] {
  const counts = new Array(AGENT_STATES.length).fill(0)
  for (let i = 0; i < fleet.used; i++) if ((fleet.v.flags[i] & Flag.EXISTS) !== 0) counts[fleet.v.state[i]]++
  return counts
}

/** Events/s of agent i's running modules. */
function runningRate(fleet: CensusSource, i: number): number {
  let rate = 0
  for (let k = 0; k < fleet.v.moduleCount[i]; k++) {
    if (fleet.v.moduleStatus[i * MAX_MODULES + k] === ModuleStatus.RUNNING) rate += moduleRate(fleet.program, fleet.v, i, k)
  }
  return rate
}
