/**
 * The fleet engine: owns the shared buffers, the Piscina pool that steps them, the virtual
 * clock that says how far to step, and the sparse per-agent data the API can change (names,
 * UUIDs and configuration of renamed or added agents). Implements the facade's Fleet seam.
 *
 * Two kinds of work touch agents, and they never overlap (see layout.ts, "Ownership"):
 * step rounds (workers, one task per shard) and mutations (main thread). Both run under one
 * promise-chain lock, so a mutation waits for the step round in flight, runs alone, and the
 * next round sees its result. That is also what makes a run reproducible: mutations land
 * between rounds, at the fleet's current virtual second.
 */
import { createHash } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import { AGENT_STATES, AgentState, MODES, MODULE_STATUSES, Mode, ModuleStatus, type AgentStateName } from './states.js'
import { Flag, Link, MAX_MODULES, NEVER, allocateBuffers, viewsOf, type FieldName, type FleetBuffers, type FleetViews } from './layout.js'
import { defaultProgram, sample, type FleetProgram } from './program.js'
import { Identity } from './identity.js'
import { VirtualClock, type ClockState } from './clock.js'
import { advanceCounters, moduleRate } from './counters.js'
import {
  NO_STAGE,
  Revert,
  armStage,
  disconnect,
  newTally,
  refreshState,
  restartModules,
  scheduleNext,
  setModuleStatus,
  stopModules,
  type LifeContext,
  type StepTally
} from './lifecycle.js'
import { initAgent } from './agent-init.js'
import { AgentOverrides } from './agent-overrides.js'
import { agentView } from './agent-view.js'
import { recoverShard, type ShardRange, type UndoArea } from './step.js'
import { Stream, hash32, uniform } from './random.js'
import { Action } from './program.js'
import { applyAction, matches } from './lifecycle.js'
import { pickAgents } from './selection.js'
import { ScenarioRuntime } from './scenario-runtime.js'
import type { CompiledScenario, MainSelector } from './scenario-program.js'
import type { ReconnectOperation } from '../scenario/types.js'
import { normaliseFingerprint } from '../tls/ca-info.js'
import type { WorkerData, WorkerTask } from './worker.js'
import type { AgentConfig, AgentView, BatchOutcome, Fleet, FleetCounts, NewAgent } from './fleet-api.js'
import {
  OVERRIDE_ACTIONS,
  RECONNECT_WAIT_SECONDS,
  emptyStats,
  type EngineSnapshot,
  type FleetComposition,
  type FleetOptions,
  type FleetStats,
  type OverrideAction,
  type ScenarioInfo
} from './fleet-types.js'

/** Composition is rebuilt from a pass over the fleet at most this often (wall ms). */
const COMPOSITION_MAX_AGE_MS = 10_000

const MAX_CHUNK_SECONDS = 3600
/**
 * Rounds the clock driver starts are at least this far apart (wall ms). At high speed the
 * fleet would otherwise be stepped one or two virtual seconds at a time, hundreds of rounds a
 * second, and the per-round cost (a task per shard, tallies) alone took a third of a core at
 * speed 600 (bench: 10k agents). A round steps every agent to its end exactly whatever its
 * length, so only how fresh reads are between rounds changes. `advance` is not throttled.
 * 40 rather than 10: under load each round also wakes a worker thread on a busy machine, and
 * at speed 600 rounds 10 ms apart cost agentinfo answers more server CPU than rounds 40 ms
 * apart (longer gave no more). Reads are at most 40 ms of wall time behind the clock.
 */
const MIN_ROUND_INTERVAL_MS = 40
/**
 * Agents in a shard at least: every shard is a pool task per round, and handing a task over
 * and collecting its tally costs about as much as stepping thousands of agents. With a
 * minimum of 1024, a fleet of 10k agents was 11 tasks a round: stepped flat out one virtual
 * second at a time, a round took 0.83 ms, and 0.08 ms as one task (`npm run bench`, scale
 * rows of results/all-2026-11-22T05-23-49.json and all-2026-11-22T08-07-09.json). Larger
 * fleets still get workers × 8 shards.
 */
const MIN_SHARD_AGENTS = 16_384

function workerFile(): { filename: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith('.ts')) {
    // Running from source (tsx, vitest): workers load the TypeScript entry through tsx.
    return { filename: here.replace(/fleet\.ts$/, 'worker.ts'), execArgv: ['--import', 'tsx'] }
  }
  return { filename: here.replace(/fleet\.js$/, 'worker.js'), execArgv: [] }
}

type FilledOptions = Required<Omit<FleetOptions, 'program' | 'headroom' | 'scenario'>> & { headroom: number | undefined }

export * from './fleet-types.js'

export class FleetEngine implements Fleet {
  // Everything below is rebuilt by setup() when the fleet is reset or its scenario replaced.
  capacity = 0
  identity!: Identity
  clock!: VirtualClock
  readonly stats: FleetStats = emptyStats()
  private buffers!: FleetBuffers
  private v!: FleetViews
  private undo!: UndoArea
  private undoBuffers!: FleetBuffers
  private shards: ShardRange[] = []
  private pool!: Piscina<WorkerTask, StepTally>
  private program!: FleetProgram
  private seed = 0
  /** agents of the starting fleet: generated names and UUIDs exist for indices below `used` */
  private initialAgents = 0
  /** highest index ever used + 1: agents [0, used) have been brought to life */
  private used = 0
  private existing = 0
  private readonly byState: number[] = new Array(AGENT_STATES.length).fill(0)
  /** summed events/s of every running input module of every existing agent */
  private fleetRate = 0
  /** virtual second the whole fleet has been stepped to */
  private steppedTo = 0
  private lockout = false
  /** a lockout with a duration ends at this second by itself */
  private lockoutEndsAt = NEVER
  private lock: Promise<unknown> = Promise.resolve()
  /** see revision(): odd while an exclusive section runs */
  private changes = 0
  private timer: NodeJS.Timeout | undefined
  /** wall time (performance.now) the last round of the clock driver ended */
  private lastRoundEnd = -Infinity
  private closed = false
  private readonly waiters: Array<{ at: number; resolve: () => void }> = []
  private scenario: ScenarioRuntime | undefined
  // Sparse data of agents the API renamed, added or reconfigured.
  private readonly overrides = new AgentOverrides()
  private compositionCache: { at: number; value: FleetComposition } | undefined

