/**
 * The fleet engine: the facade's Fleet seam and the admin's controls, composed of parts that
 * each hold one concept and share one core (fleet-core.ts):
 *
 *   step-driver.ts      the pool, the shards, step rounds to the virtual clock
 *   reads.ts            find agents; name, UUID, configuration, view
 *   mutations.ts        API and admin changes, the manager lockout
 *   scenario-runtime.ts labels, picks, timeline events and reconnect rules of a scenario
 *   census.ts           counts by state, input rate, composition
 *   snapshot.ts         the whole fleet as bytes: snapshot, resume, digest
 *
 * This class says which part runs in which turn. Two kinds of work touch agents, and they
 * never overlap (see layout.ts, "Ownership"): step rounds (workers, one task per shard) and
 * mutations (main thread). Both take turns in one queue (src/lib/turn-queue.ts), so a mutation waits
 * for the step round in flight, runs alone, and the next round sees its result. That is also
 * what makes a run reproducible: mutations land between rounds, at the fleet's current
 * virtual second. Reads take no turn: they are called on every request and go straight to
 * the core.
 */
import { availableParallelism } from 'node:os'
import { defaultProgram, type FleetProgram } from './program.js'
import { Identity } from './identity.js'
import type { ClockState, VirtualClock } from './clock.js'
import { FleetCore, defaultHeadroom, type FilledOptions } from './fleet-core.js'
import { StepDriver } from './step-driver.js'
import { scanCounts } from './census.js'
import { queryAgents, type AgentQuery, type AgentQueryResult } from './agent-query.js'
import { AgentCursor, agentByCertFingerprint, agentByName, agentByUuid, agentConfig, agentName, agentUuid, existingAgents, figuresOf, polledAt, rejoiningByName, viewOf } from './reads.js'
import { moduleHeadOf } from './agent-view.js'
import * as mutations from './mutations.js'
import { ScenarioRuntime } from './scenario-runtime.js'
import { DEFAULT_STATUS_POLL_SECONDS } from './status-poll.js'
import { fleetDigest, resume, takeSnapshot } from './snapshot.js'
import type { CompiledScenario } from './scenario-program.js'
import type { ReconnectOperation } from '../scenario/types.js'
import type { AgentStateName } from '../protocol/states.js'
import type { AgentConfig, AgentView, BatchOutcome, Fleet, FleetCounts, GeneratedIdentity, IndexCursor, ModuleHead, NewAgent, RoundHold } from './fleet-api.js'
import { DEFAULT_JOIN_DELAY, RECONNECT_WAIT_SECONDS, type EngineSnapshot, type FleetComposition, type FleetObservation, type FleetOptions, type FleetStats, type JoinDelay, type OverrideAction, type ScenarioInfo } from './fleet-types.js'
import { GeneratedIdentityWriter } from './generated-identity.js'
import { Link } from './layout.js'

export * from './fleet-types.js'
export type { AgentQuery, AgentQueryResult } from './agent-query.js'

export class FleetEngine implements Fleet, FleetObservation {
  readonly stats: FleetStats
  private readonly core: FleetCore
  private readonly driver: StepDriver
  private readonly generated: GeneratedIdentityWriter
  private scenario: ScenarioRuntime | undefined
  /** the end of the reset rebuilding the fleet, while one is (resetting) */
  private rebuilding: Promise<void> | undefined

  private constructor(options: FilledOptions, stepTask?: FleetOptions['stepTask']) {
    const core = new FleetCore(options)
    this.core = core
    this.generated = new GeneratedIdentityWriter(core)
    this.stats = core.stats
    this.driver = new StepDriver(
      core,
      {
        // Rounds end exactly at timeline events and at the end of a lockout...
        nextFleetWideAt: () => Math.min(this.scenario?.cursor.nextAt() ?? Infinity, core.lockoutEndsAt),
        // ...which the main thread applies before the next round.
        afterRound: (to) => {
          if (core.lockoutEndsAt <= to) mutations.applyLockout(core, false)
          this.scenario?.fireTimeline(to)
        }
      },
      stepTask
    )
  }

