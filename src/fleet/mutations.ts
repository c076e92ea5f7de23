/**
 * The changes the API and the admin controls make to agents: add, modify, delete, stop,
 * start, reconnect, template, the manager lockout, forced actions. Each is a plain function
 * over the core that the engine runs in an exclusive turn (fleet.ts), so it lands between
 * two step rounds at the fleet's current second and works on agents no worker is writing.
 *
 * An agent's state is never set here: each change alters conditions through lifecycle.ts,
 * whose tally the census absorbs when the change ends (FleetCore.finishMutation).
 */
import { AgentState, Mode, ModuleStatus } from '../protocol/states.js'
import { Flag, Link, NEVER } from './layout.js'
import { sample } from './program.js'
import { advanceCounters } from './counters.js'
import { NO_STAGE, Revert, applyAction, disconnect, refreshState, restartModules, setModuleStatus, stopModules, type LifeContext } from './lifecycle.js'
import { addedReportsInAt, initAgent } from './agent-init.js'
import { Stream, uniform } from './random.js'
import { agentName } from './reads.js'
import type { FleetCore } from './fleet-core.js'
import type { AgentConfig, BatchOutcome, NewAgent } from './fleet-api.js'
import { FleetFullError, OVERRIDE_ACTIONS, RECONNECT_WAIT_SECONDS, type OverrideAction } from './fleet-types.js'
import type { ReconnectOperation } from '../scenario/types.js'

/** Whether a reconnect fails, and for how long the agent then stays OFFLINE (0: until a later reconnect succeeds). */
export interface ReconnectFailure {
  fails: boolean
  recoverAfter: number
}

/** A running scenario's reconnect-failure rules (scenario-runtime.ts). */
export interface ReconnectRules {
  /**
   * The judge of one call's reconnects, as the fleet stands when it begins; `u` is each agent's
   * draw for its reconnect, shared with the default rule.
   */
  reconnectJudge(operation: ReconnectOperation | undefined): ReconnectJudge
}

type ReconnectJudge = (i: number, u: number) => ReconnectFailure

export function addAgent(core: FleetCore, agent: NewAgent): number {
  if (core.used >= core.capacity) throw new FleetFullError(core.used - core.initialAgents, core.capacity - core.initialAgents)
  const i = core.used++
  const ctx = core.mutationContext()
  const t = core.steppedTo
  const reportsInAt = addedReportsInAt(core.program, i, t, core.options.joinDelay)
  initAgent(ctx, i, { t, initial: false, mode: Mode[agent.config.mode], reportsInAt })
  for (const [added, at] of core.reportsInAt) if (at <= t) core.reportsInAt.delete(added)
  if (reportsInAt > t) core.reportsInAt.set(i, reportsInAt)
  core.overrides.setName(i, agent.name)
  // Without a given UUID the slot's generated one is used: a random one would make the
  // same API calls give different fleets.
  if (agent.uuid !== undefined) core.overrides.setUuid(i, agent.uuid.toLowerCase())
  core.overrides.setConfig(i, agent.config)
  core.census.added(core, i)
  core.finishMutation(ctx, [i])
  return i
}

export function modifyAgent(core: FleetCore, i: number, name: string, config: AgentConfig): void {
  const ctx = core.mutationContext()
  advanceCounters(core.program, core.v, i, core.steppedTo)
  if (name !== agentName(core, i)) core.overrides.setName(i, name)
  core.overrides.setConfig(i, config)
  core.v.mode[i] = Mode[config.mode]
  // A replaced configuration is no longer the corrupt one.
  core.v.flags[i] &= ~Flag.CONFIG_CORRUPT
  refreshState(ctx, i, core.steppedTo)
  core.finishMutation(ctx, [i])
}

export function deleteAgents(core: FleetCore, indices: number[], revokeCert: boolean): void {
  const { v, seed } = core
  const t = core.steppedTo
  for (const i of indices) {
    if (!core.exists(i)) continue
    core.reportsInAt.delete(i)
    advanceCounters(core.program, v, i, t)
    core.census.removed(core, i)
    v.flags[i] &= ~Flag.EXISTS
    v.stageIdx[i] = NO_STAGE
    v.stageAt[i] = NEVER
    if (revokeCert) {
      v.nextEventAt[i] = NEVER
    } else {
      // Without revocation its certificate still works: it connects again hours later.
      v.flags[i] |= Flag.REJOINS
      v.revertAt[i] = t + 3600 + Math.floor(uniform(seed, i, v.eventNo[i], Stream.REJOIN_DELAY) * 6 * 3600)
      v.revertTo[i] = Revert.REJOIN
      v.nextEventAt[i] = v.revertAt[i]
    }
    core.written(i)
  }
}