  private constructor(private readonly options: FilledOptions) {}

  /** Continues a saved run (see snapshot()); `scenario` is the saved scenario, compiled again. */
  static async restore(saved: EngineSnapshot, options: Pick<FleetOptions, 'workers' | 'caFingerprint' | 'headroom'> & { scenario?: CompiledScenario }): Promise<FleetEngine> {
    const engine = new FleetEngine({
      agents: saved.initialAgents,
      seed: saved.seed,
      workers: Math.max(1, options.workers ?? availableParallelism()),
      speed: saved.speed,
      startTime: saved.startTime,
      paused: saved.paused,
      caFingerprint: options.caFingerprint,
      headroom: options.headroom ?? Math.max(1000, saved.used - saved.initialAgents + Math.ceil(saved.initialAgents * 0.05))
    })
    await engine.setup(options.scenario, undefined, saved)
    engine.schedule()
    return engine
  }

  static async create(options: FleetOptions): Promise<FleetEngine> {
    if (!Number.isInteger(options.agents) || options.agents < 0) throw new RangeError(`agents must be a non-negative integer, got ${options.agents}`)
    const engine = new FleetEngine({
      agents: options.agents,
      seed: options.seed,
      workers: Math.max(1, options.workers ?? availableParallelism()),
      speed: options.speed ?? 1,
      startTime: options.startTime ?? Date.now(),
      paused: options.paused ?? false,
      caFingerprint: options.caFingerprint,
      headroom: options.headroom
    })
    await engine.setup(options.scenario, options.program)
    engine.schedule()
    return engine
  }

  /**
   * Builds the fleet from scratch at virtual second 0: from the scenario when there is one
   * (its size and seed win), else from the options and the default program.
   */
  private async setup(scenario: CompiledScenario | undefined, program?: FleetProgram, saved?: EngineSnapshot): Promise<void> {
    const agents = saved?.initialAgents ?? scenario?.scenario.fleet.agents ?? this.options.agents
    this.seed = saved?.seed ?? scenario?.program.seed ?? this.options.seed
    this.program = scenario?.program ?? program ?? defaultProgram(this.seed, this.options.startTime)
    this.program.epochMs = this.options.startTime
    this.initialAgents = agents
    const capacity = agents + (this.options.headroom ?? Math.max(1000, Math.ceil(agents * 0.05)))
    if (capacity !== this.capacity) {
      this.capacity = capacity
      this.buffers = allocateBuffers(capacity)
      this.v = viewsOf(this.buffers)
      const shardSize = Math.max(MIN_SHARD_AGENTS, Math.ceil(capacity / (this.options.workers * 8)))
      this.shards = []
      for (let start = 0, shard = 0; start < capacity; start += shardSize, shard++) {
        this.shards.push({ shard, start, end: Math.min(capacity, start + shardSize) })
      }
      this.undoBuffers = allocateBuffers(this.shards.length)
      this.undo = { views: viewsOf(this.undoBuffers), agent: new Int32Array(new SharedArrayBuffer(4 * this.shards.length)) }
    } else {
      for (const view of Object.values(this.v)) view.fill(0)
    }
    this.undo.agent.fill(-1)
    // Empty slots have no timer: the step skips them.
    this.v.nextEventAt.fill(NEVER)
    this.identity = new Identity(this.seed)
    const previous = this.clock
    this.clock = new VirtualClock(this.options.startTime, { speed: previous?.speed ?? this.options.speed, paused: previous?.paused ?? this.options.paused })
    this.overrides.clear()
    Object.assign(this.stats, emptyStats())
    this.used = agents
    this.steppedTo = 0
    this.lockout = false
    this.lockoutEndsAt = NEVER
    this.compositionCache = undefined
    // Workers receive the program with the buffers, once: a new program needs new workers.
    if (this.pool !== undefined) await this.pool.destroy()
    this.pool = this.createPool()
    this.scenario = scenario === undefined ? undefined : new ScenarioRuntime(scenario)
    if (saved !== undefined) {
      this.resume(saved)
      return
    }
    await this.build(agents)
    if (this.scenario !== undefined) {
      this.startScenario(this.scenario)
      this.fireTimeline(0)
    }
  }

  /** Puts a saved fleet back in place of the freshly allocated one (see snapshot()). */
  private resume(saved: EngineSnapshot): void {
    if (saved.used > this.capacity) throw new RangeError(`the saved fleet has ${saved.used} agent slots, more than the ${this.capacity} allocated`)
    for (const [name, bytes] of Object.entries(saved.buffers) as Array<[FieldName, Uint8Array]>) {
      if (!(name in this.buffers)) throw new RangeError(`the saved fleet has an unknown field "${name}"`)
      new Uint8Array(this.buffers[name]).set(bytes)
    }
    this.used = saved.used
    this.steppedTo = saved.steppedTo
    this.lockout = saved.lockout
    this.lockoutEndsAt = saved.lockoutEndsAt
    this.clock = new VirtualClock(this.options.startTime, { speed: this.clock.speed, paused: this.clock.paused })
    this.clock.advance(saved.steppedTo * 1000)
    for (const [i, name] of saved.names) this.overrides.setName(i, name)
    for (const [i, uuid] of saved.uuids) {
      this.overrides.setUuid(i, uuid)
    }
    for (const [i, config] of saved.configs) this.overrides.setConfig(i, config)
    Object.assign(this.stats, saved.stats)
    if (this.scenario !== undefined) {
      // Occurrences up to the saved second have fired; the cursor skips them.
      this.scenario.cursor.due(saved.steppedTo)
      saved.failureSets.forEach((set, k) => (this.scenario!.failureSets[k] = set === null ? null : new Set(set)))
    }
    this.recount()
  }