  /** Continues a saved run (see snapshot()); `scenario` is the saved scenario, compiled again. */
  static async restore(saved: EngineSnapshot, options: Pick<FleetOptions, 'workers' | 'caFingerprint' | 'headroom' | 'joinDelay' | 'statusPoll'> & { scenario?: CompiledScenario }): Promise<FleetEngine> {
    const engine = new FleetEngine({
      agents: saved.initialAgents,
      seed: saved.seed,
      workers: Math.max(1, options.workers ?? availableParallelism()),
      speed: saved.speed,
      startTime: saved.startTime,
      paused: saved.paused,
      caFingerprint: options.caFingerprint,
      headroom: restoredHeadroom(saved, options.headroom),
      joinDelay: checkedJoinDelay(options.joinDelay),
      statusPoll: checkedStatusPoll(options.statusPoll)
    })
    await engine.setup(options.scenario, undefined, saved)
    engine.driver.schedule()
    return engine
  }

  static async create(options: FleetOptions): Promise<FleetEngine> {
    if (!Number.isInteger(options.agents) || options.agents < 0) throw new RangeError(`agents must be a non-negative integer, got ${options.agents}`)
    const engine = new FleetEngine(
      {
        agents: options.agents,
        seed: options.seed,
        workers: Math.max(1, options.workers ?? availableParallelism()),
        speed: options.speed ?? 1,
        startTime: options.startTime ?? Date.now(),
        paused: options.paused ?? false,
        caFingerprint: options.caFingerprint,
        headroom: options.headroom,
        joinDelay: checkedJoinDelay(options.joinDelay),
        statusPoll: checkedStatusPoll(options.statusPoll)
      },
      options.stepTask
    )
    await engine.setup(options.scenario, options.program, undefined, options.startEmpty === true ? 0 : undefined)
    engine.driver.schedule()
    return engine
  }

  /**
   * Builds the fleet from scratch at virtual second 0: from the scenario when there is one
   * (its size and seed win), else from the options and the default program (`agentsNow`
   * agents instead of the options' when given: FleetOptions.startEmpty); or puts a saved fleet back.
   */
  private async setup(scenario: CompiledScenario | undefined, program?: FleetProgram, saved?: EngineSnapshot, agentsNow?: number): Promise<void> {
    const { core } = this
    const agents = saved?.initialAgents ?? scenario?.scenario.fleet.agents ?? agentsNow ?? core.options.agents
    const seed = saved?.seed ?? scenario?.program.seed ?? core.options.seed
    const allocated = core.begin(agents, seed, scenario?.program ?? program ?? defaultProgram(seed, core.options.startTime))
    await this.driver.restart(allocated)
    this.scenario = scenario === undefined ? undefined : new ScenarioRuntime(scenario, core)
    if (saved !== undefined) {
      resume(core, this.scenario, saved)
      return
    }
    await this.driver.build(agents)
    if (this.scenario !== undefined) {
      this.scenario.start()
      this.scenario.fireTimeline(0)
    }
  }

  /**
   * Everything needed to continue this run elsewhere: the agents' bytes, the sparse data, the
   * clock and the scenario's progress. Taken between step rounds, so it is consistent.
   */
  snapshot(): Promise<EngineSnapshot> {
    return this.core.exclusive(() => takeSnapshot(this.core, this.scenario))
  }

  /**
   * snapshot(), and what `alongside` takes of what is kept next to the fleet (the manager's
   * state), in the same turn: no change of the fleet, a reset in particular, comes between them.
   */
  snapshotWith<T>(alongside: () => T): Promise<{ engine: EngineSnapshot; alongside: T }> {
    return this.core.exclusive(() => ({ engine: takeSnapshot(this.core, this.scenario), alongside: alongside() }))
  }

