/**
 * The normalised scenario: the contract between the scenario loader and the engine that
 * compiles it into tables (src/fleet/**). Everything the engine needs is explicit here:
 *
 * - every default is filled in (no optional fields; "absent" is `null`);
 * - every duration is a number of **virtual seconds**, except the API fault timings, which are
 *   wall-clock **milliseconds** and say so in their names (`...Ms`);
 * - every rate is **events per agent per virtual second**;
 * - every weighted mix holds probabilities that sum to 1;
 * - every selector field is a list of alternatives or `null` (any).
 *
 * The object returned by the loader is deeply frozen. docs/scenarios.md describes each field
 * and the semantics the engine implements.
 */
import type { AgentStateName, ModeName } from '../protocol/states.js'

/** A value with its probability in a mix; the probabilities of one mix sum to 1. */
export interface Weighted<T> {
  readonly value: T
  readonly probability: number
}

/**
 * A random duration. Units are those of the field holding it (seconds, or milliseconds for
 * `latencyMs`). Draws below 0 become 0; draws above `max` become `max` (null: no cap).
 */
export type Distribution =
  | { readonly kind: 'fixed'; readonly value: number }
  | { readonly kind: 'uniform'; readonly min: number; readonly max: number }
  | { readonly kind: 'normal'; readonly mean: number; readonly sd: number; readonly max: number | null }
  | { readonly kind: 'exponential'; readonly mean: number; readonly max: number | null }

// ---------------------------------------------------------------------------------------------
// Fleet composition

export type ModuleDirection = 'INPUT' | 'OUTPUT'

export interface ModuleSpec {
  /** configured instance name, e.g. `in_syslog` */
  readonly name: string
  /** module kind, e.g. `im_udp` */
  readonly kind: string
  readonly type: ModuleDirection
}

export interface ModuleSet {
  readonly name: string
  readonly modules: readonly ModuleSpec[]
}

/**
 * A custom label carried by some agents at the start. An agent carries it when it matches
 * `select` (identity fields only) and a seeded draw falls under `fraction`. Labels that share
 * a name are assigned from one draw per agent, so an agent carries at most one value per name.
 */
export interface LabelSpec {
  readonly name: string
  readonly value: string
  readonly fraction: number
  /** null: every agent is a candidate */
  readonly select: Selector | null
}

/** A master template assigned at the start to a fraction of agents (one draw per agent). */
export interface TemplateSpec {
  readonly name: string
  readonly fraction: number
}

/** Agents joining over a period instead of all at once, linearly in time. */
export interface Ramp {
  /** virtual seconds from the scenario start when the ramp begins */
  readonly start: number
  /** length of the ramp in virtual seconds (> 0) */
  readonly over: number
  /** agents present before the ramp begins (the rest of `agents` join during it) */
  readonly initial: number
}

export interface FleetSpec {
  /** agents at the start (after the ramp, if any) */
  readonly agents: number
  /** 32-bit unsigned seed of every random draw */
  readonly seed: number
  readonly os: readonly Weighted<string>[]
  readonly versions: readonly Weighted<string>[]
  readonly modes: readonly Weighted<ModeName>[]
  readonly moduleSets: readonly Weighted<ModuleSet>[]
  readonly labels: readonly LabelSpec[]
  /** fractions sum to at most 1; the remaining agents have no master template */
  readonly templates: readonly TemplateSpec[]
  readonly ramp: Ramp | null
  /**
   * Initial states of the agents that are not Unmanaged (those are always UNMANAGED).
   * Probabilities sum to 1; ONLINE takes whatever the file did not give to other states.
   */
  readonly states: readonly Weighted<AgentStateName>[]
}

// ---------------------------------------------------------------------------------------------
// Background behaviour

export interface Behaviour {
  readonly disconnect: {
    /** connected agents dropping OFFLINE, per agent per virtual second (0: never) */
    readonly rate: number
    /** how long the agent stays OFFLINE, in virtual seconds */
    readonly outage: Distribution
  }
  readonly moduleCrash: {
    /** a running module failing, per agent per virtual second (0: never) */
    readonly rate: number
    /** how long until the failed module runs again, in virtual seconds */
    readonly restartDelay: Distribution
  }
}

// ---------------------------------------------------------------------------------------------
// Selection

/**
 * Which agents a rule applies to. Each field is a list of alternatives (an agent matches the
 * field when it matches any of them) or null (any agent). An agent matches the selector when it
 * matches every field. Globs use `*` (any run of characters) and `?` (one character).
 */
export interface Selector {
  readonly states: readonly AgentStateName[] | null
  /** `value` null: the agent carries the label with any value */
  readonly labels: readonly { readonly name: string; readonly value: string | null }[] | null
  /** master template names (exact) */
  readonly templates: readonly string[] | null
  /** agent version globs */
  readonly versions: readonly string[] | null
  /** operating system globs */
  readonly os: readonly string[] | null
  /** agent name globs */
  readonly names: readonly string[] | null
  readonly modes: readonly ModeName[] | null
}

/**
 * How many of the matching agents a rule takes.
 * - all: every matching agent;
 * - fraction: each matching agent independently, with this probability;
 * - count: exactly this many (or all, if fewer match), chosen by a seeded rank among the agents
 *   that match the selector's fields other than `states`.
 */
export type Pick =
  | { readonly kind: 'all' }
  | { readonly kind: 'fraction'; readonly fraction: number }
  | { readonly kind: 'count'; readonly count: number }