  /**
   * Everything needed to continue this run elsewhere: the agents' bytes, the sparse data, the
   * clock and the scenario's progress. Taken between step rounds, so it is consistent.
   */
  snapshot(): Promise<EngineSnapshot> {
    return this.exclusive(() => {
      const buffers = {} as Record<FieldName, Uint8Array>
      for (const [name, buffer] of Object.entries(this.buffers) as Array<[FieldName, SharedArrayBuffer]>) {
        const perAgent = buffer.byteLength / this.capacity
        // A copy: the live buffer keeps changing after the snapshot is taken.
        buffers[name] = new Uint8Array(buffer, 0, perAgent * this.used).slice()
      }
      return {
        seed: this.seed,
        startTime: this.options.startTime,
        initialAgents: this.initialAgents,
        used: this.used,
        steppedTo: this.steppedTo,
        lockout: this.lockout,
        lockoutEndsAt: this.lockoutEndsAt,
        speed: this.clock.speed,
        paused: this.clock.paused,
        scenario: this.scenario?.compiled.scenario ?? null,
        ...this.overrides.entries(),
        failureSets: this.scenario?.failureSets.map((set) => (set === null ? null : [...set])) ?? [],
        stats: structuredClone(this.stats),
        buffers
      }
    })
  }

  /** Rebuilds the fleet at its scenario's start (the same scenario, or a new one). */
  reset(scenario?: CompiledScenario | null): Promise<void> {
    return this.exclusive(async () => {
      const next = scenario === null ? undefined : (scenario ?? this.scenario?.compiled)
      await this.setup(next)
      this.releaseWaiters()
    }).finally(() => this.schedule())
  }

  private createPool(): Piscina<WorkerTask, StepTally> {
    const { filename, execArgv } = workerFile()
    const workerData: WorkerData = {
      buffers: this.buffers,
      undoBuffers: this.undoBuffers,
      undoAgent: this.undo.agent.buffer as SharedArrayBuffer,
      program: this.program
    }
    return new Piscina<WorkerTask, StepTally>({
      filename,
      execArgv,
      workerData,
      minThreads: this.options.workers,
      maxThreads: this.options.workers,
      idleTimeout: 60_000
    })
  }

  private async build(agents: number): Promise<void> {
    const tallies = await Promise.all(
      this.shards
        .filter((range) => range.start < agents)
        .map((range) => this.pool.run({ kind: 'init', range: { ...range, end: Math.min(range.end, agents) }, t: 0, lockout: false }))
    )
    for (const tally of tallies) this.absorb(tally)
    // The starting counts and the fleet's input rate come from one pass; afterwards every
    // change arrives as a tally.
    this.recount()
  }

  /**
   * Counts by state, existing agents and the fleet's input rate from a full pass. Used at
   * build and after a worker died: the tally of the work it did before dying is lost.
   */
  private recount(): void {
    this.byState.fill(0)
    this.fleetRate = 0
    this.existing = 0
    for (let i = 0; i < this.used; i++) {
      if ((this.v.flags[i] & Flag.EXISTS) === 0) continue
      this.existing++
      this.byState[this.v.state[i]]++
      this.fleetRate += this.runningRate(i)
    }
  }

  private runningRate(i: number): number {
    let rate = 0
    for (let k = 0; k < this.v.moduleCount[i]; k++) {
      if (this.v.moduleStatus[i * MAX_MODULES + k] === ModuleStatus.RUNNING) rate += moduleRate(this.program, this.v, i, k)
    }
    return rate
  }

  private absorb(tally: StepTally): void {
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

  /**
   * Runs fn alone: after the step round in flight, before the next. The revision is odd while
   * fn runs (it may await between two writes) and moves on when it ends.
   */
  private exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.inTurn(() => {
      this.changes++
      return fn()
    }).finally(() => this.changes++)
  }