  /**
   * Whether the run reset(scenario) would start may give an agent this name by itself: one of
   * the agents it starts with, or, where its timeline has a `join`, one joining at the next free
   * places (up to the fleet's room for added agents). Their names are drawn from the run's seed
   * (identity.ts), so that what is kept across runs, the manager's templates, can be checked
   * against them before the reset.
   */
  startsWithName(scenario?: CompiledScenario | null): (name: string) => boolean {
    const next = this.nextScenario(scenario)
    const agents = next?.scenario.fleet.agents ?? this.core.options.agents
    const joins = next?.scenario.timeline.some((event) => event.action.type === 'join') === true
    const named = joins ? agents + (this.core.options.headroom ?? defaultHeadroom(agents)) : agents
    const identity = new Identity(next?.program.seed ?? this.core.options.seed)
    return (name) => {
      const index = identity.indexOfName(name)
      return index !== undefined && index < named
    }
  }

  /** Rebuilds the fleet at its scenario's start (the same scenario, or a new one). */
  reset(scenario?: CompiledScenario | null): Promise<void> {
    let ended = () => {}
    return this.core
      .exclusive(async () => {
        // From here the fleet is rebuilt: reads that wait for resetting() see it whole.
        this.rebuilding = new Promise<void>((resolve) => (ended = resolve))
        await this.setup(this.nextScenario(scenario))
        this.driver.newRun()
      })
      .finally(() => {
        this.rebuilding = undefined
        ended()
        this.driver.schedule()
      })
  }

  /**
   * While a reset rebuilds the fleet (from its turn's start to its end), a promise that resolves
   * (never rejects) when it ends; else undefined. Reads go straight to the fleet, and a fleet
   * being rebuilt has none, then some of its agents: a reader that waits for this sees the old
   * fleet or the new one. A reset still queued behind other turns leaves the old fleet whole.
   */
  resetting(): Promise<void> | undefined {
    return this.rebuilding
  }

  /** The scenario reset(scenario) runs: a new one, none (null: the default fleet), or the running one (undefined). */
  private nextScenario(scenario: CompiledScenario | null | undefined): CompiledScenario | undefined {
    return scenario === null ? undefined : (scenario ?? this.scenario?.compiled)
  }

  // ---- clock -------------------------------------------------------------------------------

  /** the current run's virtual clock (replaced by reset) */
  get clock(): VirtualClock {
    return this.core.clock
  }

  /** the current run's identities of generated agents (replaced by reset) */
  get identity(): Identity {
    return this.core.identity
  }

  /** agent slots allocated */
  get capacity(): number {
    return this.core.capacity
  }

  get run(): number {
    return this.core.runs
  }

  onNewRun(listener: () => void): void {
    this.core.onNewRun(listener)
  }

  clockState(): ClockState {
    return this.core.clock.state()
  }

  /**
   * Changes the clock's speed or pauses or resumes it. A pause resolves once the fleet stands at
   * the paused clock's second, every step round ended, so that the reads after it see a fleet
   * that holds still; a resume or a speed at once.
   */
  async setClock(change: { paused?: boolean; speed?: number }): Promise<ClockState> {
    const state = this.driver.setClock(change)
    return change.paused === true ? this.driver.settle() : state
  }

  /** Moves the clock forward by exactly `seconds` and resolves once the fleet has been stepped there. */
  advance(seconds: number): Promise<ClockState> {
    return this.driver.advance(seconds)
  }

  // ---- reading (every request: straight to the core, no turn) -----------------------------

  now(): number {
    return this.core.options.startTime + this.core.steppedTo * 1000
  }

  /** the virtual second the fleet has been stepped to */
  second(): number {
    return this.core.steppedTo
  }

  size(): number {
    return this.core.census.existing
  }

  exists(i: number): boolean {
    return this.core.exists(i)
  }

  counts(): FleetCounts {
    return this.core.census.counts()
  }

  connectedCount(): number {
    return this.core.census.connectedCount()
  }

  findByName(name: string): number | undefined {
    return agentByName(this.core, name)
  }

