/**
 * The engine's public shapes: its options, the figures it reports, the saved form of a run
 * and the admin overrides. Kept apart from fleet.ts so that readers of those shapes (metrics,
 * admin, state files) need not read the engine.
 */
import { AGENT_STATES } from '../protocol/states.js'
import { Action, type FleetProgram } from './program.js'
import type { FieldName } from './layout.js'
import type { CompiledScenario } from './scenario-program.js'
import type { Scenario } from '../scenario/types.js'
import type { ClockState } from './clock.js'
import type { AgentConfig, FleetCounts } from './fleet-api.js'
import type { StepTally } from './lifecycle.js'
import type { WorkerTask } from './worker.js'

/** The reconnect wait the spec states: an agent not back within it has failed to reconnect. */
export const RECONNECT_WAIT_SECONDS = 10

/**
 * How long an agent added through the API (addagent) takes to report in: whole virtual
 * seconds, drawn for each agent uniformly from [min, max] (min = max: always that long; 0: at
 * once). Until then it is listed OFFLINE and commands that need a connection refuse it.
 */
export interface JoinDelay {
  readonly min: number
  readonly max: number
}

/**
 * 2 to 9 seconds, as added agents have always reported in: the draw is 2 + floor(u · 8) with
 * the agent's JOIN_DELAY draw u, so runs that add agents keep their digests.
 */
export const DEFAULT_JOIN_DELAY: JoinDelay = Object.freeze({ min: 2, max: 9 })

export interface FleetOptions {
  agents: number
  seed: number
  /** worker threads; default: the machine's available parallelism */
  workers?: number
  speed?: number
  /** virtual epoch in epoch ms (default: now) */
  startTime?: number
  paused?: boolean
  /** fingerprint of the CA, reported in every agent's configuration */
  caFingerprint: string
  /** the compiled program; default: the default fleet for the seed (ignored with a scenario) */
  program?: FleetProgram
  /** a compiled scenario: its fleet size and seed replace `agents` and `seed` */
  scenario?: CompiledScenario
  /**
   * build no agent now (a scenario is loaded next with reset); `agents` and `seed` remain the
   * fleet a reset without a scenario builds (DELETE /__admin/scenario)
   */
  startEmpty?: boolean
  /** extra slots for agents added through the API (default: 5% of agents, at least 1,000) */
  headroom?: number
  /** how long agents added through the API take to report in (default DEFAULT_JOIN_DELAY) */
  joinDelay?: JoinDelay
  /** virtual seconds between two status polls of an agent (status-poll.ts; default 60, 0: live) */
  statusPoll?: number
  /** how each step task reaches the pool; only tests set it (see StepTaskRunner) */
  stepTask?: StepTaskRunner
}

/**
 * addagent when the fleet has no slot left: a slot is taken by every agent added over the run,
 * and a deleted agent's is not used again (its index is its identity: its UUID, its draws).
 */
export class FleetFullError extends Error {
  constructor(
    /** agents added over the run so far, deleted ones included */
    readonly added: number,
    /** how many the fleet has room for (its headroom) */
    readonly room: number
  ) {
    super(`the fleet is full: ${added} agents were added over this run, and it has room for ${room}`)
    this.name = 'FleetFullError'
  }
}

/** The task that steps one shard to a virtual second. */
export type StepTask = Extract<WorkerTask, { kind: 'step' }>

/**
 * Runs one task on the engine's worker pool: by worker.ts, or by the worker entry `filename`
 * (a module whose default export takes the task, loaded by the pool's threads).
 */
export type PoolRun = (task: StepTask, filename?: string) => Promise<StepTally>

/**
 * How a step task reaches the pool. The engine's own is `(task, run) => run(task)`; a test
 * passes another to make a worker die part way through a shard (test/fleet/pool.test.ts).
 */
export type StepTaskRunner = (task: StepTask, run: PoolRun) => Promise<StepTally>

/** The fleet's make-up beyond states, for metrics. */
export interface FleetComposition {
  byMode: Record<string, number>
  byVersion: Record<string, number>
  modulesByStatus: Record<string, number>
  /** wall ms the pass over the fleet took */
  scanMs: number
}


