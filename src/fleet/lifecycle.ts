/**
 * The rules of one agent's life, as pure functions over the shared views. Workers call them
 * while stepping a shard; the main thread calls the same functions for API operations and
 * timeline events between steps, so an agent behaves the same whoever touches it.
 *
 * An agent's state is never set directly: it is derived from its conditions (mode, link,
 * certificate, modules, flags) by deriveState, the one place that encodes what each state
 * means in the real product (manager-facts.md, "Agent states").
 */
import { AgentState, ModuleStatus, Mode } from '../protocol/states.js'
import { Cert, Flag, Link, MAX_MODULES, NEVER, STAGE_SLOTS, type FleetViews } from './layout.js'
import { Action, sample, type CompiledAction, type CompiledSelector, type FleetProgram } from './program.js'
import { advanceCounters, moduleRate } from './counters.js'
import { Stream, exponential, pickWeighted, uniform } from './random.js'

/** What `revertAt` restores (bits in revertTo). */
export const NO_STAGE = 255
export const NO_TIMELINE = 65535

export const Revert = { LINK: 1, CERT: 2, REJOIN: 4, JOIN: 8 } as const

const STATE_COUNT = 6

/** Per-task tallies returned to the main thread (metrics, state counts). */
export interface StepTally {
  /** transitions[from * 6 + to] */
  transitions: number[]
  /** change of the fleet's summed input rate (events/s of running input modules) */
  rateDelta: number
  moduleCrashes: number
  moduleRestarts: number
  /** agents that came back after a delete without revocation, by the state they came back in */
  appeared: number[]
}

export function newTally(): StepTally {
  return { transitions: new Array(STATE_COUNT * STATE_COUNT).fill(0), rateDelta: 0, moduleCrashes: 0, moduleRestarts: 0, appeared: new Array(STATE_COUNT).fill(0) }
}

export interface LifeContext {
  program: FleetProgram
  v: FleetViews
  /** manager-restart lockout: no agent can establish its trusted connection */
  lockout: boolean
  tally: StepTally
}

export function deriveState(v: FleetViews, i: number, lockout: boolean): number {
  if (v.mode[i] === Mode.Unmanaged) return AgentState.UNMANAGED
  if (v.link[i] !== Link.CONNECTED || (v.flags[i] & Flag.NOT_JOINED) !== 0 || lockout) return AgentState.OFFLINE
  if (v.cert[i] === Cert.NONE) return AgentState.UNTRUSTED
  if (v.cert[i] === Cert.MISMATCH) return AgentState.FORGED
  if ((v.flags[i] & Flag.CONFIG_CORRUPT) !== 0) return AgentState.ERROR
  const base = i * MAX_MODULES
  for (let k = 0; k < v.moduleCount[i]; k++) if (v.moduleStatus[base + k] !== ModuleStatus.RUNNING) return AgentState.ERROR
  return AgentState.ONLINE
}

/** Recomputes the state after a condition changed, and tallies the transition. */
export function refreshState(ctx: LifeContext, i: number, t: number): void {
  const { v } = ctx
  const from = v.state[i]
  const to = deriveState(v, i, ctx.lockout)
  if (to === AgentState.ONLINE || (from === AgentState.ONLINE && to !== AgentState.OFFLINE)) v.lastOnlineAt[i] = t
  if (from === to) return
  // An agent seen online last moment was online until now.
  if (from === AgentState.ONLINE) v.lastOnlineAt[i] = t
  v.state[i] = to
  if ((v.flags[i] & Flag.EXISTS) !== 0) ctx.tally.transitions[from * STATE_COUNT + to]++
}

