/**
 * The bounds of a headless run (docs/limits.md, "Headless runs"), checked before anything runs.
 * A run steps every virtual second and keeps every sample and every timeline event it records,
 * so its time and memory, and the size of its report, grow with its duration, its samples and
 * its events: a scenario with a timeline event 100 years ahead ran until killed, and a run of
 * millions of samples or events grew without end and wrote an index.html of hundreds of MB.
 *
 * Without --sample the sample interval grows with a long run (60s, then 2m, 5m, 10m, ...) to stay
 * within the samples a run keeps; a --sample given is refused when it makes more, naming the
 * shortest that fits.
 */
import { ConfigError } from '../flags/config-error.js'
import { formatSeconds } from '../lib/units.js'
import type { Scenario, TimelineEvent } from '../scenario/types.js'
import { fittedDuration, lastEffect, occurrencesUpTo } from './duration.js'

export const RUN_LIMITS = Object.freeze({
  /** the longest run: a year, leap day included */
  maxSeconds: 366 * 86_400,
  /** samples a run keeps after the one at its start: 69 days at the default 60s */
  maxSamples: 100_000,
  /** timeline occurrences a run records */
  maxTimelineEvents: 100_000,
  /**
   * bytes of event names those occurrences carry, each occurrence counted: every one is written
   * out with its name (events.json, index.html), and a name may be as long as a scenario
   */
  maxEventNameBytes: 16 * 1024 * 1024
})

/** The sample interval without --sample, for runs whose 60s samples fit. */
export const DEFAULT_SAMPLE_SECONDS = 60
/** Intervals a long run without --sample is sampled at, the shortest that fits: round times on the axis. */
const SAMPLE_STEPS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400]

const count = (n: number) => n.toLocaleString('en-US')

/** Samples a run of `durationSeconds` takes every `sampleSeconds`, after the one at its start. */
export function sampleCount(durationSeconds: number, sampleSeconds: number): number {
  return Math.ceil(durationSeconds / sampleSeconds)
}

/** The interval without --sample: 60s, or the shortest of SAMPLE_STEPS that keeps the run within maxSamples. */
export function defaultSample(durationSeconds: number): number {
  return SAMPLE_STEPS.find((step) => sampleCount(durationSeconds, step) <= RUN_LIMITS.maxSamples) ?? (SAMPLE_STEPS.at(-1) as number)
}

/** How many times an event occurs in the first `durationSeconds` of a run (its second 0 to durationSeconds, both included). */
export function occurrencesWithin(event: TimelineEvent, durationSeconds: number): number {
  const schedule = event.schedule
  if (schedule.kind === 'once') return schedule.at <= durationSeconds ? 1 : 0
  return occurrencesUpTo(schedule, Math.min(schedule.until ?? Infinity, durationSeconds))
}

/** What a run will be: its duration and sample interval, and how the duration was chosen when not given. */
export interface RunPlan {
  readonly durationSeconds: number
  readonly sampleSeconds: number
  /** how the duration was chosen, when --duration was not given */
  readonly durationNote: string | undefined
  /** why the sample interval is not the default, when --sample was not given and 60s would make too many */
  readonly sampleNote: string | undefined
}

/**
 * The run's duration and sample interval from the flags given (undefined: not given) and the
 * scenario, within RUN_LIMITS; a ConfigError saying which limit and what to give instead
 * otherwise. `--duration` itself is bounded by its rule.
 */
