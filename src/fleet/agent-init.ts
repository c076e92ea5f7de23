/**
 * Brings a new agent slot to life: its static picks (OS, version, mode, module set) drawn
 * from (seed, index), its initial condition, counters as if it had been running for a while,
 * and its first timers. Runs in workers at fleet build (a million agents in parallel) and on
 * the main thread for agents added through the API.
 */
import { ModuleStatus } from '../protocol/states.js'
import { Cert, Flag, Link, MAX_MODULES, NEVER, STAGE_SLOTS, type FleetViews } from './layout.js'
import type { FleetProgram } from './program.js'
import { Stream, cumulativeWeights, hash32, pickWeighted, uniform } from './random.js'
import { advanceCounters } from './counters.js'
import { NO_STAGE, NO_TIMELINE, Revert, deriveState, scheduleChurn, scheduleNext, type LifeContext } from './lifecycle.js'

/** Field numbers of the identity draws (the stream is Stream.IDENTITY). */
export const IdentityDraw = {
  OS: 10,
  VERSION: 11,
  MODE: 12,
  MODULE_SET: 13,
  CONDITION: 14,
  UPTIME: 15,
  CONDITION_TIME: 16,
  RAMP: 17
} as const

export function identityDraw(program: FleetProgram, i: number, field: number): number {
  return hash32(program.seed, i, field, Stream.IDENTITY) / 4294967296
}

const familyCumulativeCache = new WeakMap<FleetProgram, Record<'linux' | 'windows', number[]>>()

/** Module-set weights restricted to sets that fit the OS family (all sets if none fits). */
function moduleSetCumulative(program: FleetProgram, family: 'linux' | 'windows'): number[] {
  let cached = familyCumulativeCache.get(program)
  if (cached === undefined) {
    const build = (family: string): number[] => {
      const fits = program.moduleSets.map((set) => set.name.startsWith(family))
      const anyFits = fits.some(Boolean)
      const weights = program.moduleSetCumulative.map((c, k) => c - (k > 0 ? program.moduleSetCumulative[k - 1] : 0))
      return cumulativeWeights(weights.map((w, k) => (anyFits && !fits[k] ? 0 : w)))
    }
    cached = { linux: build('linux'), windows: build('windows') }
    familyCumulativeCache.set(program, cached)
  }
  return cached[family]
}

export interface InitOptions {
  /** the virtual second the agent comes into being */
  t: number
  /** agents of the initial fleet start with history and a random condition; added ones fresh */
  initial: boolean
  /** forced mode (API-added agents); undefined draws from the program's mix */
  mode?: number
  /**
   * A scenario install (timeline `join`): the agent is listed OFFLINE until it reports in at
   * this second, with a condition drawn from the scenario's states mix.
   */
  joinAt?: number
  /** An API add: the agent is not connected until this second (addedReportsInAt); default t, at once. */
  reportsInAt?: number
}

/**
 * When agent i, added through the API at second t, reports in: t plus whole seconds drawn
 * uniformly from the join delay (FleetOptions.joinDelay). With the default 2 to 9 s this is
 * the draw added agents have always had (2 + floor(u · 8)), so runs that add agents keep
 * their digests.
 */
export function addedReportsInAt(program: FleetProgram, i: number, t: number, delay: { readonly min: number; readonly max: number }): number {
  return t + delay.min + Math.floor(uniform(program.seed, i, 0, Stream.JOIN_DELAY) * (delay.max - delay.min + 1))
}