export function setModuleStatus(ctx: LifeContext, i: number, k: number, status: number): void {
  const { v, program } = ctx
  const slot = i * MAX_MODULES + k
  const before = v.moduleStatus[slot]
  if (before === status) return
  v.moduleStatus[slot] = status
  const rate = moduleRate(program, v, i, k)
  if (rate > 0 && (v.flags[i] & Flag.EXISTS) !== 0) {
    if (before === ModuleStatus.RUNNING) ctx.tally.rateDelta -= rate
    if (status === ModuleStatus.RUNNING) ctx.tally.rateDelta += rate
  }
}

function nextMidnight(program: FleetProgram, t: number): number {
  const epochSec = Math.floor(program.epochMs / 1000)
  return (Math.floor((epochSec + t) / 86400) + 1) * 86400 - epochSec
}

/** Recomputes the earliest timer: the step skips the agent until then. */
export function scheduleNext(ctx: LifeContext, i: number, t: number): void {
  const { v } = ctx
  if ((v.flags[i] & Flag.EXISTS) === 0) {
    // A deleted agent sleeps, unless it comes back on its own (deleted without revoking).
    v.nextEventAt[i] = (v.flags[i] & Flag.REJOINS) !== 0 ? v.revertAt[i] : NEVER
    return
  }
  let next = nextMidnight(ctx.program, t)
  if (v.churnAt[i] < next) next = v.churnAt[i]
  if (v.revertAt[i] < next) next = v.revertAt[i]
  if (v.restartAt[i] < next) next = v.restartAt[i]
  if (v.stageAt[i] < next) next = v.stageAt[i]
  if (v.timelineAt[i] < next) next = v.timelineAt[i]
  v.nextEventAt[i] = next
}

/** Draws the next background churn event (disconnect or module crash) after time t. */
export function scheduleChurn(ctx: LifeContext, i: number, t: number): void {
  const { churn, seed } = ctx.program
  const perHour = churn.disconnectPerHour + churn.moduleCrashPerHour
  if (perHour <= 0) {
    ctx.v.churnAt[i] = NEVER
    return
  }
  const wait = exponential(3600 / perHour, uniform(seed, i, ctx.v.eventNo[i], Stream.CHURN_WAIT))
  ctx.v.churnAt[i] = t + Math.max(1, Math.min(NEVER - t - 1, Math.ceil(wait)))
}

function draw(ctx: LifeContext, i: number, stream: number): number {
  return uniform(ctx.program.seed, i, ctx.v.eventNo[i], stream)
}

/** Takes the agent off the network for `seconds` (0: until reconnected by something else). */
export function disconnect(ctx: LifeContext, i: number, t: number, seconds: number): void {
  const { v } = ctx
  if (seconds > 0) {
    v.link[i] = Link.DOWN
    v.revertAt[i] = t + seconds
    v.revertTo[i] |= Revert.LINK
  } else {
    v.link[i] = Link.STUCK
  }
  refreshState(ctx, i, t)
}

/** Stops one module as if it crashed; it restarts after `seconds` (0: uses the churn delay). */
export function crashModule(ctx: LifeContext, i: number, t: number, slot: number, seconds: number): void {
  const { v, program } = ctx
  const count = v.moduleCount[i]
  if (count === 0) return
  let k = slot
  if (k < 0 || k >= count) {
    // a random running module; none running means nothing to crash
    const running: number[] = []
    for (let m = 0; m < count; m++) if (v.moduleStatus[i * MAX_MODULES + m] === ModuleStatus.RUNNING) running.push(m)
    if (running.length === 0) return
    k = running[Math.floor(draw(ctx, i, Stream.MODULE_PICK) * running.length)]
  }
  setModuleStatus(ctx, i, k, ModuleStatus.FAILED)
  ctx.tally.moduleCrashes++
  const delay = seconds > 0 ? seconds : Math.round(sample(program.churn.restartDelay, draw(ctx, i, Stream.RESTART_DELAY), draw(ctx, i, Stream.MODULE_PICK)))
  const at = t + Math.max(1, delay)
  if (at < v.restartAt[i] || v.restartAt[i] <= t) v.restartAt[i] = at
  refreshState(ctx, i, t)
}

