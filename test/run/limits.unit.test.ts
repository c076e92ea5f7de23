/** The bounds of a headless run: its duration, its samples and its timeline events, checked before it runs. */
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/flags/config-error.js'
import { RUN_LIMITS, defaultSample, occurrencesWithin, planRun } from '../../src/run/limits.js'
import { parseScenario } from '../../src/scenario/load.js'
import type { Scenario } from '../../src/scenario/types.js'

function scenario(yaml: string): Scenario {
  const loaded = parseScenario(`description: x\n${yaml}`, 'test.yaml')
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  return loaded.scenario
}

function refusal(plan: () => unknown): string {
  try {
    plan()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('expected a refusal')
}

const DAY = 86_400

describe('planRun', () => {
  it('refuses a scenario whose timeline ends past the longest run, before anything runs (it ran until killed)', () => {
    const far = scenario('timeline: [{ name: far, at: 3000d, action: offline }]\n')
    expect(refusal(() => planRun(far, {}))).toBe(
      'test.yaml: its timeline event "far" ends at 3000d, later than the 366d a run may last, so no run can be fitted to it; give --duration 366d or less to run its beginning, or move the event earlier'
    )
    // With --duration, its beginning runs.
    expect(planRun(far, { durationSeconds: DAY })).toMatchObject({ durationSeconds: DAY, sampleSeconds: 60 })
  })

  it('samples a run shorter than a minute without --sample at its length, which the reproduce command can give again', () => {
    const short = scenario('timeline: [{ name: soon, at: 5s, action: offline }]\n')
    // --sample 1m over --duration 30s is refused: the reproduce command of such a run was.
    expect(planRun(short, { durationSeconds: 30 })).toMatchObject({ durationSeconds: 30, sampleSeconds: 30, sampleNote: undefined })
    expect(planRun(short, { durationSeconds: 60 })).toMatchObject({ sampleSeconds: 60 })
  })

  it('cuts a fitted duration past the longest run whose story is within it, and says so', () => {
    const late = scenario('timeline: [{ name: late, at: 300d, action: offline }]\n')
    const plan = planRun(late, {})
    expect(plan.durationSeconds).toBe(RUN_LIMITS.maxSeconds)
    expect(plan.durationNote).toBe('fitted to the scenario: its timeline ends at 300d, then 75d to settle, cut to 366d, the longest run')
  })

  it('samples a long run without --sample less often, within the samples a run keeps, and says why', () => {
    expect(defaultSample(DAY)).toBe(60)
    expect(defaultSample(69 * DAY)).toBe(60)
    expect(defaultSample(70 * DAY)).toBe(120)
    expect(defaultSample(366 * DAY)).toBe(600)
    const plan = planRun(scenario(''), { durationSeconds: 366 * DAY })
    expect(plan).toMatchObject({ sampleSeconds: 600, durationNote: undefined })
    expect(plan.sampleNote).toBe('sampled every 10m: every 1m would make 527,040 samples, more than the 100,000 a run keeps')
    expect(planRun(scenario(''), { durationSeconds: DAY }).sampleNote).toBeUndefined()
  })

  it('refuses a --sample that makes more samples than a run keeps, naming the shortest that fits', () => {
    expect(refusal(() => planRun(scenario(''), { durationSeconds: 30 * DAY, sampleSeconds: 1 }))).toBe(
      '--sample 1s over 30d makes 2,592,000 samples, more than the 100,000 a run keeps; give --sample 26s or longer, or a shorter --duration'
    )
    expect(refusal(() => planRun(scenario('timeline: [{ at: 2d, action: offline }]\n'), { sampleSeconds: 1 }))).toContain('--sample 1s over 2d12h (the duration fitted to the scenario) makes 216,000 samples')
    expect(planRun(scenario(''), { durationSeconds: 30 * DAY, sampleSeconds: 26 }).sampleSeconds).toBe(26)
  })

  it('refuses a timeline that occurs more often than a run records, naming the event and what to change', () => {
    const blink = scenario('timeline: [{ name: blink, every: 1s, action: offline }, { name: once, at: 1h, action: offline }]\n')
    expect(refusal(() => planRun(blink, { durationSeconds: 2 * DAY }))).toBe(
      'the timeline of test.yaml occurs 172,802 times in 2d (event "blink" 172,801 times), more than the 100,000 timeline events a run records; give "blink" a longer "every", or "times" or "until", or run a shorter --duration'
    )
    expect(planRun(blink, { durationSeconds: DAY }).durationSeconds).toBe(DAY)
  })


  it('refuses occurrences whose names add up to more than a run records (each is written out with its name)', () => {
    const name = 'n'.repeat(2000)
    const long = scenario(`timeline: [{ name: ${name}, every: 10s, action: offline }]\n`)
    expect(refusal(() => planRun(long, { durationSeconds: DAY }))).toBe(
      `the timeline events of test.yaml in 1d carry 17,282,000 bytes of names (event "${'n'.repeat(40)}…", 2,000 bytes, 8,641 times), more than the 16,777,216 a run records; give the event a shorter name or a longer "every" (or "times" or "until"), or run a shorter --duration`
    )
    expect(planRun(long, { durationSeconds: DAY / 2 }).durationSeconds).toBe(DAY / 2)
  })
})

describe('occurrencesWithin', () => {
  const event = (yaml: string) => scenario(`timeline: [${yaml}]\n`).timeline[0]
  it('counts the occurrences from the start to the end of the run, both included', () => {
    expect(occurrencesWithin(event('{ at: 10m, action: offline }'), 600)).toBe(1)
    expect(occurrencesWithin(event('{ at: 10m, action: offline }'), 599)).toBe(0)
    expect(occurrencesWithin(event('{ every: 1m, action: offline }'), 600)).toBe(11)
    expect(occurrencesWithin(event('{ every: 1m, start: 5m, action: offline }'), 600)).toBe(6)
    expect(occurrencesWithin(event('{ every: 1m, times: 3, action: offline }'), 600)).toBe(3)
    expect(occurrencesWithin(event('{ every: 1m, until: 2m, action: offline }'), 600)).toBe(3)
    expect(occurrencesWithin(event('{ every: 1m, start: 1h, action: offline }'), 600)).toBe(0)
  })
})
