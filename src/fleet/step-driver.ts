/**
 * The step driver: brings the fleet to the virtual clock. It owns the Piscina pool and the
 * shards it cuts the fleet into, and runs step rounds (one task per shard, in parallel) in
 * the fleet's queue of turns, so a round never overlaps a mutation. Rounds end exactly at the
 * fleet-wide moments the engine names (timeline events, the end of a lockout); the engine
 * applies those on the main thread before the next round.
 *
 * Who writes what: during a round the workers write the agents of their shards (layout.ts,
 * "Ownership"); this module writes the fleet's second, the census and the figures, on the
 * main thread, after every task of the round has returned.
 */
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import { TurnQueue } from '../lib/turn-queue.js'
import { MAX_TIMER_MS } from '../lib/wall-wait.js'
import { allocateBuffers, viewsOf, type FleetBuffers } from './layout.js'
import type { StepTally } from './lifecycle.js'
import { recoverShard, type ShardRange, type UndoArea } from './step.js'
import type { ClockState } from './clock.js'
import type { RoundHold } from './fleet-api.js'
import type { FleetCore } from './fleet-core.js'
import type { PoolRun, StepTask, StepTaskRunner } from './fleet-types.js'
import type { WorkerData, WorkerTask } from './worker.js'

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
 * How long a round that is due waits at most for the lists being made (holdRounds). A list kept
 * to be sent again must show one state of the fleet: one made across a round showed agents from
 * before it and after it, and could not be kept. At speed 600 rounds come every 40 ms, and a
 * list of 10,000 agents made under load often began while one was in flight or ran into the next
 * (bench/README.md, "Rounds wait for the lists being made").
 * Waiting this long at most, the fleet still moves on at least every 80 ms of wall time.
 */
const MAX_ROUND_HOLD_MS = 40
/**
 * Agents in a shard at least: every shard is a pool task per round, and handing a task over
 * and collecting its tally costs about as much as stepping thousands of agents, so a small
 * fleet steps as one task a round (bench/README.md, "Scale", has the measured rounds).
 * Larger fleets still get workers × 8 shards.
 */
const MIN_SHARD_AGENTS = 16_384

/** The worker entry next to this module, and how to load it from source (tsx, vitest). */
function workerEntry(): { filename: string; execArgv: string[]; env?: Record<string, string | undefined> } {
  const fromSource = fileURLToPath(import.meta.url).endsWith('.ts')
  return {
    filename: fileURLToPath(new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url)),
    // tsx resolved from this module, not from the working directory: the sources run from anywhere.
    execArgv: fromSource ? ['--import', import.meta.resolve('tsx')] : [],
    // tsx's cache left files open in the process after each worker ended, and every run (a reset,
    // a scenario loaded) starts new workers: a server run from source (`npm start`) held more open
    // files with every reset. Without the cache none is left open, and the workers start as fast.
    ...(fromSource ? { env: { ...process.env, TSX_DISABLE_CACHE: '1' } } : {})
  }
}

/** What the engine tells the driver about fleet-wide moments, which rounds must not step over. */
export interface RoundEdges {
  /** the next second at which the main thread must act (Infinity: none) */
  nextFleetWideAt(): number
  /** the fleet was just stepped to second `to`: applies what is due then */
  afterRound(to: number): void
}

export class StepDriver {
  private shards: ShardRange[] = []
  private undoBuffers!: FleetBuffers
  private undo!: UndoArea
  private pool!: Piscina<WorkerTask, StepTally>
  private readonly runStep: (task: StepTask) => Promise<StepTally>
  private timer: NodeJS.Timeout | undefined
  /** wall time (performance.now) the last round of the clock driver ended */
  private lastRoundEnd = -Infinity
  private closed = false
  private readonly waiters: Array<{ at: number; resolve: () => void }> = []
  private runNumber = 0
  /** lists being made that a round due waits for (holdRounds) */
  private holds = 0
  /** when the round due began to wait for them (performance.now); -1: none waits */
  private heldSince = -1
  /** the clock's catch-up running now (its rounds and their main-thread parts), until it ends; not an advance's, nor one queued */
  private stepping: Promise<void> | undefined
  /** advances in the order asked for: the next one starts when the one before has ended */
  private readonly advances = new TurnQueue()