/** Every module restarts: STARTING now, RUNNING after a short delay. */
export function restartModules(ctx: LifeContext, i: number, t: number, delaySeconds: number): void {
  const { v } = ctx
  for (let k = 0; k < v.moduleCount[i]; k++) setModuleStatus(ctx, i, k, ModuleStatus.STARTING)
  v.restartAt[i] = t + Math.max(1, delaySeconds)
  v.startedAt[i] = t
  refreshState(ctx, i, t)
}

export function stopModules(ctx: LifeContext, i: number, t: number): void {
  const { v } = ctx
  for (let k = 0; k < v.moduleCount[i]; k++) setModuleStatus(ctx, i, k, ModuleStatus.STOPPED)
  v.restartAt[i] = NEVER
  refreshState(ctx, i, t)
}

/** Modules in STARTING or FAILED come back RUNNING (restartAt reached). */
function finishRestarts(ctx: LifeContext, i: number, t: number): void {
  const { v } = ctx
  for (let k = 0; k < v.moduleCount[i]; k++) {
    const status = v.moduleStatus[i * MAX_MODULES + k]
    if (status === ModuleStatus.STARTING || status === ModuleStatus.FAILED) {
      setModuleStatus(ctx, i, k, ModuleStatus.RUNNING)
      ctx.tally.moduleRestarts++
    }
  }
  v.restartAt[i] = NEVER
  refreshState(ctx, i, t)
}

/** The end of temporary conditions (outage over, reconnected, certificate fixed, rejoined). */
function revert(ctx: LifeContext, i: number, t: number): void {
  const { v } = ctx
  const what = v.revertTo[i]
  v.revertTo[i] = 0
  v.revertAt[i] = NEVER
  if ((what & Revert.REJOIN) !== 0 && (v.flags[i] & Flag.EXISTS) === 0) {
    v.flags[i] = (v.flags[i] | Flag.EXISTS) & ~Flag.REJOINS
    v.link[i] = Link.CONNECTED
    // The returning agent's modules count toward the fleet rate again.
    for (let k = 0; k < v.moduleCount[i]; k++) {
      if (v.moduleStatus[i * MAX_MODULES + k] === ModuleStatus.RUNNING) ctx.tally.rateDelta += moduleRate(ctx.program, v, i, k)
    }
    v.state[i] = deriveState(v, i, ctx.lockout)
    ctx.tally.appeared[v.state[i]]++
    v.startedAt[i] = t
    v.countAt[i] = t
    scheduleChurn(ctx, i, t)
    return
  }
  if ((what & Revert.JOIN) !== 0) {
    v.flags[i] &= ~Flag.NOT_JOINED
    v.link[i] = Link.CONNECTED
    v.startedAt[i] = t
    if (v.cert[i] === Cert.OWN) {
      // A healthy install reports in UNTRUSTED until the manager issues its certificate,
      // seconds later. One installed without a usable certificate (the scenario's states
      // mix) stays UNTRUSTED or FORGED until something fixes it, e.g. a stage.
      v.cert[i] = Cert.NONE
      v.revertAt[i] = t + 5 + Math.floor(draw(ctx, i, Stream.JOIN_DELAY) * 25)
      v.revertTo[i] = Revert.CERT
    }
    refreshState(ctx, i, t)
    return
  }
  if ((what & Revert.LINK) !== 0 && v.link[i] !== Link.STUCK) v.link[i] = Link.CONNECTED
  if ((what & Revert.CERT) !== 0) v.cert[i] = Cert.OWN
  refreshState(ctx, i, t)
}

