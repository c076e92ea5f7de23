import { describe, expect, it } from 'vitest'
import { fittedDuration, lastOccurrence, storyEnd, UNTIMED_DURATION } from '../../src/run/duration.js'
import { loadScenarioFileOrThrow, parseScenario } from '../../src/scenario/load.js'
import type { Scenario } from '../../src/scenario/types.js'

function scenario(yaml: string): Scenario {
  const loaded = parseScenario(`description: x\n${yaml}`, 'test.yaml')
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  return loaded.scenario
}

describe('the duration of a run without --duration', () => {
  it('covers a one-off event and 15 minutes more: manager-restart-lockout runs 30m, not 24h', async () => {
    const fitted = fittedDuration(await loadScenarioFileOrThrow('scenarios/manager-restart-lockout.yaml'))
    expect(fitted.seconds).toBe(1800)
    expect(fitted.reason).toBe('fitted to the scenario: its timeline ends at 15m, then 15m to settle')
  })

  it('counts the last occurrence, its spread and its for: mass-outage-recovery ends at 1h05m10s, runs 1h25m', async () => {
    const outage = await loadScenarioFileOrThrow('scenarios/mass-outage-recovery.yaml')
    expect(storyEnd(outage)).toBe(3600 + 300 + 10)
    // A quarter of 3910 s (977.5 s) is more than 15m; 4887.5 s rounds up to whole 5 minutes.
    expect(fittedDuration(outage).seconds).toBe(5100)
  })

  it('shows three occurrences of an event that repeats forever', async () => {
    const rolling = await loadScenarioFileOrThrow('scenarios/rolling-restart.yaml')
    // every 1h from 5m, spread 10m: the third starts at 2h05m and is over at 2h15m.
    expect(storyEnd(rolling)).toBe(2 * 3600 + 300 + 600)
    expect(fittedDuration(rolling).seconds).toBe(10_200)
  })

  it('stops at times or until, whichever comes first', () => {
    const { timeline } = scenario(`timeline:
  - { name: a, every: 10m, start: 5m, times: 4, action: offline }
  - { name: b, every: 10m, start: 5m, until: 31m, action: offline }
  - { name: c, every: 10m, start: 5m, until: 1h, times: 2, action: offline }`)
    expect(timeline.map(lastOccurrence)).toEqual([35 * 60, 25 * 60, 15 * 60])
  })

  it('covers a ramp: agents joining for 2h from 30m run 3h10m', () => {
    const ramped = scenario('fleet: { agents: 100, ramp: { start: 30m, over: 2h } }')
    expect(storyEnd(ramped)).toBe(9000)
    expect(fittedDuration(ramped).seconds).toBe(11_400)
  })

  it('runs a day when there is no timeline or ramp', async () => {
    const fitted = fittedDuration(await loadScenarioFileOrThrow('scenarios/steady-fleet.yaml'))
    expect(fitted).toEqual({ seconds: UNTIMED_DURATION, reason: 'the default for a scenario without a timeline or ramp' })
    expect(UNTIMED_DURATION).toBe(86_400)
  })

  it('keeps the 15-minute margin after an event at the very start', () => {
    expect(fittedDuration(scenario('timeline: [{ name: a, at: 0, action: offline }]')).seconds).toBe(900)
  })
})