  constructor(
    private readonly core: FleetCore,
    private readonly edges: RoundEdges,
    stepTask?: StepTaskRunner
  ) {
    const onPool: PoolRun = (task, filename) => this.pool.run(task, filename === undefined ? undefined : { filename })
    this.runStep = stepTask === undefined ? (task) => this.pool.run(task) : (task) => stepTask(task, onPool)
  }

  /**
   * Gets ready for a new run of the core: new shards when its memory was allocated anew, and
   * a new pool (workers receive the buffers and the program once: a new program needs new workers).
   */
  async restart(allocated: boolean): Promise<void> {
    const { capacity } = this.core
    if (allocated) {
      const shardSize = Math.max(MIN_SHARD_AGENTS, Math.ceil(capacity / (this.core.options.workers * 8)))
      this.shards = []
      for (let start = 0, shard = 0; start < capacity; start += shardSize, shard++) {
        this.shards.push({ shard, start, end: Math.min(capacity, start + shardSize) })
      }
      this.undoBuffers = allocateBuffers(this.shards.length)
      this.undo = { views: viewsOf(this.undoBuffers), agent: new Int32Array(new SharedArrayBuffer(4 * this.shards.length)) }
    }
    this.undo.agent.fill(-1)
    if (this.pool !== undefined) await this.pool.destroy()
    this.pool = this.createPool()
  }

  private createPool(): Piscina<WorkerTask, StepTally> {
    const { filename, execArgv, env } = workerEntry()
    const workerData: WorkerData = {
      buffers: this.core.buffers,
      undoBuffers: this.undoBuffers,
      undoAgent: this.undo.agent.buffer as SharedArrayBuffer,
      program: this.core.program
    }
    return new Piscina<WorkerTask, StepTally>({
      filename,
      execArgv,
      ...(env === undefined ? {} : { env }),
      workerData,
      minThreads: this.core.options.workers,
      maxThreads: this.core.options.workers,
      idleTimeout: 60_000
    })
  }

  /** Brings agents [0, agents) of the starting fleet to life at second 0, then counts them. */
  async build(agents: number): Promise<void> {
    const tallies = await Promise.all(
      this.shards
        .filter((range) => range.start < agents)
        .map((range) => this.pool.run({ kind: 'init', range: { ...range, end: Math.min(range.end, agents) }, t: 0, lockout: false }))
    )
    for (const tally of tallies) this.core.census.absorb(tally)
    // The starting counts and the fleet's input rate come from one pass; afterwards every
    // change arrives as a tally.
    this.core.census.recount(this.core)
  }