/** Applies a stage, timeline or admin action to one agent at time t. */
export function applyAction(ctx: LifeContext, i: number, t: number, action: CompiledAction): void {
  const { v } = ctx
  const lasting = action.forSeconds
  switch (action.kind) {
    case Action.OFFLINE:
      disconnect(ctx, i, t, lasting)
      break
    case Action.LEAVE:
      disconnect(ctx, i, t, 0)
      break
    case Action.ERROR:
      v.flags[i] |= Flag.CONFIG_CORRUPT
      if (lasting > 0) {
        // A lasting-for ERROR is a module that fails and comes back after the duration.
        v.flags[i] &= ~Flag.CONFIG_CORRUPT
        crashModule(ctx, i, t, -1, lasting)
      }
      refreshState(ctx, i, t)
      break
    case Action.UNTRUSTED:
    case Action.FORGED:
      v.cert[i] = action.kind === Action.UNTRUSTED ? Cert.NONE : Cert.MISMATCH
      if (lasting > 0) {
        v.revertAt[i] = t + lasting
        v.revertTo[i] |= Revert.CERT
      }
      refreshState(ctx, i, t)
      break
    case Action.ONLINE:
      v.link[i] = Link.CONNECTED
      v.cert[i] = Cert.OWN
      v.flags[i] &= ~(Flag.CONFIG_CORRUPT | Flag.NOT_JOINED)
      v.revertTo[i] &= ~(Revert.LINK | Revert.CERT | Revert.JOIN)
      for (let k = 0; k < v.moduleCount[i]; k++) setModuleStatus(ctx, i, k, ModuleStatus.RUNNING)
      v.restartAt[i] = NEVER
      refreshState(ctx, i, t)
      break
    case Action.CRASH_MODULE: {
      const slot = action.moduleSlots === null ? -1 : (action.moduleSlots[v.moduleSetIdx[i]] ?? -1)
      if (action.moduleSlots === null || slot >= 0) crashModule(ctx, i, t, slot, lasting)
      break
    }
    case Action.RESTART_MODULES:
      restartModules(ctx, i, t, 2 + Math.floor(draw(ctx, i, Stream.RESTART_DELAY) * 4))
      break
    case Action.UPGRADE:
      if (action.arg >= 0) v.versionIdx[i] = action.arg
      restartModules(ctx, i, t, 5 + Math.floor(draw(ctx, i, Stream.RESTART_DELAY) * 20))
      break
    case Action.JOIN:
      if ((v.flags[i] & Flag.NOT_JOINED) !== 0) {
        v.revertTo[i] |= Revert.JOIN
        v.revertAt[i] = t
        revert(ctx, i, t)
      }
      break
    case Action.MANAGER_RESTART:
      // Handled fleet-wide by the main thread (lockout); nothing per agent.
      break
  }
  v.eventNo[i]++
}

export function matches(v: FleetViews, i: number, s: CompiledSelector, stageBit: number): boolean {
  if (s.states !== 0 && (s.states & (1 << v.state[i])) === 0) return false
  if (s.modes !== 0 && (s.modes & (1 << v.mode[i])) === 0) return false
  if (s.os !== 0 && (s.os & (1 << v.osIdx[i])) === 0) return false
  if (s.versions !== 0 && (s.versions & (1 << v.versionIdx[i])) === 0) return false
  if (s.templates !== null && !s.templates.includes(v.templateId[i])) return false
  if (s.labels !== 0 && (v.labelMask[i] & s.labels) === 0) return false
  if (stageBit !== 0 && (v.stageMask[i] & stageBit) === 0) return false
  return true
}

/** If no stage is pending, arms the first stage whose selector matches the agent now. */
export function armStage(ctx: LifeContext, i: number, t: number): void {
  const { v, program } = ctx
  if (v.stageIdx[i] !== NO_STAGE || (v.flags[i] & Flag.EXISTS) === 0) return
  const stages = program.stages
  for (let s = 0; s < stages.length; s++) {
    const stage = stages[s]
    if (stage.times > 0 && v.stageFired[i * STAGE_SLOTS + s] >= stage.times) continue
    if (!matches(v, i, stage.selector, stage.usesPickMask ? 1 << s : 0)) continue
    const u = uniform(program.seed, i, v.eventNo[i], Stream.STAGE_DELAY)
    const wait = stage.meanWaitSeconds > 0 ? exponential(stage.meanWaitSeconds, u) : stage.afterSeconds + u * stage.jitterSeconds
    v.stageIdx[i] = s
    v.stageAt[i] = t + Math.max(1, Math.round(wait))
    return
  }
}

