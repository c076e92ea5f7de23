/**
 * A headless run: a scenario stepped at full speed without a server. The clock stays paused
 * and the fleet is advanced in chunks that end at every sample time, at every timeline
 * occurrence and where a timed lockout lifts, so each sample is the fleet exactly at its second
 * and each fired event and lockout is recorded at the second it happened.
 */
import { availableParallelism } from 'node:os'
import { createFleet } from '../fleet/fleet.js'
import { compileScenario, type CompileContext } from '../fleet/scenario-program.js'
import { AGENT_STATES, type AgentStateName } from '../protocol/states.js'
import type { Scenario } from '../scenario/types.js'

/** The virtual epoch of a run unless one is given: fixed, so runs are comparable across days. */
export const DEFAULT_RUN_START = Date.parse('2026-01-01T00:00:00Z')

export interface RunOptions {
  scenario: Scenario
  durationSeconds: number
  sampleSeconds: number
  workers?: number
  /** virtual epoch, ms (default DEFAULT_RUN_START) */
  startTime?: number
  /** called after every chunk with the virtual second reached */
  onProgress?: (second: number) => void
}

export interface StateSample {
  second: number
  agents: number
  byState: Record<AgentStateName, number>
}

export interface FiredEvent {
  second: number
  name: string
  action: string
}

/** A manager-restart lockout: from the second it began to the second it ended (null: still on at the end). */
export interface LockoutSpan {
  from: number
  to: number | null
}

export interface RunResult {
  scenario: { name: string; description: string; source: string; seed: number }
  startTime: number
  durationSeconds: number
  sampleSeconds: number
  samples: StateSample[]
  events: FiredEvent[]
  final: StateSample
  /** state transitions over the run: the total and each nonzero `FROM->TO` pair */
  transitions: { total: number; byPair: Record<string, number> }
  moduleCrashes: number
  moduleRestarts: number
  lockouts: LockoutSpan[]
  lockedOut: boolean
  digest: string
  wallMs: number
}

/** Template names get ids 1, 2, ... in the order the compiler meets them: no manager here. */
function localTemplates(): CompileContext {
  const ids = new Map<string, number>()
  return { templateId: (name) => ids.get(name) ?? (ids.set(name, ids.size + 1), ids.size) }
}

export function transitionPairs(transitions: readonly number[]): { total: number; byPair: Record<string, number> } {
  const n = AGENT_STATES.length
  const byPair: Record<string, number> = {}
  let total = 0
  transitions.forEach((count, k) => {
    if (count === 0) return
    byPair[`${AGENT_STATES[Math.floor(k / n)]}->${AGENT_STATES[k % n]}`] = count
    total += count
  })
  return { total, byPair }
}

export async function runScenario(options: RunOptions): Promise<RunResult> {
  const { scenario, durationSeconds, sampleSeconds } = options
  if (!Number.isInteger(durationSeconds) || durationSeconds < 1) throw new RangeError(`duration must be a whole number of seconds >= 1, got ${durationSeconds}`)
  if (!Number.isInteger(sampleSeconds) || sampleSeconds < 1) throw new RangeError(`sample interval must be a whole number of seconds >= 1, got ${sampleSeconds}`)
  const started = performance.now()
  const startTime = options.startTime ?? DEFAULT_RUN_START
  const compiled = compileScenario(scenario, startTime, localTemplates())
  const engine = await createFleet({
    agents: 0,
    seed: 0,
    workers: options.workers ?? availableParallelism(),
    paused: true,
    startTime,
    caFingerprint: '00',
    scenario: compiled
  })
  try {
    const samples: StateSample[] = []
    const events: FiredEvent[] = []
    const fired = scenario.timeline.map(() => 0)
    const lockouts: LockoutSpan[] = []
    // A lockout with \`for\` ends by itself at this second: a chunk ends there so its end is exact.
    let lockoutEndsAt = Infinity
    const take = (second: number): StateSample => {
      const { agents, byState } = engine.counts()
      return { second, agents, byState: { ...byState } }
    }
    const collectEvents = (second: number) => {
      // The timeline's view, not scenarioInfo(): that works out the reconnect rules' agents over the whole fleet.
      engine.scenarioTimeline()?.fired.forEach((now, k) => {
        const event = scenario.timeline[k]
        for (; fired[k] < now; fired[k]++) {
          events.push({ second, name: event.name, action: event.action.type })
          if (event.action.type === 'manager-restart' && event.for !== null) lockoutEndsAt = second + event.for
        }
      })
    }
    const noteLockout = (second: number) => {
      const open = lockouts.at(-1)?.to === null ? lockouts.at(-1) : undefined
      if (engine.lockedOut && open === undefined) lockouts.push({ from: second, to: null })
      if (!engine.lockedOut && open !== undefined) open.to = second
    }
    collectEvents(0)
    noteLockout(0)
    samples.push(take(0))
    let t = 0
    while (t < durationSeconds) {
      const nextSample = Math.min(durationSeconds, (Math.floor(t / sampleSeconds) + 1) * sampleSeconds)
      const nextEvent = engine.scenarioTimeline()?.nextAt ?? Infinity
      const to = Math.min(nextSample, ...[nextEvent, lockoutEndsAt].filter((at) => at > t))
      await engine.advance(to - t)
      t = to
      collectEvents(t)
      noteLockout(t)
      if (t === nextSample) samples.push(take(t))
      options.onProgress?.(t)
    }
    return {
      scenario: { name: scenario.name, description: scenario.description, source: scenario.source, seed: scenario.fleet.seed },
      startTime,
      durationSeconds,
      sampleSeconds,
      samples,
      events,
      final: take(t),
      transitions: transitionPairs(engine.stats.transitions),
      moduleCrashes: engine.stats.moduleCrashes,
      moduleRestarts: engine.stats.moduleRestarts,
      lockouts,
      lockedOut: engine.lockedOut,
      digest: await engine.digest(),
      wallMs: Math.round(performance.now() - started)
    }
  } finally {
    await engine.close()
  }
}