/** Why an agent cannot take a command now, or undefined when it can. */
function refusal(core: FleetCore, i: number): string | undefined {
  // A command queued before a delete (the facade resolved the UUID first) finds the agent gone.
  if (!core.exists(i)) return 'agent no longer exists'
  const state = core.v.state[i]
  if (state === AgentState.UNMANAGED) return 'agent is unmanaged and cannot be administered remotely'
  if (state === AgentState.OFFLINE) return notConnected(core, i)
  return undefined
}

/**
 * Why an OFFLINE agent is: an added or installed one that has not reported in yet says when it
 * will (clients that add an agent and act on it at once meet this), any other is not connected.
 */
function notConnected(core: FleetCore, i: number): string {
  const { v } = core
  const t = core.steppedTo
  const addedAt = core.reportsInAt.get(i)
  // An admin override since the add (offline for a while, say) replaced the agent's timer.
  if (addedAt !== undefined && addedAt > t && v.revertAt[i] === addedAt && v.link[i] === Link.DOWN) {
    const { min, max } = core.options.joinDelay
    const delay = min === max ? `${min} s` : `${min} to ${max} s`
    return `agent has not reported in yet: an added agent reports in ${delay} after addagent (--join-delay), this one in ${addedAt - t} s of virtual time`
  }
  if ((v.flags[i] & Flag.NOT_JOINED) !== 0 && (v.revertTo[i] & Revert.JOIN) !== 0 && v.revertAt[i] > t) {
    return `agent has not reported in yet: the scenario installs it, to report in ${v.revertAt[i] - t} s from now (virtual time)`
  }
  return 'agent is not connected'
}

/**
 * Runs a command on each agent that can take one now; the others fail with the reason.
 * Counters are brought to now first, since the command changes the agent's conditions.
 */
function command(core: FleetCore, indices: number[], apply: (ctx: LifeContext, i: number, t: number) => void): BatchOutcome {
  const ctx = core.mutationContext()
  const t = core.steppedTo
  const outcome: BatchOutcome = { ok: [], failed: [] }
  for (const i of indices) {
    const reason = refusal(core, i)
    if (reason !== undefined) {
      outcome.failed.push({ index: i, reason })
      continue
    }
    advanceCounters(core.program, core.v, i, t)
    apply(ctx, i, t)
    outcome.ok.push(i)
  }
  core.finishMutation(ctx, outcome.ok)
  return outcome
}

export function stopAgents(core: FleetCore, indices: number[]): BatchOutcome {
  return command(core, indices, (ctx, i, t) => stopModules(ctx, i, t))
}

export function startAgents(core: FleetCore, indices: number[]): BatchOutcome {
  // A restart reloads the same configuration: a corrupt one stays corrupt (agent ERROR) until
  // it is replaced (modifyagent, updateandreloadagent).
  return command(core, indices, (ctx, i, t) => {
    restartModules(ctx, i, t, 1 + Math.floor(uniform(core.seed, i, core.v.eventNo[i], Stream.RESTART_DELAY) * 3))
    core.v.eventNo[i]++
  })
}

/**
 * Whether agent i fails this reconnect. A forced failure (admin control) always does; then
 * the scenario's rules decide, and without a scenario a small default chance does.
 */
function reconnectFailure(core: FleetCore, judge: ReconnectJudge | undefined, i: number): ReconnectFailure {
  const { v } = core
  const u = uniform(core.seed, i, v.eventNo[i], Stream.RECONNECT_FAIL)
  if ((v.flags[i] & Flag.FAIL_NEXT_RECONNECT) !== 0) return { fails: true, recoverAfter: 0 }
  if (judge === undefined) return { fails: u < core.program.reconnect.failProbability, recoverAfter: 0 }
  return judge(i, u)
}

/**
 * Sends configuration and makes each agent reload and reconnect. Returns the outcome and the
 * second until which the manager waits for the agents to come back (the engine resolves the
 * call then, in virtual time).
 */