function fireStage(ctx: LifeContext, i: number, t: number): void {
  const { v, program } = ctx
  const s = v.stageIdx[i]
  v.stageIdx[i] = NO_STAGE
  v.stageAt[i] = NEVER
  const stage = program.stages[s]
  if (stage === undefined || !matches(v, i, stage.selector, stage.usesPickMask ? 1 << s : 0)) return
  const choice = pickWeighted(stage.cumulative, uniform(program.seed, i, v.eventNo[i], Stream.STAGE_CHOICE))
  const fired = i * STAGE_SLOTS + s
  if (v.stageFired[fired] < 255) v.stageFired[fired]++
  applyAction(ctx, i, t, stage.actions[choice])
}

/** A timeline event spread over time reaches this agent now. */
function fireTimelineAction(ctx: LifeContext, i: number, t: number): void {
  const { v } = ctx
  const action = ctx.program.timelineActions[v.timelineIdx[i]]
  v.timelineIdx[i] = NO_TIMELINE
  v.timelineAt[i] = NEVER
  if (action !== undefined) applyAction(ctx, i, t, action)
}

function churn(ctx: LifeContext, i: number, t: number): void {
  const { v, program } = ctx
  const { churn: c } = program
  const u = draw(ctx, i, Stream.CHURN_KIND)
  const disconnectShare = c.disconnectPerHour / (c.disconnectPerHour + c.moduleCrashPerHour)
  if ((v.flags[i] & Flag.EXISTS) !== 0 && (v.flags[i] & Flag.NOT_JOINED) === 0) {
    if (u < disconnectShare) {
      if (v.link[i] === Link.CONNECTED) {
        const length = sample(c.outage, draw(ctx, i, Stream.OUTAGE_LENGTH), draw(ctx, i, Stream.MODULE_PICK))
        disconnect(ctx, i, t, Math.max(1, Math.round(length)))
      }
    } else {
      crashModule(ctx, i, t, -1, 0)
    }
  }
  v.eventNo[i]++
  scheduleChurn(ctx, i, t)
}

/**
 * Processes every timer of agent i that is due at or before `to`, in time order. Counters
 * are materialised only at events (counters.ts); between events they are a pure function
 * of time, so nothing needs doing for an agent with no timer due.
 */
export function stepAgent(ctx: LifeContext, i: number, to: number): void {
  const { v } = ctx
  let guard = 0
  while (v.nextEventAt[i] <= to) {
    const t = v.nextEventAt[i]
    advanceCounters(ctx.program, v, i, t)
    // A fixed order for timers due at the same second keeps the outcome deterministic.
    if (v.restartAt[i] <= t) finishRestarts(ctx, i, t)
    if (v.revertAt[i] <= t) revert(ctx, i, t)
    if (v.timelineAt[i] <= t) fireTimelineAction(ctx, i, t)
    if (v.stageAt[i] <= t) fireStage(ctx, i, t)
    if (v.churnAt[i] <= t) churn(ctx, i, t)
    if (nextMidnight(ctx.program, t - 1) === t) {
      v.receivedAtMidnight[i] = v.received[i]
      v.sentAtMidnight[i] = v.sent[i]
    }
    armStage(ctx, i, t)
    scheduleNext(ctx, i, t)
    // Timers are always scheduled at least one second ahead; this guards against a bug
    // turning into a hung worker.
    if (++guard > 100_000) throw new Error(`agent ${i} did not settle at t=${t}`)
  }
}