  findRejoining(name: string): number | undefined {
    return rejoiningByName(this.core, name)
  }

  findByUuid(uuid: string): number | undefined {
    return agentByUuid(this.core, uuid)
  }

  findByCertFingerprint(fingerprint: string): number | undefined {
    return agentByCertFingerprint(this.core, fingerprint)
  }

  indices(states?: ReadonlySet<AgentStateName>): Iterable<number> {
    return existingAgents(this.core, states)
  }

  cursor(states?: ReadonlySet<AgentStateName>): IndexCursor {
    return new AgentCursor(this.core, states)
  }

  name(i: number): string {
    return agentName(this.core, i)
  }

  uuid(i: number): string {
    return agentUuid(this.core, i)
  }

  config(i: number): AgentConfig {
    return agentConfig(this.core, i)
  }

  revision(): number {
    return this.core.changes
  }

  agentRevision(i: number): number {
    return Atomics.load(this.core.v.seq, i)
  }

  identityRevision(): number {
    return this.core.overrides.revision
  }

  polledAt(i: number): number {
    return polledAt(this.core, i)
  }

  fleetRevision(): number | undefined {
    const { seq } = this.core.v
    let sum = 0
    for (let i = 0; i < this.core.used; i++) {
      const revision = Atomics.load(seq, i)
      if ((revision & 1) === 1) return undefined
      sum += revision
    }
    return sum
  }

  view(i: number, withModules: boolean, keepIdentity = true, figures?: Float64Array): AgentView {
    return viewOf(this.core, i, withModules, keepIdentity, figures)
  }

  figures(i: number, out: Float64Array, modules?: Float64Array): void {
    figuresOf(this.core, i, out, modules)
  }

  moduleHead(set: number, k: number): ModuleHead {
    return moduleHeadOf(this.core.program, set, k)
  }

  generatedIdentity(i: number): GeneratedIdentity | undefined {
    return this.generated.of(i)
  }

  /** Agents matching a filter, a page of them: see agent-query.ts. */
  queryAgents(query: AgentQuery): AgentQueryResult {
    return queryAgents(this.core, query)
  }

  /** The OS names agents of this run report. */
  osNames(): readonly string[] {
    return this.core.program.os.names
  }

  /** The master template id the fleet has for agent i (-1: none), as scenario selectors see it. */
  templateOf(i: number): number {
    return this.core.v.templateId[i]
  }

  /** The running scenario's labels (a label's bit in the mask is its position), empty without a scenario. */
  scenarioLabels(): ReadonlyArray<{ name: string; value: string }> {
    return this.scenario?.compiled.labels ?? []
  }

  /** The scenario labels agent i carries. */
  scenarioLabelsOf(i: number): Array<{ name: string; value: string }> {
    const mask = this.core.v.labelMask[i]
    return this.scenarioLabels().filter((_label, bit) => (mask & (1 << bit)) !== 0)
  }

  // ---- mutations (each in an exclusive turn) -----------------------------------------------

  addAgent(agent: NewAgent): Promise<number> {
    return this.core.exclusive(() => mutations.addAgent(this.core, agent))
  }

  // Indices name agents of one run (Fleet.run): a mutation whose run ended before its turn acts
  // on none of them (see Fleet, "Mutations").

  modifyAgent(i: number, name: string, config: AgentConfig): Promise<void> {
    return this.inRun(this.core.runs, () => mutations.modifyAgent(this.core, i, name, config), () => undefined)
  }

  deleteAgents(indices: number[], revokeCert: boolean): Promise<void> {
    return this.inRun(this.core.runs, () => mutations.deleteAgents(this.core, indices, revokeCert), () => undefined)
  }

  stopAgents(indices: number[]): Promise<BatchOutcome> {
    return this.inRun(this.core.runs, () => mutations.stopAgents(this.core, indices), () => goneWithRun(indices))
  }

  startAgents(indices: number[]): Promise<BatchOutcome> {
    return this.inRun(this.core.runs, () => mutations.startAgents(this.core, indices), () => goneWithRun(indices))
  }

