/**
 * What the parts of the fleet engine share: the agents' shared memory, the program, the
 * identity and the clock of the current run, the sparse data the API replaced, the census,
 * and the one queue of turns in which step rounds and mutations take place.
 *
 * Each part (step-driver.ts, reads.ts, mutations.ts, scenario-runtime.ts, snapshot.ts) reads
 * and writes this object; the engine (fleet.ts) says which part runs in which turn. Fields
 * marked "per run" are replaced by begin() when the fleet is rebuilt; the others live as long
 * as the engine, so whoever holds them (metrics hold `stats`) keeps seeing the live values.
 */
import { Flag, NEVER, allocateBuffers, viewsOf, type FleetBuffers, type FleetViews } from './layout.js'
import type { FleetProgram } from './program.js'
import { Identity } from './identity.js'
import { VirtualClock } from './clock.js'
import { armStage, newTally, scheduleNext, type LifeContext } from './lifecycle.js'
import { AgentOverrides } from './agent-overrides.js'
import { ShownIdentities } from './shown-identities.js'
import { Census } from './census.js'
import { TurnQueue } from '../lib/turn-queue.js'
import { emptyStats, type FleetOptions, type FleetStats } from './fleet-types.js'

/** The engine's options with every default filled in. */
export type FilledOptions = Required<Omit<FleetOptions, 'program' | 'headroom' | 'scenario' | 'stepTask' | 'startEmpty'>> & { headroom: number | undefined }

/** Room for agents added in a run (addagent, timeline joins) when --max-added-agents is not given: 5 % of the agents, at least 1,000. */
export function defaultHeadroom(agents: number): number {
  return Math.max(1000, Math.ceil(agents * 0.05))
}

export class FleetCore {
  /** agent slots allocated (per run; kept when the size does not change) */
  capacity = 0
  /**
   * Runs begun: begin() counts one as it rebuilds the fleet, before the new agents exist, so
   * whoever keeps something by agent index sees from the first read that the indices name
   * other agents now (the step driver's run number moves only once the rebuild is done).
   */
  runs = 0
  buffers!: FleetBuffers
  v!: FleetViews
  /** per run */
  program!: FleetProgram
  /** per run */
  seed = 0
  /** agents of the starting fleet: generated names and UUIDs exist for indices below it */
  initialAgents = 0
  /** highest index ever used + 1: agents [0, used) have been brought to life */
  used = 0
  /** virtual second the whole fleet has been stepped to */
  steppedTo = 0
  /** manager-restart lockout: no agent can establish its trusted connection */
  lockout = false
  /** a lockout with a duration ends at this second by itself */
  lockoutEndsAt = NEVER
  /** per run */
  identity!: Identity
  /** per run (its speed and pause carry over) */
  clock!: VirtualClock
  /** see FleetEngine.revision(): odd while an exclusive section runs */
  changes = 0
  readonly stats: FleetStats = emptyStats()
  readonly census = new Census(this.stats)
  /** Sparse data of agents the API renamed, added or reconfigured. */
  readonly overrides = new AgentOverrides()
  /** identities read lately, good while overrides.revision stays (reads.ts) */
  readonly shown = new ShownIdentities()
  /**
   * Agents added through the API that have not reported in yet: index → the second they do
   * (per run). Only for the refusal message of commands (mutations.ts); the agents' timers are
   * in shared memory. Not saved: after a resume such an agent is refused as "not connected".
   */
  readonly reportsInAt = new Map<number, number>()
  readonly turns = new TurnQueue()
  /** told by begin() that a new run begins (FleetEngine.onNewRun) */
  private readonly newRunListeners: Array<() => void> = []

  constructor(readonly options: FilledOptions) {}

  /**
   * Starts a run of `agents` agents at virtual second 0: fresh (zeroed) agent memory with room
   * for the headroom, a new identity and clock, no overrides, zero figures. Returns whether
   * the memory was allocated anew (the step driver then cuts new shards).
   */
  begin(agents: number, seed: number, program: FleetProgram): boolean {
    this.runs++
    this.seed = seed
    this.program = program
    this.program.epochMs = this.options.startTime
    this.initialAgents = agents
    const capacity = agents + (this.options.headroom ?? defaultHeadroom(agents))
    const allocated = capacity !== this.capacity
    if (allocated) {
      this.capacity = capacity
      this.buffers = allocateBuffers(capacity)
      this.v = viewsOf(this.buffers)
    } else {
      for (const view of Object.values(this.v)) view.fill(0)
    }
    // Empty slots have no timer: the step skips them.
    this.v.nextEventAt.fill(NEVER)
    this.identity = new Identity(seed)
    const previous = this.clock as VirtualClock | undefined
    this.clock = new VirtualClock(this.options.startTime, { speed: previous?.speed ?? this.options.speed, paused: previous?.paused ?? this.options.paused })
    this.overrides.clear()
    this.reportsInAt.clear()
    Object.assign(this.stats, emptyStats(), { restarts: this.stats.restarts + 1 })
    this.census.clear()
    this.used = agents
    this.steppedTo = 0
    this.lockout = false
    this.lockoutEndsAt = NEVER
    // Every index names an agent of the new run (or none) from here on: whoever keeps something
    // by index for the agents of the run before is told at once, before a read could see both.
    for (const listener of this.newRunListeners) listener()
    return allocated
  }

  /** Calls `listener` in every begin() from now on, once the run before is gone (FleetEngine.onNewRun). */
  onNewRun(listener: () => void): void {
    this.newRunListeners.push(listener)
  }

  /**
   * Runs fn alone: after the step round in flight, before the next. The revision is odd while
   * fn runs (it may await between two writes) and moves on when it ends.
   */
  exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.turns
      .run(() => {
        this.changes++
        return fn()
      })
      .finally(() => this.changes++)
  }

  exists(i: number): boolean {
    return i >= 0 && i < this.used && (this.v.flags[i] & Flag.EXISTS) !== 0
  }

  /** A context for main-thread changes at the fleet's current second. */
  mutationContext(): LifeContext {
    return { program: this.program, v: this.v, lockout: this.lockout, tally: newTally() }
  }

  /** Ends main-thread changes: arms the touched agents' stages and timers, counts the tally. */
  finishMutation(ctx: LifeContext, touched: Iterable<number>): void {
    const t = this.steppedTo
    for (const i of touched) {
      armStage(ctx, i, t)
      scheduleNext(ctx, i, t)
      this.written(i)
    }
    this.census.absorb(ctx.tally)
  }

  /**
   * Moves agent i's revision on after a change made on this thread. Main-thread changes run
   * between step rounds (exclusive), so no worker holds the lock; the revision moves by two,
   * staying even, and what was kept of the agent by its revision (an answer, an item) is
   * known to be stale.
   */
  written(i: number): void {
    Atomics.add(this.v.seq, i, 2)
  }
}