export function initAgent(ctx: LifeContext, i: number, options: InitOptions): void {
  const { v, program } = ctx
  const { t } = options
  v.flags[i] = Flag.EXISTS
  v.osIdx[i] = pickWeighted(program.os.cumulative, identityDraw(program, i, IdentityDraw.OS))
  v.versionIdx[i] = pickWeighted(program.versions.cumulative, identityDraw(program, i, IdentityDraw.VERSION))
  v.mode[i] = options.mode ?? pickWeighted(program.modes, identityDraw(program, i, IdentityDraw.MODE))
  const family = program.osFamily[v.osIdx[i]] ?? 'linux'
  const setIdx = pickWeighted(moduleSetCumulative(program, family), identityDraw(program, i, IdentityDraw.MODULE_SET))
  v.moduleSetIdx[i] = setIdx
  const count = Math.min(MAX_MODULES, program.moduleSets[setIdx]?.modules.length ?? 0)
  v.moduleCount[i] = count
  for (let k = 0; k < MAX_MODULES; k++) v.moduleStatus[i * MAX_MODULES + k] = k < count ? ModuleStatus.RUNNING : ModuleStatus.STOPPED
  v.link[i] = Link.CONNECTED
  v.cert[i] = Cert.OWN
  v.templateId[i] = -1
  v.stageIdx[i] = NO_STAGE
  v.stageAt[i] = NEVER
  v.timelineIdx[i] = NO_TIMELINE
  v.timelineAt[i] = NEVER
  v.revertAt[i] = NEVER
  v.revertTo[i] = 0
  v.restartAt[i] = NEVER
  v.eventNo[i] = 0
  for (let k = 0; k < MAX_MODULES; k++) v.moduleReceived[i * MAX_MODULES + k] = 0
  for (let s = 0; s < STAGE_SLOTS; s++) v.stageFired[i * STAGE_SLOTS + s] = 0
  v.labelMask[i] = 0
  v.stageMask[i] = 0
  v.received[i] = v.sent[i] = v.dropped[i] = v.queued[i] = 0

  if (options.initial) {
    // Agents of the starting fleet have been up for up to 30 days; their counters reflect it.
    const uptime = 600 + Math.floor(identityDraw(program, i, IdentityDraw.UPTIME) * 30 * 86400)
    v.startedAt[i] = t - uptime
    v.countAt[i] = t - uptime
    const epochSec = Math.floor(program.epochMs / 1000)
    const lastMidnight = Math.floor((epochSec + t) / 86400) * 86400 - epochSec
    advanceCounters(program, v, i, Math.max(lastMidnight, v.startedAt[i]))
    v.receivedAtMidnight[i] = v.received[i]
    v.sentAtMidnight[i] = v.sent[i]
    applyInitialCondition(ctx, i, t)
  } else if (options.joinAt !== undefined) {
    freshCounters(v, i, t)
    applyCondition(ctx, i, t)
    joinLater(v, i, options.joinAt)
  } else {
    // A newly added agent is configured but not connected until it reports in (--join-delay).
    v.startedAt[i] = t
    v.countAt[i] = t
    v.receivedAtMidnight[i] = v.sentAtMidnight[i] = 0
    const reportsInAt = options.reportsInAt ?? t
    if (reportsInAt > t) {
      v.link[i] = Link.DOWN
      v.revertAt[i] = reportsInAt
      v.revertTo[i] = Revert.LINK
    }
  }
  v.state[i] = deriveState(v, i, ctx.lockout)
  v.lastOnlineAt[i] = v.state[i] === deriveState(v, i, false) ? t : v.startedAt[i]
  scheduleChurn(ctx, i, t)
  scheduleNext(ctx, i, t)
}

function applyInitialCondition(ctx: LifeContext, i: number, t: number): void {
  const { v, program } = ctx
  applyCondition(ctx, i, t)
  if (program.rampSeconds > 0 && i >= program.rampInitial) {
    // A ramp installs the agent during the start period: it has no history yet.
    freshCounters(v, i, t)
    joinLater(v, i, t + program.rampStart + Math.floor(identityDraw(program, i, IdentityDraw.RAMP) * program.rampSeconds))
  }
}

function freshCounters(v: FleetViews, i: number, t: number): void {
  v.received[i] = v.sent[i] = v.dropped[i] = v.queued[i] = 0
  v.receivedAtMidnight[i] = v.sentAtMidnight[i] = 0
  for (let k = 0; k < MAX_MODULES; k++) v.moduleReceived[i * MAX_MODULES + k] = 0
  v.countAt[i] = t
  v.startedAt[i] = t
}

/** Listed but not installed yet: OFFLINE until it reports in at `at` (lifecycle.ts, JOIN). */
function joinLater(v: FleetViews, i: number, at: number): void {
  v.flags[i] |= Flag.NOT_JOINED
  v.revertAt[i] = at
  v.revertTo[i] = Revert.JOIN
}

/** The condition an agent starts in, drawn from the program's mix (scenario `fleet.states`). */
function applyCondition(ctx: LifeContext, i: number, t: number): void {
  const { v, program } = ctx
  const condition = pickWeighted(program.initialConditions, identityDraw(program, i, IdentityDraw.CONDITION))
  const later = t + 1 + Math.floor(identityDraw(program, i, IdentityDraw.CONDITION_TIME) * 3600)
  switch (condition) {
    case 1: // offline: network trouble that clears within the hour
      v.link[i] = Link.DOWN
      v.revertAt[i] = later
      v.revertTo[i] = Revert.LINK
      break
    case 2: // untrusted: waiting for its certificate
      v.cert[i] = Cert.NONE
      break
    case 3: // forged: certificate name does not match
      v.cert[i] = Cert.MISMATCH
      break
    case 4: // error: a module that is down and restarts later
      if (v.moduleCount[i] > 0) {
        v.moduleStatus[i * MAX_MODULES + v.moduleCount[i] - 1] = ModuleStatus.FAILED
        v.restartAt[i] = later
      }
      break
  }
}