/** Actions an administrator can force on one agent. */
export const OVERRIDE_ACTIONS = {
  offline: Action.OFFLINE,
  online: Action.ONLINE,
  error: Action.ERROR,
  untrusted: Action.UNTRUSTED,
  forged: Action.FORGED,
  'crash-module': Action.CRASH_MODULE,
  'restart-modules': Action.RESTART_MODULES,
  leave: Action.LEAVE
} as const
export type OverrideAction = keyof typeof OVERRIDE_ACTIONS

/** A run saved to continue later (FleetEngine.snapshot and FleetEngine.restore). */
export interface EngineSnapshot {
  seed: number
  startTime: number
  initialAgents: number
  used: number
  steppedTo: number
  /**
   * the clock, virtual ms since the start, when saved: a clock paused mid-second stands past
   * steppedTo's second. Absent from files saved before it: the clock resumes at steppedTo.
   */
  clockMs?: number
  lockout: boolean
  lockoutEndsAt: number
  speed: number
  paused: boolean
  /** the normalised scenario, compiled again on restore; null: the default fleet */
  scenario: Scenario | null
  names: Array<[number, string]>
  uuids: Array<[number, string]>
  configs: Array<[number, AgentConfig]>
  stats: FleetStats
  /** each field's bytes for the agents [0, used) */
  buffers: Record<FieldName, Uint8Array>
}

/** A running scenario and how far it got. */
export interface ScenarioInfo {
  name: string
  description: string
  source: string
  /** virtual seconds since the scenario started */
  second: number
  stages: string[]
  /**
   * each event and how often it fired; a `join` also with the agents it could not add
   * (`notJoined`): the fleet had no room left for them (--max-added-agents)
   */
  timeline: Array<{ name: string; fired: number; notJoined?: number }>
  /** virtual second of the next timeline occurrence, null when none is left */
  nextTimelineAt: number | null
  lockedOut: boolean
  /** per reconnect rule: names of the agents it fails if they reconnect now (null: a probability rule) */
  reconnectFailureSets: Array<string[] | null>
}

/** Aggregates the simulator reports for metrics and logs. */
export interface FleetStats {
  transitions: number[]
  moduleCrashes: number
  moduleRestarts: number
  reconnectAttempts: number
  reconnectFailures: number
  /** events received by the whole fleet since start, from the summed input rate */
  eventsReceived: number
  stepRounds: number
  lastRoundMs: number
  workerRestarts: number
  /** timeline events fired, by event name */
  timelineFired: Record<string, number>
  /** agents a timeline `join` could not add for want of room (--max-added-agents), by event name */
  notJoined: Record<string, number>
  /** API faults injected, by `${kind} ${operation}` (kind: latency, error, reset, stall, fail-first, slow-body, truncate) */
  faultsInjected: Record<string, number>
  /** how many times these totals were zeroed (a reset, a scenario loaded): metrics count what follows as new (metrics/totals.ts) */
  restarts: number
}

export function emptyStats(): FleetStats {
  return {
    transitions: new Array(AGENT_STATES.length ** 2).fill(0),
    moduleCrashes: 0,
    moduleRestarts: 0,
    reconnectAttempts: 0,
    reconnectFailures: 0,
    eventsReceived: 0,
    stepRounds: 0,
    lastRoundMs: 0,
    workerRestarts: 0,
    timelineFired: {},
    notJoined: {},
    faultsInjected: {},
    restarts: 0
  }
}

/**
 * What observers (metrics, logs) read of the running simulation: totals the engine keeps as it
 * goes, so every read is cheap at a million agents. The engine (fleet.ts) implements it.
 */
export interface FleetObservation {
  counts(): FleetCounts
  connectedCount(): number
  /** by mode and version: a cached pass, at most one per 10 s of wall time */
  composition(): FleetComposition
  readonly stats: FleetStats
  clockState(): ClockState
  /** virtual seconds the fleet is behind its clock */
  lagSeconds(): number
  poolStats(): { utilization: number; queueSize: number; threads: number }
  /** the running scenario, undefined when none runs */
  scenarioInfo(): ScenarioInfo | undefined
}
