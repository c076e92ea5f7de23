/**
 * The fleet read from another thread (the list thread, src/http/list-thread.ts): the agents'
 * shared memory and the program of the run, the overrides the API made, and the fleet's second,
 * handed over as plain data (ReplicaState) and read with the main thread's own read functions
 * (reads.ts), so an item read here is the item read there.
 *
 * What a replica holds is a copy as of the last state handed over, but for the agents' memory,
 * which is shared: the agents added since (their slots past `used`), a rename since and the rounds
 * stepped since are not seen until the next state. The main thread's own writes to agents
 * (mutations, the timeline) are not under the agents' sequence locks: a replica reads an agent
 * while the engine's change cell is even and unchanged around the read (FleetCore.changeCell),
 * and with the overrides of the moment: when their revision (in shared memory) has moved past its
 * copy's, it fetches them again first (overridesStale).
 */
import { viewsOf, type FleetBuffers } from './layout.js'
import type { FleetProgram } from './program.js'
import { FleetCore, type FilledOptions } from './fleet-core.js'
import { Identity } from './identity.js'
import type { OverrideEntries } from './agent-overrides.js'
import { AgentCursor, figuresOf, polledAt, viewOf } from './reads.js'
import { moduleHeadOf } from './agent-view.js'
import { GeneratedIdentityWriter } from './generated-identity.js'
import type { AgentStateName } from '../protocol/states.js'
import type { AgentView, Fleet, GeneratedIdentity, IndexCursor, ModuleHead } from './fleet-api.js'

/** What a run is made of: sent once per run. */
export interface ReplicaRun {
  buffers: FleetBuffers
  program: FleetProgram
  options: FilledOptions
  seed: number
  initialAgents: number
}

/** The fleet as a replica reads it: `runData` when the replica has not seen this run, `overrides` when it has not seen their revision. */
export interface ReplicaState {
  run: number
  /** agents [0, used) have been brought to life */
  used: number
  /** the virtual second the fleet has been stepped to */
  steppedTo: number
  identityRevision: number
  changeCell: Int32Array
  /** the overrides' revision as it moves (AgentOverrides.revisionCell) */
  overridesCell: Int32Array
  runData?: ReplicaRun
  overrides?: OverrideEntries
}

/** What a replica has seen: the state handed to it next may leave these out. */
export interface ReplicaSeen {
  run: number
  identityRevision: number
}

/** The state to hand a replica that has seen `seen` (undefined: nothing yet). */
export function replicaState(core: FleetCore, seen: ReplicaSeen | undefined): ReplicaState {
  const identityRevision = core.overrides.revision
  const state: ReplicaState = { run: core.runs, used: core.used, steppedTo: core.steppedTo, identityRevision, changeCell: core.changeCell, overridesCell: core.overrides.revisionCell }
  if (seen?.run !== core.runs) {
    state.runData = { buffers: core.buffers, program: core.program, options: core.options, seed: core.seed, initialAgents: core.initialAgents }
  }
  if (seen?.run !== core.runs || seen.identityRevision !== identityRevision) state.overrides = core.overrides.entries()
  return state
}

/** What reading an item takes of a fleet (item-bytes.ts's FigureSource), and the cursor a list walks. */
export type ReplicaReads = Pick<Fleet, 'view' | 'agentRevision' | 'polledAt' | 'identityRevision' | 'figures' | 'generatedIdentity' | 'moduleHead'>

export class FleetReplica implements ReplicaReads {
  private core: FleetCore | undefined
  private generated: GeneratedIdentityWriter | undefined
  private cell: Int32Array | undefined
  private overridesCell: Int32Array | undefined

  /** Takes the state handed over (ReplicaState); a run's data or the overrides the state leaves out are the ones seen before. */
  update(state: ReplicaState): void {
    let core = this.core
    if (state.runData !== undefined) {
      const { buffers, program, options, seed, initialAgents } = state.runData
      core = new FleetCore(options)
      core.buffers = buffers
      core.v = viewsOf(buffers)
      core.capacity = core.v.seq.length
      core.program = program
      core.seed = seed
      core.initialAgents = initialAgents
      core.identity = new Identity(seed)
      core.runs = state.run
      this.core = core
      this.generated = new GeneratedIdentityWriter(core)
    }
    if (core === undefined || core.runs !== state.run) throw new Error(`the replica has not seen run ${state.run}: hand it the run's data`)
    if (state.overrides !== undefined) core.overrides.copyOf(state.overrides, state.identityRevision)
    if (core.overrides.revision !== state.identityRevision) throw new Error(`the replica has not seen the overrides at revision ${state.identityRevision}`)
    core.used = state.used
    core.steppedTo = state.steppedTo
    this.cell = state.changeCell
    this.overridesCell = state.overridesCell
  }

  /** The main thread's change counter (FleetCore.changeCell): odd while it writes agents. */
  mainChanges(): number {
    return Atomics.load(this.cell as Int32Array, 0)
  }

  /**
   * Whether the API changed the overrides since the copy held here: the agents' memory is live,
   * and an agent renamed or reconfigured meanwhile would show its old name with its new state
   * (takeOverrides).
   */
  overridesStale(): boolean {
    return Atomics.load(this.overridesCell as Int32Array, 0) !== this.current.overrides.revision
  }

  /** The main thread's overrides as they are now, at `revision`. */
  takeOverrides(entries: OverrideEntries, revision: number): void {
    this.current.overrides.copyOf(entries, revision)
  }

  get run(): number {
    return this.current.runs
  }

  cursor(states?: ReadonlySet<AgentStateName>): IndexCursor {
    return new AgentCursor(this.current, states)
  }

  view(i: number, withModules: boolean, keepIdentity = true, figures?: Float64Array): AgentView {
    return viewOf(this.current, i, withModules, keepIdentity, figures)
  }

  figures(i: number, out: Float64Array, modules?: Float64Array): void {
    figuresOf(this.current, i, out, modules)
  }

  agentRevision(i: number): number {
    return Atomics.load(this.current.v.seq, i)
  }

  polledAt(i: number): number {
    return polledAt(this.current, i)
  }

  identityRevision(): number {
    return this.current.overrides.revision
  }

  moduleHead(set: number, k: number): ModuleHead {
    return moduleHeadOf(this.current.program, set, k)
  }

  generatedIdentity(i: number): GeneratedIdentity | undefined {
    return (this.generated as GeneratedIdentityWriter).of(i)
  }

  private get current(): FleetCore {
    if (this.core === undefined) throw new Error('the replica has no state yet (update)')
    return this.core
  }
}