  /** Runs fn after every section queued before it, and before any queued after it. */
  private inTurn<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.lock.then(fn)
    this.lock = run.catch(() => undefined)
    return run
  }

  /** A context for main-thread changes at the fleet's current second. */
  private mutationContext(): LifeContext {
    return { program: this.program, v: this.v, lockout: this.lockout, tally: newTally() }
  }

  private finishMutation(ctx: LifeContext, touched: Iterable<number>): void {
    const t = this.steppedTo
    for (const i of touched) {
      armStage(ctx, i, t)
      scheduleNext(ctx, i, t)
    }
    this.absorb(ctx.tally)
  }

  // ---- clock and stepping ------------------------------------------------------------------

  /** Steps the fleet until it has caught up with the clock, then sleeps until the next second. */
  private schedule(): void {
    if (this.closed) return
    clearTimeout(this.timer)
    const target = Math.floor(this.clock.elapsedMs() / 1000)
    if (target > this.steppedTo) {
      const early = MIN_ROUND_INTERVAL_MS - (performance.now() - this.lastRoundEnd)
      if (early > 0) {
        this.timer = setTimeout(() => this.schedule(), Math.ceil(early))
        return
      }
      void this.catchUp()
        .then(() => (this.lastRoundEnd = performance.now()))
        .then(() => this.schedule())
      return
    }
    const wait = this.clock.wallMsUntil((this.steppedTo + 1) * 1000)
    if (wait !== Infinity) this.timer = setTimeout(() => this.schedule(), Math.max(1, Math.ceil(wait)))
  }

  /**
   * Steps to the clock. Not `exclusive`: the revision stays even while workers step, as their
   * writes move the agents' own revisions; it moves on after each round's main-thread part.
   */
  private catchUp(): Promise<void> {
    return this.inTurn(async () => {
      // The clock as it is now: time passing during the rounds is the next catch-up's.
      const target = Math.floor(this.clock.elapsedMs() / 1000)
      for (;;) {
        if (target <= this.steppedTo || this.closed) return
        // Rounds end exactly at fleet-wide moments (timeline events, the end of a lockout),
        // which the main thread then applies before the next round.
        const fleetWide = Math.min(this.scenario?.cursor.nextAt() ?? Infinity, this.lockoutEndsAt)
        const to = Math.min(target, this.steppedTo + MAX_CHUNK_SECONDS, Math.max(fleetWide, this.steppedTo + 1))
        await this.round(to)
        if (this.lockoutEndsAt <= to) this.applyLockout(false)
        this.fireTimeline(to)
        this.changes += 2
      }
    }).catch((error: unknown) => {
      if (!this.closed) throw error
    })
  }

  /** One step round: every shard to virtual second `to`, in parallel. */
  private async round(to: number): Promise<void> {
    const started = performance.now()
    const lockout = this.lockout
    const restartsBefore = this.stats.workerRestarts
    const tallies = await Promise.all(this.shards.filter((r) => r.start < this.used).map((range) => this.stepRange(range, to, lockout)))
    for (const tally of tallies) this.absorb(tally)
    if (this.stats.workerRestarts !== restartsBefore) this.recount()
    this.stats.eventsReceived += this.fleetRate * (to - this.steppedTo)
    this.steppedTo = to
    this.stats.stepRounds++
    this.stats.lastRoundMs = performance.now() - started
    this.releaseWaiters()
  }

  private async stepRange(range: ShardRange, to: number, lockout: boolean): Promise<StepTally> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.pool.run({ kind: 'step', range, to, lockout })
      } catch (error) {
        // A worker died mid-task: restore the agent it was writing and step the shard again
        // on a fresh worker (piscina replaces dead workers). Finished agents are skipped.
        if (this.closed || attempt >= 3) throw error
        recoverShard(this.v, this.undo, range)
        this.stats.workerRestarts++
      }
    }
  }

  /** Test hook: runs a step round in which one worker dies part way through a shard. */
  async roundWithCrash(to: number, afterAgents: number): Promise<void> {
    await this.exclusive(async () => {
      const [first, ...rest] = this.shards.filter((r) => r.start < this.used)
      const crashed = this.pool
        .run({ kind: 'step-and-die', range: first, to, lockout: this.lockout, afterAgents })
        .then(
          () => newTally(),
          () => {
            recoverShard(this.v, this.undo, first)
            this.stats.workerRestarts++
            return this.stepRange(first, to, this.lockout)
          }
        )
      const tallies = await Promise.all([crashed, ...rest.map((r) => this.stepRange(r, to, this.lockout))])
      for (const tally of tallies) this.absorb(tally)
      this.recount()
      this.steppedTo = to
      this.clock.advance(Math.max(0, to * 1000 - this.clock.elapsedMs()))
    })
  }

  private releaseWaiters(): void {
    for (let k = this.waiters.length - 1; k >= 0; k--) {
      if (this.waiters[k].at <= this.steppedTo) {
        this.waiters[k].resolve()
        this.waiters.splice(k, 1)
      }
    }
  }

  /** Resolves once the fleet has been stepped to virtual second `at`. */
  private until(at: number): Promise<void> {
    if (at <= this.steppedTo) return Promise.resolve()
    return new Promise((resolve) => {
      this.waiters.push({ at, resolve })
      this.schedule()
    })
  }

  clockState(): ClockState {
    return this.clock.state()
  }

  setClock(change: { paused?: boolean; speed?: number }): ClockState {
    if (change.speed !== undefined) this.clock.setSpeed(change.speed)
    if (change.paused !== undefined) this.clock.setPaused(change.paused)
    this.schedule()
    return this.clock.state()
  }

  /** Moves the clock forward by exactly `seconds` and resolves once the fleet has been stepped there. */
  async advance(seconds: number): Promise<ClockState> {
    if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError(`seconds must be a non-negative integer, got ${seconds}`)
    // Advance from the fleet's own second, so that the outcome does not depend on how much
    // wall time passed before the call while paused.
    const target = this.steppedTo + seconds
    this.clock.advance(Math.max(0, target * 1000 - this.clock.elapsedMs()))
    await this.catchUp()
    await this.until(target)
    return this.clock.state()
  }

  // ---- reading ---------------------------------------------------------------------------

  now(): number {
    return this.options.startTime + this.steppedTo * 1000
  }

  /** the virtual second the fleet has been stepped to */
  second(): number {
    return this.steppedTo
  }

  size(): number {
    return this.existing
  }

  counts(): FleetCounts {
    const byState = {} as Record<AgentStateName, number>
    AGENT_STATES.forEach((name, code) => (byState[name] = this.byState[code]))
    return { agents: this.existing, byState }
  }

  connectedCount(): number {
    return this.existing - this.byState[AgentState.OFFLINE] - this.byState[AgentState.UNMANAGED]
  }

  private exists(i: number): boolean {
    return i >= 0 && i < this.used && (this.v.flags[i] & Flag.EXISTS) !== 0
  }

  findByName(name: string): number | undefined {
    const overridden = this.overrides.indexOfName(name)
    if (overridden !== undefined) return this.exists(overridden) ? overridden : undefined
    const i = this.identity.indexOfName(name)
    return i !== undefined && !this.overrides.renamed(i) && this.exists(i) ? i : undefined
  }

  findByUuid(uuid: string): number | undefined {
    const lower = uuid.toLowerCase()
    const added = this.overrides.indexOfUuid(lower)
    if (added !== undefined) return this.exists(added) ? added : undefined
    const i = this.identity.indexOfUuid(lower)
    return i !== undefined && !this.overrides.hasUuid(i) && this.exists(i) ? i : undefined
  }

  findByCertFingerprint(fingerprint: string): number | undefined {
    const normal = normaliseFingerprint(fingerprint)
    const assigned = this.overrides.indexOfCert(normal)
    if (assigned !== undefined) return this.exists(assigned) ? assigned : undefined
    const i = this.identity.indexOfCertFingerprint(normal)
    return i !== undefined && !this.overrides.reconfigured(i) && this.exists(i) ? i : undefined
  }

  *indices(states?: ReadonlySet<AgentStateName>): Iterable<number> {
    const wanted = states === undefined ? undefined : new Set([...states].map((s) => AgentState[s]))
    for (let i = 0; i < this.used; i++) {
      if ((this.v.flags[i] & Flag.EXISTS) === 0) continue
      if (wanted !== undefined && !wanted.has(this.v.state[i] as 0)) continue
      yield i
    }
  }

  name(i: number): string {
    return this.overrides.name(i) ?? this.identity.name(i)
  }

  uuid(i: number): string {
    return this.overrides.uuid(i) ?? this.identity.uuid(i)
  }

  config(i: number): AgentConfig {
    const override = this.overrides.config(i)
    if (override !== undefined) return { ...override, mode: MODES[this.v.mode[i]] }
    const mode = MODES[this.v.mode[i]]
    return {
      // In Connect mode the configured address is the manager's; in Listen mode the agent's own.
      address: mode === 'Listen' ? this.identity.address(i) : `manager.${this.identity.vocabulary.domain}`,
      port: mode === 'Listen' ? 4041 : 4041,
      caFingerprint: this.options.caFingerprint,
      certFingerprint: this.identity.certFingerprint(i),
      isLogToFile: true,
      logLevel: 'INFO',
      mode,
      verbatim: ''
    }
  }

  revision(): number {
    return this.changes
  }

  agentRevision(i: number): number {
    return Atomics.load(this.v.seq, i)
  }

  view(i: number, withModules: boolean): AgentView {
    const identity = { name: this.name(i), uuid: this.uuid(i), address: this.overrides.config(i)?.address ?? this.identity.address(i) }
    return agentView(this.program, this.v, this.identity, this.options.startTime, this.steppedTo, i, withModules, identity)
  }

  // ---- mutations -------------------------------------------------------------------------

  addAgent(agent: NewAgent): Promise<number> {
    return this.exclusive(() => {
      if (this.used >= this.capacity) {
        throw new RangeError(`the fleet is full: ${this.capacity} agent slots are in use`)
      }
      const i = this.used++
      const ctx = this.mutationContext()
      initAgent(ctx, i, { t: this.steppedTo, initial: false, mode: Mode[agent.config.mode] })
      this.overrides.setName(i, agent.name)
      // Without a given UUID the slot's generated one is used: a random one would make the
      // same API calls give different fleets.
      if (agent.uuid !== undefined) {
        const uuid = agent.uuid.toLowerCase()
        this.overrides.setUuid(i, uuid)
      }
      this.overrides.setConfig(i, agent.config)
      this.existing++
      this.byState[this.v.state[i]]++
      this.fleetRate += this.runningRate(i)
      this.finishMutation(ctx, [i])
      return i
    })
  }

  modifyAgent(i: number, name: string, config: AgentConfig): Promise<void> {
    return this.exclusive(() => {
      const ctx = this.mutationContext()
      advanceCounters(this.program, this.v, i, this.steppedTo)
      if (name !== this.name(i)) this.overrides.setName(i, name)
      this.overrides.setConfig(i, config)
      this.v.mode[i] = Mode[config.mode]
      // A replaced configuration is no longer the corrupt one.
      this.v.flags[i] &= ~Flag.CONFIG_CORRUPT
      refreshState(ctx, i, this.steppedTo)
      this.finishMutation(ctx, [i])
    })
  }

  deleteAgents(indices: number[], revokeCert: boolean): Promise<void> {
    return this.exclusive(() => {
      const t = this.steppedTo
      for (const i of indices) {
        if (!this.exists(i)) continue
        advanceCounters(this.program, this.v, i, t)
        this.byState[this.v.state[i]]--
        this.existing--
        this.fleetRate -= this.runningRate(i)
        this.v.flags[i] &= ~Flag.EXISTS
        this.v.stageIdx[i] = NO_STAGE
        this.v.stageAt[i] = NEVER
        if (revokeCert) {
          this.v.nextEventAt[i] = NEVER
        } else {
          // Without revocation its certificate still works: it connects again hours later.
          this.v.flags[i] |= Flag.REJOINS
          this.v.revertAt[i] = t + 3600 + Math.floor(uniform(this.seed, i, this.v.eventNo[i], Stream.REJOIN_DELAY) * 6 * 3600)
          this.v.revertTo[i] = Revert.REJOIN
          this.v.nextEventAt[i] = this.v.revertAt[i]
        }
      }
    })
  }

  /** Why an agent cannot take a command now, or undefined when it can. */
  private refusal(i: number): string | undefined {
    // A command queued before a delete (the facade resolved the UUID first) finds the agent gone.
    if (!this.exists(i)) return 'agent no longer exists'
    const state = this.v.state[i]
    if (state === AgentState.UNMANAGED) return 'agent is unmanaged and cannot be administered remotely'
    if (state === AgentState.OFFLINE) return 'agent is not connected'
    return undefined
  }

  /**
   * Runs a command on each agent that can take one now; the others fail with the reason.
   * Counters are brought to now first, since the command changes the agent's conditions.
   */
  private command(indices: number[], apply: (ctx: LifeContext, i: number, t: number) => void): Promise<BatchOutcome> {
    return this.exclusive(() => {
      const ctx = this.mutationContext()
      const t = this.steppedTo
      const outcome: BatchOutcome = { ok: [], failed: [] }
      for (const i of indices) {
        const reason = this.refusal(i)
        if (reason !== undefined) {
          outcome.failed.push({ index: i, reason })
          continue
        }
        advanceCounters(this.program, this.v, i, t)
        apply(ctx, i, t)
        outcome.ok.push(i)
      }
      this.finishMutation(ctx, outcome.ok)
      return outcome
    })
  }

  stopAgents(indices: number[]): Promise<BatchOutcome> {
    return this.command(indices, (ctx, i, t) => stopModules(ctx, i, t))
  }

  startAgents(indices: number[]): Promise<BatchOutcome> {
    // A restart reloads the same configuration: a corrupt one stays corrupt (agent ERROR) until
    // it is replaced (modifyagent, updateandreloadagent).
    return this.command(indices, (ctx, i, t) => {
      restartModules(ctx, i, t, 1 + Math.floor(uniform(this.seed, i, this.v.eventNo[i], Stream.RESTART_DELAY) * 3))
      this.v.eventNo[i]++
    })
  }

  /**
   * Whether agent i fails this reconnect, and for how long it then stays OFFLINE (0: until a
   * later reconnect succeeds). Scenario rules decide; without a scenario, a small default
   * chance does.
   */
  private reconnectFailure(i: number, operation: ReconnectOperation | undefined): { fails: boolean; recoverAfter: number } {
    const v = this.v
    const u = uniform(this.seed, i, v.eventNo[i], Stream.RECONNECT_FAIL)
    const forced = (v.flags[i] & Flag.FAIL_NEXT_RECONNECT) !== 0
    if (forced) return { fails: true, recoverAfter: 0 }
    const runtime = this.scenario
    if (runtime === undefined) return { fails: u < this.program.reconnect.failProbability, recoverAfter: 0 }
    const rules = runtime.compiled.scenario.reconnect.failures
    for (let k = 0; k < rules.length; k++) {
      const rule = rules[k]
      if (operation !== undefined && !rule.operations.includes(operation)) continue
      const fixed = runtime.failureSets[k]
      const fails =
        fixed !== null
          ? fixed.has(i)
          : rule.mode.kind === 'probability' &&
            this.matchesMain(i, runtime.compiled.reconnectSelectors[k], false) &&
            uniform(this.seed, i, v.eventNo[i] * 64 + k, Stream.RECONNECT_FAIL) < rule.mode.probability
      if (!fails) continue
      const recoverAfter =
        rule.recoverAfter === null ? 0 : Math.max(1, Math.round(sample(rule.recoverAfter, u, uniform(this.seed, i, v.eventNo[i], Stream.RECONNECT_DELAY))))
      return { fails: true, recoverAfter }
    }
    return { fails: false, recoverAfter: 0 }
  }

  async reconnectAgents(indices: number[], operation?: ReconnectOperation): Promise<BatchOutcome> {
    const { outcome, waitUntil } = await this.exclusive(() => {
      const t = this.steppedTo
      const ctx = this.mutationContext()
      const { delay: delayDistribution } = this.program.reconnect
      const result: BatchOutcome = { ok: [], failed: [] }
      let latest = t
      for (const i of indices) {
        const reason = this.refusal(i)
        if (reason !== undefined) {
          result.failed.push({ index: i, reason })
          continue
        }
        const v = this.v
        advanceCounters(this.program, v, i, t)
        this.stats.reconnectAttempts++
        const { fails, recoverAfter } = this.reconnectFailure(i, operation)
        v.flags[i] &= ~(Flag.FAIL_NEXT_RECONNECT | Flag.CONFIG_CORRUPT)
        // The agent reloads its configuration: modules restart while it reconnects.
        for (let k = 0; k < v.moduleCount[i]; k++) setModuleStatus(ctx, i, k, ModuleStatus.STARTING)
        if (fails) {
          // Off the network: back after recoverAfter seconds, or stuck until a later reconnect.
          disconnect(ctx, i, t, recoverAfter)
          v.restartAt[i] = t + 1
          this.stats.reconnectFailures++
          result.failed.push({ index: i, reason: `agent did not reconnect within ${RECONNECT_WAIT_SECONDS} seconds` })
          latest = t + RECONNECT_WAIT_SECONDS
        } else {
          const drawn = sample(delayDistribution, uniform(this.seed, i, v.eventNo[i], Stream.RECONNECT_DELAY), uniform(this.seed, i, v.eventNo[i], Stream.RECONNECT_FAIL))
          const delay = Math.min(RECONNECT_WAIT_SECONDS - 1, Math.max(1, Math.round(drawn)))
          v.link[i] = Link.RECONNECTING
          v.revertAt[i] = t + delay
          v.revertTo[i] |= Revert.LINK
          v.restartAt[i] = t + delay
          latest = Math.max(latest, t + delay)
          result.ok.push(i)
        }
        v.startedAt[i] = t
        v.eventNo[i]++
        refreshState(ctx, i, t)
      }
      this.finishMutation(ctx, [...result.ok, ...result.failed.map((f) => f.index)])
      return { outcome: result, waitUntil: latest }
    })
    // The manager waits for the agents to come back, up to the reconnect wait, in virtual time.
    await this.until(waitUntil)
    return outcome
  }

  setTemplate(indices: number[], templateId: number): Promise<void> {
    return this.exclusive(() => {
      const ctx = this.mutationContext()
      for (const i of indices) this.v.templateId[i] = templateId
      this.finishMutation(ctx, indices)
    })
  }

  /** A manager restart: every agent is locked out until the agentmanager operation is called. */
  managerRestart(): Promise<void> {
    return this.setLockout(true)
  }

  /** agentmanager was called: the manager's private key is unlocked, agents reconnect. */
  managerLogin(): Promise<void> {
    return this.lockout ? this.setLockout(false) : Promise.resolve()
  }

  get lockedOut(): boolean {
    return this.lockout
  }

  private setLockout(on: boolean): Promise<void> {
    return this.exclusive(() => this.applyLockout(on))
  }

  /**
   * Locks every agent out (all OFFLINE), or unlocks: then each connected agent reconnects
   * after a draw from the reconnect delay, as after a real manager's key is unlocked.
   */
  private applyLockout(on: boolean): void {
    const { v } = this
    const t = this.steppedTo
    this.lockout = on
    this.lockoutEndsAt = NEVER
    const ctx = this.mutationContext()
    const touched: number[] = []
    for (let i = 0; i < this.used; i++) {
      if ((v.flags[i] & Flag.EXISTS) === 0) continue
      advanceCounters(this.program, v, i, t)
      if (!on && v.link[i] === Link.CONNECTED) {
        const delay = sample(this.program.reconnect.delay, uniform(this.seed, i, v.eventNo[i], Stream.RECONNECT_DELAY), uniform(this.seed, i, v.eventNo[i], Stream.RECONNECT_FAIL))
        v.link[i] = Link.RECONNECTING
        v.revertAt[i] = Math.min(v.revertAt[i], t + Math.max(1, Math.round(delay)))
        v.revertTo[i] |= Revert.LINK
        v.eventNo[i]++
        touched.push(i)
      }
      refreshState(ctx, i, t)
    }
    this.finishMutation(ctx, touched)
  }

  /**
   * Applies a scenario action to one agent now (admin override), e.g. `offline` for 300 s.
   * Accepts the actions a stage can take, by their scenario names.
   */
  overrideAgent(i: number, action: OverrideAction, forSeconds = 0): Promise<void> {
    return this.exclusive(() => {
      const ctx = this.mutationContext()
      const t = this.steppedTo
      advanceCounters(this.program, this.v, i, t)
      applyAction(ctx, i, t, { kind: OVERRIDE_ACTIONS[action], arg: -1, moduleSlots: null, forSeconds: Math.max(0, Math.round(forSeconds)) })
      this.finishMutation(ctx, [i])
    })
  }

  /** Forces the next reconnect of agent i to fail (admin control). */
  failNextReconnect(i: number): Promise<void> {
    return this.exclusive(() => {
      this.v.flags[i] |= Flag.FAIL_NEXT_RECONNECT
    })
  }

  // ---- scenario --------------------------------------------------------------------------------

  /** Whether agent i matches a main-thread selector; `withStates` false ignores its state. */
  private matchesMain(i: number, selector: MainSelector, withStates: boolean): boolean {
    const masks = withStates || selector.masks.states === 0 ? selector.masks : { ...selector.masks, states: 0 }
    if (!matches(this.v, i, masks, 0)) return false
    if (selector.names === null) return true
    const name = this.name(i)
    return selector.names.some((pattern) => pattern.test(name))
  }

  private candidates(selector: MainSelector, withStates: boolean): number[] {
    const found: number[] = []
    const masks = withStates ? selector.masks : { ...selector.masks, states: 0 }
    const statics: MainSelector = { masks, names: selector.names }
    for (let i = 0; i < this.used; i++) if ((this.v.flags[i] & Flag.EXISTS) !== 0 && this.matchesMain(i, statics, true)) found.push(i)
    return found
  }

  /**
   * Gives the starting fleet what the scenario says about it beyond the workers' draws:
   * labels, templates, which agents each stage and reconnect rule picked. Then arms stages.
   */
  private startScenario(runtime: ScenarioRuntime): void {
    const { compiled } = runtime
    const { fleet, stages, reconnect } = compiled.scenario
    const { v, seed } = this
    const labelNames = [...new Set(compiled.labels.map((l) => l.name))]
    const templateCumulative: number[] = []
    fleet.templates.reduce((sum, t) => (templateCumulative.push(sum + t.fraction), sum + t.fraction), 0)
    for (let i = 0; i < this.used; i++) {
      // One draw per label name: an agent carries at most one value of each label.
      labelNames.forEach((name, n) => {
        const u = hash32(seed, i, n, Stream.LABEL) / 4294967296
        let cumulative = 0
        compiled.labels.forEach((label, bit) => {
          if (label.name !== name) return
          const low = cumulative
          cumulative += fleet.labels[bit].fraction
          const selector = compiled.labelSelectors[bit]
          if (u >= low && u < cumulative && (selector === null || this.matchesMain(i, selector, false))) v.labelMask[i] |= 1 << bit
        })
      })
      const u = hash32(seed, i, 0, Stream.TEMPLATE) / 4294967296
      const k = templateCumulative.findIndex((c) => u < c)
      v.templateId[i] = k < 0 ? -1 : compiled.templateIds[k]
    }
    stages.forEach((stage, s) => {
      if (!compiled.program.stages[s].usesPickMask) return
      const picked = pickAgents(this.candidates(compiled.stageSelectors[s], false), stage.pick, seed, s, Stream.STAGE_PICK)
      for (const i of picked) v.stageMask[i] |= 1 << s
    })
    reconnect.failures.forEach((rule, k) => {
      if (rule.mode.kind === 'probability') return
      const pick = rule.mode.kind === 'count' ? { kind: 'count' as const, count: rule.mode.count } : { kind: 'fraction' as const, fraction: rule.mode.fraction }
      runtime.failureSets[k] = new Set(pickAgents(this.candidates(compiled.reconnectSelectors[k], false), pick, seed, 1000 + k, Stream.STAGE_PICK))
    })
    const ctx = this.mutationContext()
    const all: number[] = []
    for (let i = 0; i < this.used; i++) if ((v.flags[i] & Flag.EXISTS) !== 0) all.push(i)
    this.finishMutation(ctx, all)
  }

  /** Applies the timeline events due at second t (the fleet has been stepped to t). */
  private fireTimeline(t: number): void {
    const runtime = this.scenario
    if (runtime === undefined) return
    const { compiled } = runtime
    for (const occurrence of runtime.cursor.due(t)) {
      const event = compiled.scenario.timeline[occurrence.event]
      const action = compiled.timelineActions[occurrence.event]
      this.stats.timelineFired[event.name] = (this.stats.timelineFired[event.name] ?? 0) + 1
      if (action.kind === Action.MANAGER_RESTART) {
        this.applyLockout(true)
        if (action.forSeconds > 0) this.lockoutEndsAt = t + action.forSeconds
        continue
      }
      const key = occurrence.event * 65536 + occurrence.n
      if (action.kind === Action.JOIN) {
        this.joinAgents(event.pick.kind === 'count' ? event.pick.count : 0, t, event.spread, key)
        continue
      }
      const picked = pickAgents(this.candidates(compiled.timelineSelectors[occurrence.event], true), event.pick, this.seed, key, Stream.TIMELINE_PICK)
      const ctx = this.mutationContext()
      for (const i of picked) {
        const offset = event.spread > 0 ? Math.floor((hash32(this.seed, i, key, Stream.TIMELINE_SPREAD) / 4294967296) * event.spread) : 0
        if (offset === 0) {
          advanceCounters(this.program, this.v, i, t)
          applyAction(ctx, i, t, action)
        } else {
          // A rolling event reaches this agent later; the worker applies it then.
          this.v.timelineIdx[i] = occurrence.event
          this.v.timelineAt[i] = t + offset
        }
      }
      this.finishMutation(ctx, picked)
    }
  }

  /**
   * New agents installed by a timeline `join`: generated identities at the next free slots,
   * listed OFFLINE from now and reporting in at seeded offsets within `spread` seconds.
   */
  private joinAgents(count: number, t: number, spread: number, key: number): void {
    const ctx = this.mutationContext()
    const joined: number[] = []
    for (let k = 0; k < count && this.used < this.capacity; k++) {
      const i = this.used++
      const offset = Math.floor((hash32(this.seed, i, key, Stream.TIMELINE_SPREAD) / 4294967296) * spread)
      initAgent(ctx, i, { t, initial: false, joinAt: t + Math.max(1, offset) })
      this.existing++
      this.byState[this.v.state[i]]++
      this.fleetRate += this.runningRate(i)
      joined.push(i)
    }
    this.finishMutation(ctx, joined)
  }

  /** The running scenario and its progress, or undefined without one. */
  scenarioInfo(): ScenarioInfo | undefined {
    const runtime = this.scenario
    if (runtime === undefined) return undefined
    const { scenario } = runtime.compiled
    const next = runtime.cursor.nextAt()
    return {
      name: scenario.name,
      description: scenario.description,
      source: scenario.source,
      second: this.steppedTo,
      stages: scenario.stages.map((stage) => stage.name),
      timeline: scenario.timeline.map((event, k) => ({ name: event.name, fired: runtime.cursor.fired()[k] })),
      nextTimelineAt: next === Infinity ? null : next,
      lockedOut: this.lockout,
      reconnectFailureSets: runtime.failureSets.map((set) => (set === null ? null : [...set].map((i) => this.name(i))))
    }
  }

  /** The API fault rules of the running scenario (empty without one). */
  faultRules(): CompiledScenario['scenario']['faults'] {
    return this.scenario?.compiled.scenario.faults ?? []
  }

  // ---- whole-fleet ---------------------------------------------------------------------------

  /** A hash of the whole fleet state: equal digests mean equal fleets, bit for bit. */
  digest(): Promise<string> {
    return this.exclusive(() => {
      const hash = createHash('sha256')
      hash.update(JSON.stringify({ second: this.steppedTo, used: this.used, lockout: this.lockout }))
      for (const [name, buffer] of Object.entries(this.buffers)) {
        if (name === 'seq') continue
        const perAgent = buffer.byteLength / this.capacity
        hash.update(new Uint8Array(buffer, 0, perAgent * this.used))
      }
      const { names, uuids, configs } = this.overrides.entries()
      hash.update(JSON.stringify([names, uuids, configs]))
      return hash.digest('hex')
    })
  }

  /** Counts by scanning every agent: for tests that check the incremental counts. */
  scanCounts(): number[] {
    const counts = new Array(AGENT_STATES.length).fill(0)
    for (let i = 0; i < this.used; i++) if ((this.v.flags[i] & Flag.EXISTS) !== 0) counts[this.v.state[i]]++
    return counts
  }

  /**
   * Agents by mode and version, modules by status. These change rarely (API calls, upgrades,
   * crashes), so a pass over the fleet is cached for up to 10 s of wall time instead of being
   * repeated on every scrape; at a million agents the pass takes a few milliseconds.
   */
  composition(): FleetComposition {
    const now = performance.now()
    if (this.compositionCache !== undefined && now - this.compositionCache.at < COMPOSITION_MAX_AGE_MS) return this.compositionCache.value
    const modes = new Array(MODES.length).fill(0)
    const versions = new Array(this.program.versions.names.length).fill(0)
    const modules = new Array(MODULE_STATUSES.length).fill(0)
    const { v } = this
    for (let i = 0; i < this.used; i++) {
      if ((v.flags[i] & Flag.EXISTS) === 0) continue
      modes[v.mode[i]]++
      versions[v.versionIdx[i]]++
      for (let k = 0; k < v.moduleCount[i]; k++) modules[v.moduleStatus[i * MAX_MODULES + k]]++
    }
    const toRecord = (names: readonly string[], counts: number[]) => Object.fromEntries(names.map((name, k) => [name, counts[k]]))
    const value: FleetComposition = {
      byMode: toRecord(MODES, modes),
      byVersion: toRecord(this.program.versions.names, versions),
      modulesByStatus: toRecord(MODULE_STATUSES, modules),
      scanMs: performance.now() - now
    }
    this.compositionCache = { at: now, value }
    return value
  }

  /** How far the fleet lags behind the clock, in virtual seconds. */
  lagSeconds(): number {
    return Math.max(0, this.clock.elapsedMs() / 1000 - this.steppedTo)
  }

  /** Pool utilisation (0..1) and queued tasks, for metrics. */
  poolStats(): { utilization: number; queueSize: number; threads: number } {
    return { utilization: this.pool.utilization, queueSize: this.pool.queueSize, threads: this.pool.threads.length }
  }

  fleetInputRate(): number {
    return this.fleetRate
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.timer)
    for (const waiter of this.waiters.splice(0)) waiter.resolve()
    await this.lock
    await this.pool.destroy()
  }
}

export function createFleet(options: FleetOptions): Promise<FleetEngine> {
  return FleetEngine.create(options)
}