export function planRun(scenario: Scenario, given: { durationSeconds?: number | undefined; sampleSeconds?: number | undefined }): RunPlan {
  const { maxSeconds, maxSamples, maxTimelineEvents, maxEventNameBytes } = RUN_LIMITS
  let durationSeconds = given.durationSeconds
  let durationNote: string | undefined
  if (durationSeconds === undefined) {
    const fitted = fittedDuration(scenario)
    if (fitted.seconds > maxSeconds) {
      const last = lastEffectNamed(scenario)
      if (last.end > maxSeconds) {
        throw new ConfigError(
          'FLEETSIM_INVALID_VALUE',
          `${scenario.source}: ${last.what} ends at ${formatSeconds(last.end)}, later than the ${formatSeconds(maxSeconds)} a run may last, so no run can be fitted to it; give --duration ${formatSeconds(maxSeconds)} or less to run its beginning, or move ${last.it} earlier`
        )
      }
      durationSeconds = maxSeconds
      durationNote = `${fitted.reason}, cut to ${formatSeconds(maxSeconds)}, the longest run`
    } else {
      durationSeconds = fitted.seconds
      durationNote = fitted.reason
    }
    // Never shorter than one sample (--sample is at most maxSeconds by its rule).
    if (given.sampleSeconds !== undefined && given.sampleSeconds > durationSeconds) durationSeconds = given.sampleSeconds
  }
  const over = `${formatSeconds(durationSeconds)}${given.durationSeconds === undefined ? ' (the duration fitted to the scenario)' : ''}`

  let sampleSeconds = given.sampleSeconds
  let sampleNote: string | undefined
  if (sampleSeconds === undefined) {
    sampleSeconds = defaultSample(durationSeconds)
    if (sampleSeconds > durationSeconds) {
      // A run shorter than a minute takes its samples at its start and end either way; as long as
      // the run, the interval is one `run --sample` takes again (the reproduce command names it).
      sampleSeconds = Math.max(1, Math.floor(durationSeconds))
    } else if (sampleSeconds !== DEFAULT_SAMPLE_SECONDS) {
      sampleNote = `sampled every ${formatSeconds(sampleSeconds)}: every ${formatSeconds(DEFAULT_SAMPLE_SECONDS)} would make ${count(sampleCount(durationSeconds, DEFAULT_SAMPLE_SECONDS))} samples, more than the ${count(maxSamples)} a run keeps`
    }
  } else if (sampleCount(durationSeconds, sampleSeconds) > maxSamples) {
    throw new ConfigError(
      'FLEETSIM_INVALID_VALUE',
      `--sample ${formatSeconds(sampleSeconds)} over ${over} makes ${count(sampleCount(durationSeconds, sampleSeconds))} samples, more than the ${count(maxSamples)} a run keeps; give --sample ${formatSeconds(Math.ceil(durationSeconds / maxSamples))} or longer, or a shorter --duration`
    )
  }

  const counts = scenario.timeline.map((event) => {
    const occurrences = occurrencesWithin(event, durationSeconds)
    return { name: event.name, occurrences, nameBytes: occurrences * Buffer.byteLength(event.name) }
  })
  const total = counts.reduce((sum, c) => sum + c.occurrences, 0)
  const fix = (name: string) => `give "${name}" a longer "every", or "times" or "until", or run a shorter --duration`
  if (total > maxTimelineEvents) {
    const most = counts.reduce((a, b) => (b.occurrences > a.occurrences ? b : a))
    throw new ConfigError(
      'FLEETSIM_INVALID_VALUE',
      `the timeline of ${scenario.source} occurs ${count(total)} times in ${over} (event "${shortName(most.name)}" ${count(most.occurrences)} times), more than the ${count(maxTimelineEvents)} timeline events a run records; ${fix(shortName(most.name))}`
    )
  }
  const nameBytes = counts.reduce((sum, c) => sum + c.nameBytes, 0)
  if (nameBytes > maxEventNameBytes) {
    const most = counts.reduce((a, b) => (b.nameBytes > a.nameBytes ? b : a))
    throw new ConfigError(
      'FLEETSIM_INVALID_VALUE',
      `the timeline events of ${scenario.source} in ${over} carry ${count(nameBytes)} bytes of names (event "${shortName(most.name)}", ${count(Buffer.byteLength(most.name))} bytes, ${count(most.occurrences)} times), more than the ${count(maxEventNameBytes)} a run records; give the event a shorter name or a longer "every" (or "times" or "until"), or run a shorter --duration`
    )
  }
  return { durationSeconds, sampleSeconds, durationNote, sampleNote }
}

/** A name as a message shows it: cut after 40 characters. */
function shortName(name: string): string {
  return name.length <= 40 ? name : `${name.slice(0, 40)}…`
}

/** The scenario's last scheduled effect (lastEffect) and what it is, for a message. */
function lastEffectNamed(scenario: Scenario): { end: number; what: string; it: string } {
  const { end, event } = lastEffect(scenario)
  return event === null ? { end, what: 'its ramp', it: 'it' } : { end, what: `its timeline event "${shortName(event.name)}"`, it: 'the event' }
}