export function reconnectAgents(
  core: FleetCore,
  rules: ReconnectRules | undefined,
  indices: number[],
  operation: ReconnectOperation | undefined
): { outcome: BatchOutcome; waitUntil: number } {
  const { v, seed, program } = core
  const t = core.steppedTo
  const ctx = core.mutationContext()
  const result: BatchOutcome = { ok: [], failed: [] }
  // Judged as the fleet stands before any of the call's agents reloads.
  const judge = rules?.reconnectJudge(operation)
  let latest = t
  for (const i of indices) {
    const reason = refusal(core, i)
    if (reason !== undefined) {
      result.failed.push({ index: i, reason })
      continue
    }
    advanceCounters(program, v, i, t)
    core.stats.reconnectAttempts++
    const { fails, recoverAfter } = reconnectFailure(core, judge, i)
    v.flags[i] &= ~(Flag.FAIL_NEXT_RECONNECT | Flag.CONFIG_CORRUPT)
    // The agent reloads its configuration: modules restart while it reconnects.
    for (let k = 0; k < v.moduleCount[i]; k++) setModuleStatus(ctx, i, k, ModuleStatus.STARTING)
    if (fails) {
      // Off the network: back after recoverAfter seconds, or stuck until a later reconnect.
      disconnect(ctx, i, t, recoverAfter)
      v.restartAt[i] = t + 1
      core.stats.reconnectFailures++
      result.failed.push({ index: i, reason: `agent did not reconnect within ${RECONNECT_WAIT_SECONDS} seconds` })
      latest = t + RECONNECT_WAIT_SECONDS
    } else {
      const drawn = sample(program.reconnect.delay, uniform(seed, i, v.eventNo[i], Stream.RECONNECT_DELAY), uniform(seed, i, v.eventNo[i], Stream.RECONNECT_FAIL))
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
  core.finishMutation(ctx, [...result.ok, ...result.failed.map((f) => f.index)])
  return { outcome: result, waitUntil: latest }
}

/** Marks the master template assigned to each agent (-1: none); scenario selectors read it. */
export function setTemplate(core: FleetCore, indices: number[], templateId: number): void {
  const ctx = core.mutationContext()
  for (const i of indices) core.v.templateId[i] = templateId
  core.finishMutation(ctx, indices)
}

/**
 * Locks every agent out (all OFFLINE), or unlocks: then each connected agent reconnects
 * after a draw from the reconnect delay, as after a real manager's key is unlocked.
 */
export function applyLockout(core: FleetCore, on: boolean): void {
  const { v, seed, program } = core
  const t = core.steppedTo
  core.lockout = on
  core.lockoutEndsAt = NEVER
  const ctx = core.mutationContext()
  const touched: number[] = []
  for (let i = 0; i < core.used; i++) {
    if ((v.flags[i] & Flag.EXISTS) === 0) continue
    advanceCounters(program, v, i, t)
    if (!on && v.link[i] === Link.CONNECTED) {
      const delay = sample(program.reconnect.delay, uniform(seed, i, v.eventNo[i], Stream.RECONNECT_DELAY), uniform(seed, i, v.eventNo[i], Stream.RECONNECT_FAIL))
      v.link[i] = Link.RECONNECTING
      v.revertAt[i] = Math.min(v.revertAt[i], t + Math.max(1, Math.round(delay)))
      v.revertTo[i] |= Revert.LINK
      v.eventNo[i]++
      touched.push(i)
    }
    refreshState(ctx, i, t)
  }
  core.finishMutation(ctx, touched)
}

/**
 * Applies a scenario action to one agent now (admin override), e.g. `offline` for 300 s.
 * Accepts the actions a stage can take, by their scenario names.
 */
export function overrideAgent(core: FleetCore, i: number, action: OverrideAction, forSeconds: number): void {
  const ctx = core.mutationContext()
  const t = core.steppedTo
  advanceCounters(core.program, core.v, i, t)
  applyAction(ctx, i, t, { kind: OVERRIDE_ACTIONS[action], arg: -1, moduleSlots: null, forSeconds: Math.max(0, Math.round(forSeconds)) })
  core.finishMutation(ctx, [i])
}

/** Forces the next reconnect of agent i to fail (admin control). */
export function failNextReconnect(core: FleetCore, i: number): void {
  core.v.flags[i] |= Flag.FAIL_NEXT_RECONNECT
}