// ---------------------------------------------------------------------------------------------
// Actions

export const ACTION_NAMES = [
  'offline',
  'error',
  'untrusted',
  'forged',
  'online',
  'crash-module',
  'restart-modules',
  'upgrade',
  'join',
  'leave',
  'manager-restart'
] as const
export type ActionName = (typeof ACTION_NAMES)[number]

export type Action =
  | { readonly type: 'offline' | 'error' | 'untrusted' | 'forged' | 'online' }
  /** one running module fails; `module`/`kind` narrow which (null: any, by a seeded draw) */
  | { readonly type: 'crash-module'; readonly module: string | null; readonly kind: string | null }
  | { readonly type: 'restart-modules' }
  | { readonly type: 'upgrade'; readonly version: string }
  /** timeline only: `count` new agents join the fleet */
  | { readonly type: 'join' }
  | { readonly type: 'leave' }
  /** timeline only: every agent OFFLINE until `agentmanager` is called (or `for` runs out) */
  | { readonly type: 'manager-restart' }

/** An action with how long it lasts; `for` null: it is not reverted. */
export interface TimedAction {
  readonly action: Action
  readonly for: number | null
}

export interface WeightedAction extends TimedAction {
  readonly probability: number
}

// ---------------------------------------------------------------------------------------------
// Stages

export type Trigger =
  /** fires `after` + uniform(0, `jitter`) virtual seconds after the agent starts matching */
  | { readonly kind: 'delay'; readonly after: number; readonly jitter: number }
  /** fires with this hazard (per virtual second) while the agent matches */
  | { readonly kind: 'rate'; readonly rate: number }

export interface Stage {
  readonly name: string
  readonly select: Selector
  readonly pick: Pick
  readonly trigger: Trigger
  readonly next: readonly WeightedAction[]
  /** most firings per agent (null: unlimited) */
  readonly times: number | null
}

// ---------------------------------------------------------------------------------------------
// Timeline

export type Schedule =
  | { readonly kind: 'once'; readonly at: number }
  | {
      readonly kind: 'every'
      readonly every: number
      readonly start: number
      /** last virtual time an occurrence may start (null: no end) */
      readonly until: number | null
      /** most occurrences (null: unlimited) */
      readonly times: number | null
    }

export interface TimelineEvent extends TimedAction {
  readonly name: string
  readonly schedule: Schedule
  readonly select: Selector
  /** for `join`: always `count`, the number of new agents */
  readonly pick: Pick
  /** picked agents are hit at seeded offsets in [0, spread) after the occurrence (0: at once) */
  readonly spread: number
}

// ---------------------------------------------------------------------------------------------
// Reconnect policy

export const RECONNECT_OPERATIONS = ['assigntemplatetoagent', 'updateandreloadagent'] as const
export type ReconnectOperation = (typeof RECONNECT_OPERATIONS)[number]

/**
 * Which agents fail to reconnect after an update.
 * - probability: every attempt of a matching agent fails independently with this probability;
 * - fraction / count: a fixed set of agents, chosen once by seeded rank among the agents that
 *   match `select` (fields other than `states`) when the scenario starts; they always fail.
 */
export type FailureMode =
  | { readonly kind: 'probability'; readonly probability: number }
  | { readonly kind: 'fraction'; readonly fraction: number }
  | { readonly kind: 'count'; readonly count: number }

export interface ReconnectFailure {
  readonly select: Selector
  readonly mode: FailureMode
  readonly operations: readonly ReconnectOperation[]
  /** virtual seconds the failed agent stays OFFLINE (null: until a later reconnect succeeds) */
  readonly recoverAfter: Distribution | null
}

export interface ReconnectPolicy {
  /** time a successful reconnect takes, virtual seconds; its maximum is under 10 s */
  readonly delay: Distribution
  readonly failures: readonly ReconnectFailure[]
}

// ---------------------------------------------------------------------------------------------
// API faults

export interface FaultRule {
  readonly name: string
  /** operation names (without `.json`/`.xml`); null: every operation */
  readonly operations: readonly string[] | null
  /** active window in virtual seconds (null: always) */
  readonly during: { readonly from: number; readonly until: number | null } | null
  /** extra wall-clock latency before the answer, milliseconds */
  readonly latencyMs: Distribution | null
  readonly error: { readonly status: number; readonly rate: number; readonly message: string } | null
  /** the connection is destroyed without an answer */
  readonly reset: { readonly rate: number } | null
  /** the answer is held for `forMs` wall-clock milliseconds before it is sent */
  readonly stall: { readonly forMs: number; readonly rate: number } | null
  /** the first `count` matching calls (since load or reset) fail with `status` */
  readonly failFirst: { readonly count: number; readonly status: number; readonly message: string } | null
  readonly body: {
    /** body sent at this many bytes per wall-clock second (null: full speed) */
    readonly slowBytesPerSecond: number | null
    /** probability that the body is cut short and the connection closed */
    readonly truncateRate: number
  } | null
}

// ---------------------------------------------------------------------------------------------

export interface Scenario {
  /** from the file (`name`), else the file name without extension */
  readonly name: string
  readonly description: string
  /** where the scenario came from (a path, or a name given by the caller) */
  readonly source: string
  readonly fleet: FleetSpec
  readonly behaviour: Behaviour
  readonly stages: readonly Stage[]
  readonly timeline: readonly TimelineEvent[]
  readonly reconnect: ReconnectPolicy
  readonly faults: readonly FaultRule[]
}