  /** Steps the fleet until it has caught up with the clock, then sleeps until the next second. */
  schedule(): void {
    if (this.closed) return
    clearTimeout(this.timer)
    const { clock, steppedTo } = this.core
    const target = Math.floor(clock.elapsedMs() / 1000)
    if (target > steppedTo) {
      const early = MIN_ROUND_INTERVAL_MS - (performance.now() - this.lastRoundEnd)
      if (early > 0) {
        this.timer = setTimeout(() => this.schedule(), Math.ceil(early))
        return
      }
      if (this.holds > 0) {
        const now = performance.now()
        if (this.heldSince < 0) this.heldSince = now
        const left = MAX_ROUND_HOLD_MS - (now - this.heldSince)
        if (left > 0) {
          this.timer = setTimeout(() => this.schedule(), Math.ceil(left))
          return
        }
      }
      this.heldSince = -1
      void this.catchUp(true)
        .then(() => (this.lastRoundEnd = performance.now()))
        .then(() => this.schedule())
      return
    }
    const wait = clock.wallMsUntil((steppedTo + 1) * 1000)
    // At most a timer's longest wait: Node takes a longer one as 1 ms, which at a speed below
    // about 5e-7 (a virtual second past 24.8 days) ran this every millisecond, warning each time.
    if (wait !== Infinity) this.timer = setTimeout(() => this.schedule(), Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(wait))))
  }

  /**
   * Holds the rounds of the clock while a list is made, so that it shows one state of the fleet:
   * no round starts until the release is called, or until MAX_ROUND_HOLD_MS after one is due.
   * `ready` resolves once the clock's rounds in flight (which a hold cannot stop) have ended: the
   * list is to be made from then. `advance` is never held nor waited for: a list asked for during
   * an advance of days is made at once, and shows the fleet as the advance moves it (not kept).
   */
  holdRounds(): RoundHold {
    this.holds++
    let released = false
    return {
      // Resolved when the catch-up ends, even if a round failed (markStepping).
      ready: this.stepping ?? Promise.resolve(),
      release: () => {
        if (released) return
        released = true
        this.holds--
        // A round waiting for the lists goes now.
        if (this.holds === 0 && this.heldSince >= 0) this.schedule()
      }
    }
  }

  /**
   * Steps to the clock. Not `exclusive`: the revision stays even while workers step, as their
   * writes move the agents' own revisions; it moves on after each round's main-thread part.
   */
  private catchUp(forClock = false): Promise<void> {
    const core = this.core
    return core.turns
      .run(async () => {
        // The clock's catch-up is what a list's hold waits for (holdRounds) from when it starts,
        // not while it is queued: behind an advance of days it would be waited for with it.
        const ended = forClock ? this.markStepping() : undefined
        try {
          // The clock as it is now: time passing during the rounds is the next catch-up's.
          const target = Math.floor(core.clock.elapsedMs() / 1000)
          for (;;) {
            if (target <= core.steppedTo || this.closed) return
            // Rounds end exactly at fleet-wide moments, which the main thread then applies
            // before the next round.
            const fleetWide = this.edges.nextFleetWideAt()
            const to = Math.min(target, core.steppedTo + MAX_CHUNK_SECONDS, Math.max(fleetWide, core.steppedTo + 1))
            await this.round(to)
            this.edges.afterRound(to)
            core.changes += 2
          }
        } finally {
          ended?.()
        }
      })
      .catch((error: unknown) => {
        if (!this.closed) throw error
      })
  }

  /** Notes the clock's catch-up as in flight (`stepping`); returns what to call once it has ended. */
  private markStepping(): () => void {
    let end!: () => void
    const stepping = new Promise<void>((resolve) => (end = resolve))
    this.stepping = stepping
    return () => {
      if (this.stepping === stepping) this.stepping = undefined
      end()
    }
  }

  /** One step round: every shard to virtual second `to`, in parallel. */
  private async round(to: number): Promise<void> {
    const core = this.core
    const started = performance.now()
    const lockout = core.lockout
    const restartsBefore = core.stats.workerRestarts
    const tallies = await Promise.all(this.shards.filter((r) => r.start < core.used).map((range) => this.stepRange(range, to, lockout)))
    for (const tally of tallies) core.census.absorb(tally)
    // The tally of the work a dead worker did is lost: a full pass replaces the counts.
    if (core.stats.workerRestarts !== restartsBefore) core.census.recount(core)
    core.stats.eventsReceived += core.census.fleetRate * (to - core.steppedTo)
    core.steppedTo = to
    core.stats.stepRounds++
    core.stats.lastRoundMs = performance.now() - started
    this.releaseWaiters()
  }

  private async stepRange(range: ShardRange, to: number, lockout: boolean): Promise<StepTally> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.runStep({ kind: 'step', range, to, lockout })
      } catch (error) {
        // A worker died mid-task: restore the agent it was writing and step the shard again
        // on a fresh worker (piscina replaces dead workers). Finished agents are skipped.
        if (this.closed || attempt >= 3) throw error
        recoverShard(this.core.v, this.undo, range)
        this.core.stats.workerRestarts++
      }
    }
  }

  /**
   * The run the fleet is in: a reset starts a new one (newRun), at its scenario's start. A
   * second of the run before names nothing in the new one.
   */
  get run(): number {
    return this.runNumber
  }

  /**
   * A reset rebuilt the fleet (FleetEngine.reset): whoever waited for a second of the run before
   * is let go now, as the new run may never reach that second (an advance of 30 days in flight
   * during a reset waited for good, and its request with it).
   */
  newRun(): void {
    this.runNumber++
    for (const waiter of this.waiters.splice(0)) waiter.resolve()
  }

  /** Resolves whoever waits for a second the fleet has reached. */
  releaseWaiters(): void {
    for (let k = this.waiters.length - 1; k >= 0; k--) {
      if (this.waiters[k].at <= this.core.steppedTo) {
        this.waiters[k].resolve()
        this.waiters.splice(k, 1)
      }
    }
  }

  /**
   * Resolves once the fleet has been stepped to virtual second `at` of run `run` (the current
   * one unless said), or at once if a reset has started another run since (newRun).
   */
  until(at: number, run = this.runNumber): Promise<void> {
    if (run !== this.runNumber || at <= this.core.steppedTo) return Promise.resolve()
    return new Promise((resolve) => {
      this.waiters.push({ at, resolve })
      this.schedule()
    })
  }

  setClock(change: { paused?: boolean; speed?: number }): ClockState {
    const { clock } = this.core
    if (change.speed !== undefined) clock.setSpeed(change.speed)
    if (change.paused !== undefined) clock.setPaused(change.paused)
    this.schedule()
    return clock.state()
  }

  /**
   * Resolves once the fleet has been stepped to the clock as it stands, the round in flight
   * ended: after a pause, the fleet holds still from then on but for the API's changes. A pause
   * answered before that let a round in flight, and the catch-up to the paused second, change
   * agents after the answer.
   */
  async settle(): Promise<ClockState> {
    await this.catchUp()
    return this.core.clock.state()
  }

  /**
   * Moves the clock forward by exactly `seconds` and resolves once the fleet has been stepped there.
   * Advances asked for while one is under way follow it, each from where the one before left the
   * fleet: two of 10 days are 20 days whenever the second comes. Each used to start from the
   * fleet's second when it was asked for, which lagged behind the first's target by however far
   * that one had got, so the clock ended anywhere from 10 to 20 days on, and the run with it.
   */
  async advance(seconds: number): Promise<ClockState> {
    if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError(`seconds must be a non-negative integer, got ${seconds}`)
    return this.advances.run(() => this.advanceNow(seconds))
  }

  private async advanceNow(seconds: number): Promise<ClockState> {
    const run = this.runNumber
    // Advance from the fleet's own second, so that the outcome does not depend on how much
    // wall time passed before the call while paused.
    const target = this.core.steppedTo + seconds
    this.core.clock.advance(Math.max(0, target * 1000 - this.core.clock.elapsedMs()))
    await this.catchUp()
    await this.until(target, run)
    return this.core.clock.state()
  }

  /** How far the fleet lags behind the clock, in virtual seconds. */
  lagSeconds(): number {
    return Math.max(0, this.core.clock.elapsedMs() / 1000 - this.core.steppedTo)
  }

  /** Pool utilisation (0..1) and queued tasks, for metrics. */
  poolStats(): { utilization: number; queueSize: number; threads: number } {
    return { utilization: this.pool.utilization, queueSize: this.pool.queueSize, threads: this.pool.threads.length }
  }

  /** Stops stepping, lets waiters go, waits for the turn in flight, then ends the workers. */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.timer)
    for (const waiter of this.waiters.splice(0)) waiter.resolve()
    await this.core.turns.settled()
    await this.pool.destroy()
  }
}
