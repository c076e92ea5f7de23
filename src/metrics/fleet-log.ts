/**
 * Fleet logs at info: a state summary as virtual time passes, timeline events as they fire,
 * and scenario stages as they start and end. It reads the same cheap engine figures the
 * metrics read, on a wall-clock poll (unref'd, so it never keeps the process alive):
 *
 *   {"byState":{"ONLINE":1890,...},"transitions":{"ONLINE->OFFLINE":12,...},"second":3600} fleet state summary
 *
 * A summary is written once at least `everyVirtualSeconds` of virtual time (and, so that a fast
 * clock does not flood the log, `minWallMs` of wall time) has passed since the previous one and
 * something changed; `transitions` are the changes since then. A paused, quiet fleet writes
 * nothing.
 */
import type { Logger } from 'pino'
import { AGENT_STATES } from '../protocol/states.js'
import { readScenario, type MetricsSource } from './source.js'

export interface FleetLogOptions {
  /** virtual seconds between summaries (default 60) */
  everyVirtualSeconds?: number
  /** wall ms between looks at the engine (default 1000) */
  pollMs?: number
  /** fewest wall ms between two summaries (default 10000) */
  minWallMs?: number
  /** wall clock in ms (tests pass their own) */
  wallNow?: () => number
}

export interface FleetLog {
  /** looks at the engine now and logs what is due (the poll calls this) */
  check(): void
  stop(): void
}

type FleetLogSource = MetricsSource & { second(): number }

/** The summary's message (src/metrics/terminal-log.ts turns it into a short line on a terminal). */
export const FLEET_SUMMARY = 'fleet state summary'

/** The counts that grew since `seen` last saw them, each with how much; `seen` then holds every count. */
function* grown(counts: Readonly<Record<string, number>>, seen: Map<string, number>): Generator<[string, number]> {
  for (const [key, count] of Object.entries(counts)) {
    const before = seen.get(key) ?? 0
    seen.set(key, count)
    if (count > before) yield [key, count - before]
  }
}

export function startFleetLog(source: FleetLogSource, log: Pick<Logger, 'info' | 'warn'>, options: FleetLogOptions = {}): FleetLog {
  const every = options.everyVirtualSeconds ?? 60
  const minWallMs = options.minWallMs ?? 10_000
  const wallNow = options.wallNow ?? (() => performance.now())
  let lastWall = -Infinity
  let lastSecond = source.second()
  let lastTransitions = [...source.stats.transitions]
  const firedSeen = new Map(Object.entries(source.stats.timelineFired))
  const notJoinedSeen = new Map(Object.entries(source.stats.notJoined))
  let scenario = readScenario(source)
  let stages = new Set(scenario?.stages ?? [])
  if (scenario !== undefined) log.info({ scenario: scenario.name, stages: [...stages] }, 'scenario running')

  const check = (): void => {
    // Scenario stages: log the ones that started and ended since the last look.
    const now = readScenario(source)
    const current = new Set(now?.stages ?? [])
    const started = [...current].filter((stage) => !stages.has(stage))
    const ended = [...stages].filter((stage) => !current.has(stage))
    if (now?.name !== scenario?.name || started.length > 0 || ended.length > 0) {
      log.info({ scenario: now?.name ?? null, started, ended, stages: [...current], second: source.second() }, 'scenario stages changed')
    }
    scenario = now
    stages = current

    for (const [event, times] of grown(source.stats.timelineFired, firedSeen)) log.info({ event, times, second: source.second() }, 'timeline event fired')
    for (const [event, notJoined] of grown(source.stats.notJoined, notJoinedSeen)) {
      log.warn({ event, notJoined, second: source.second() }, 'timeline join added fewer agents than it names: the fleet has no room left (raise --max-added-agents)')
    }

    const second = source.second()
    if (second < lastSecond) {
      // The fleet was reset: its clock and totals start again from 0.
      lastSecond = second
      lastTransitions = [...source.stats.transitions]
      return
    }
    if (second - lastSecond < every || wallNow() - lastWall < minWallMs) return
    const transitions: Record<string, number> = {}
    let changed = 0
    const totals = source.stats.transitions
    for (let k = 0; k < totals.length; k++) {
      const delta = totals[k] - (lastTransitions[k] ?? 0)
      if (delta <= 0) continue
      const from = AGENT_STATES[Math.floor(k / AGENT_STATES.length)]
      const to = AGENT_STATES[k % AGENT_STATES.length]
      transitions[`${from}->${to}`] = delta
      changed += delta
    }
    lastSecond = second
    lastTransitions = [...totals]
    if (changed === 0) return
    lastWall = wallNow()
    log.info({ byState: source.counts().byState, transitions, second }, FLEET_SUMMARY)
  }

  const timer = setInterval(check, options.pollMs ?? 1000)
  timer.unref()
  return { check, stop: () => clearInterval(timer) }
}