  async reconnectAgents(indices: number[], operation?: ReconnectOperation, run = this.core.runs): Promise<BatchOutcome> {
    const sent = await this.inRun(
      run,
      () => ({ ...mutations.reconnectAgents(this.core, this.scenario, indices, operation), steps: this.driver.run }),
      () => undefined
    )
    if (sent === undefined) return goneWithRun(indices)
    // The manager waits for the agents to come back, up to the reconnect wait, in virtual time
    // (not past a reset: the agents waited for are gone with their run).
    await this.driver.until(sent.waitUntil, sent.steps)
    return this.cameBack(sent.outcome, run)
  }

  /**
   * The agents that reconnected, as the wait for them ended: one deleted meanwhile, or sent away
   * for good (a `leave` override), did not come back, and is reported failed, as the manager
   * reports an agent it waited for in vain. After a reset every agent is gone with its run.
   */
  private cameBack(outcome: BatchOutcome, run: number): BatchOutcome {
    const core = this.core
    if (core.runs !== run) return goneWithRun([...outcome.ok, ...outcome.failed.map((failure) => failure.index)])
    const result: BatchOutcome = { ok: [], failed: [...outcome.failed] }
    for (const i of outcome.ok) {
      if (!core.exists(i)) result.failed.push({ index: i, reason: 'agent no longer exists: it was deleted while the manager waited for it to reconnect' })
      else if (core.v.link[i] === Link.STUCK) result.failed.push({ index: i, reason: `agent did not reconnect within ${RECONNECT_WAIT_SECONDS} seconds` })
      else result.ok.push(i)
    }
    return result
  }

  setTemplate(indices: number[], templateId: number, run = this.core.runs): Promise<void> {
    return this.inRun(run, () => mutations.setTemplate(this.core, indices, templateId), () => undefined)
  }

  /** `change` in the fleet's turn if run `run` is still the fleet's then (see Fleet, "Mutations"), else `gone`. */
  private inRun<T>(run: number, change: () => T, gone: () => T): Promise<T> {
    return this.core.exclusive(() => (run === this.core.runs ? change() : gone()))
  }

  /** A manager restart: every agent is locked out until the agentmanager operation is called. */
  managerRestart(): Promise<void> {
    return this.core.exclusive(() => mutations.applyLockout(this.core, true))
  }

  /** agentmanager was called: the manager's private key is unlocked, agents reconnect. */
  managerLogin(): Promise<void> {
    return this.core.lockout ? this.core.exclusive(() => mutations.applyLockout(this.core, false)) : Promise.resolve()
  }

  get lockedOut(): boolean {
    return this.core.lockout
  }

  /**
   * Applies a scenario action to one agent now (admin override), e.g. `offline` for 300 s.
   * Accepts the actions a stage can take, by their scenario names.
   */
  overrideAgent(i: number, action: OverrideAction, forSeconds = 0): Promise<void> {
    return this.inRun(this.core.runs, () => mutations.overrideAgent(this.core, i, action, forSeconds), () => undefined)
  }

  /** Forces the next reconnect of agent i to fail (admin control). */
  failNextReconnect(i: number): Promise<void> {
    return this.inRun(this.core.runs, () => mutations.failNextReconnect(this.core, i), () => undefined)
  }

  // ---- scenario ------------------------------------------------------------------------------

  /**
   * The running scenario and its progress, or undefined without one. It works out which agents
   * each reconnect rule would fail now, over the whole fleet (tens of ms at a million agents):
   * for the admin API; what reads it often takes scenarioSummary or scenarioTimeline.
   */
  scenarioInfo(): ScenarioInfo | undefined {
    return this.scenario?.info()
  }

  /** The running scenario's name, description and stages, or undefined without one: cheap, for the metrics and the log, which read it every second, and the console. */
  scenarioSummary(): { name: string; description: string; stages: string[] } | undefined {
    const scenario = this.scenario?.compiled.scenario
    return scenario === undefined ? undefined : { name: scenario.name, description: scenario.description, stages: scenario.stages.map((stage) => stage.name) }
  }

