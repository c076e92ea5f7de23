/**
 * How long `fleetsim run` runs when `--duration` is not given: long enough for the scenario's
 * story (its timeline and its ramp) plus a margin to show the fleet settling, so the chart is
 * the story and not a sliver at its left edge.
 */
import { formatSeconds } from '../lib/units.js'
import type { Scenario, Schedule, TimelineEvent } from '../scenario/types.js'

/** Without a timeline or ramp the fleet's behaviour is the same all day: show one day of it. */
export const UNTIMED_DURATION = 86_400
/** At least this much after the last effect: reconnects, restarts and reverts play out in minutes. */
export const MIN_MARGIN = 900
/** The margin is a quarter of the story at least: the aftermath stays visible at any scale. */
export const MARGIN_FRACTION = 0.25
/** A fitted duration is rounded up to whole 5 minutes, so the axis ends on a round time. */
export const ROUND_TO = 300
/** An `every` event without `times` or `until` repeats forever: the fitted run shows this many. */
export const OPEN_ENDED_OCCURRENCES = 3

/** The start of an event's last occurrence (or of the OPEN_ENDED_OCCURRENCES-th when it never ends). */
export function lastOccurrence(event: TimelineEvent): number {
  const schedule = event.schedule
  if (schedule.kind === 'once') return schedule.at
  const n = schedule.until === null ? (schedule.times ?? OPEN_ENDED_OCCURRENCES) : occurrencesUpTo(schedule, schedule.until)
  return schedule.start + Math.max(0, n - 1) * schedule.every
}

/** How many times a repeating schedule occurs from its start to second `upTo`, both included: at most its `times`. */
export function occurrencesUpTo(schedule: Extract<Schedule, { kind: 'every' }>, upTo: number): number {
  const n = upTo < schedule.start ? 0 : Math.floor((upTo - schedule.start) / schedule.every) + 1
  return schedule.times === null ? n : Math.min(n, schedule.times)
}

/** When the scenario's last scheduled effect is over: the last occurrence, its spread and its `for`. */
export function storyEnd(scenario: Scenario): number {
  return lastEffect(scenario).end
}

/** The scenario's effect that ends last, and when: a timeline event (its last occurrence, spread and `for`), or the fleet's ramp (`event` null). */
export function lastEffect(scenario: Scenario): { end: number; event: TimelineEvent | null } {
  const ramp = scenario.fleet.ramp
  let last: { end: number; event: TimelineEvent | null } = { end: ramp === null ? 0 : ramp.start + ramp.over, event: null }
  for (const event of scenario.timeline) {
    const end = lastOccurrence(event) + event.spread + (event.for ?? 0)
    if (end > last.end) last = { end, event }
  }
  return last
}

/** The default duration in seconds, and why, for the run's summary line and report. */
export function fittedDuration(scenario: Scenario): { seconds: number; reason: string } {
  const end = storyEnd(scenario)
  if (scenario.timeline.length === 0 && scenario.fleet.ramp === null) {
    return { seconds: UNTIMED_DURATION, reason: 'the default for a scenario without a timeline or ramp' }
  }
  const seconds = Math.max(ROUND_TO, Math.ceil((end + Math.max(MIN_MARGIN, end * MARGIN_FRACTION)) / ROUND_TO) * ROUND_TO)
  return { seconds, reason: `fitted to the scenario: its timeline ends at ${formatSeconds(end)}, then ${formatSeconds(seconds - end)} to settle` }
}