  /**
   * The running scenario's name, its timeline events (each with its schedule), how many times
   * each has fired so far and the second of the next occurrence (Infinity: none left), or
   * undefined without a scenario. Cheap, unlike scenarioInfo(), which works out the reconnect
   * rules' agents over the whole fleet: for live views that read it several times a second (the
   * console) and for `run`, which reads it between chunks.
   */
  scenarioTimeline(): { name: string; events: CompiledScenario['scenario']['timeline']; fired: readonly number[]; nextAt: number } | undefined {
    const scenario = this.scenario
    return scenario === undefined
      ? undefined
      : { name: scenario.name, events: scenario.compiled.scenario.timeline, fired: scenario.cursor.fired(), nextAt: scenario.cursor.nextAt() }
  }

  /** The API fault rules of the running scenario (empty without one). */
  faultRules(): CompiledScenario['scenario']['faults'] {
    return this.scenario?.faultRules() ?? []
  }

  // ---- whole fleet ---------------------------------------------------------------------------

  /** A hash of the whole fleet state: equal digests mean equal fleets, bit for bit. */
  digest(): Promise<string> {
    return this.core.exclusive(() => fleetDigest(this.core))
  }

  /** Counts by scanning every agent: for tests that check the incremental counts. */
  scanCounts(): number[] {
    return scanCounts(this.core)
  }

  /** Agents by mode and version, modules by status (a cached pass, see Census.composition). */
  composition(): FleetComposition {
    return this.core.census.composition(this.core)
  }

  holdRounds(): RoundHold {
    return this.driver.holdRounds()
  }

  /** How far the fleet lags behind the clock, in virtual seconds. */
  lagSeconds(): number {
    return this.driver.lagSeconds()
  }

  /** Pool utilisation (0..1) and queued tasks, for metrics. */
  poolStats(): { utilization: number; queueSize: number; threads: number } {
    return this.driver.poolStats()
  }

  fleetInputRate(): number {
    return this.core.census.fleetRate
  }

  close(): Promise<void> {
    return this.driver.close()
  }
}

/** The outcome of a batch whose run ended before its turn: its agents are gone with the run. */
function goneWithRun(indices: readonly number[]): BatchOutcome {
  return { ok: [], failed: indices.map((index) => ({ index, reason: 'agent no longer exists: the fleet was reset' })) }
}

/** The join delay of the options, or the default; a range of whole seconds from min up to max. */
function checkedStatusPoll(statusPoll: number | undefined): number {
  if (statusPoll === undefined) return DEFAULT_STATUS_POLL_SECONDS
  if (!Number.isInteger(statusPoll) || statusPoll < 0) throw new RangeError(`statusPoll must be whole seconds, 0 or more, got ${statusPoll}`)
  return statusPoll
}

function checkedJoinDelay(joinDelay: JoinDelay | undefined): JoinDelay {
  if (joinDelay === undefined) return DEFAULT_JOIN_DELAY
  const { min, max } = joinDelay
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || max < min) {
    throw new RangeError(`joinDelay must be whole seconds with 0 <= min <= max, got ${JSON.stringify(joinDelay)}`)
  }
  return Object.freeze({ min, max })
}

/**
 * The room of a resumed run for agents added through the API: `headroom` if given, but never
 * less than the saved run added (a lower value never makes a state unreadable); else those and
 * 5 % of the agents at start more, at least 1,000.
 */
function restoredHeadroom(saved: EngineSnapshot, headroom: number | undefined): number {
  const added = saved.used - saved.initialAgents
  return headroom === undefined ? Math.max(1000, added + Math.ceil(saved.initialAgents * 0.05)) : Math.max(headroom, added)
}

export function createFleet(options: FleetOptions): Promise<FleetEngine> {
  return FleetEngine.create(options)
}
