import { describe, expect, it } from 'vitest'
import { FleetHistory, MAX_EVENTS } from '../../src/console/fleet-history.js'
import { createFleet } from '../../src/fleet/fleet.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { parseScenario } from '../../src/scenario/load.js'
import { closeAfterEach, templateIds } from '../fleet/helpers.js'

const START = Date.parse('2026-06-01T00:00:00Z')
const open = closeAfterEach()

describe('the console fleet history', () => {
  // A timeline event every millisecond at speed 300 took the server down: its firings between
  // two samples were spread into one push, past the stack's size.
  // A scenario file may no longer say `every: 1ms` (whole seconds only); the engine is given such
  // a schedule directly, as the cheapest way to fire hundreds of thousands of times.
  it('keeps the newest events of a timeline that fired hundreds of thousands of times between two samples', async () => {
    const parsed = parseScenario('description: x\nfleet: { agents: 10 }\ntimeline:\n  - { name: blink, every: 1s, action: offline, for: 1s }\n', 'blink.yaml')
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
    const [event] = parsed.scenario.timeline
    if (event.schedule.kind !== 'every') throw new Error('expected a repeating event')
    const everyMs = { ...parsed.scenario, timeline: [{ ...event, schedule: { ...event.schedule, every: 0.001 } }] }
    const engine = await createFleet({ agents: 0, seed: 0, workers: 1, paused: true, startTime: START, caFingerprint: 'AB', scenario: compileScenario(everyMs, START, templateIds()) })
    open.push(engine)
    const history = new FleetHistory(engine)
    history.record()
    await engine.advance(600)
    expect(() => history.record()).not.toThrow()
    const series = history.series()
    expect(series.events).toHaveLength(MAX_EVENTS)
    expect(series.events.at(-1)?.second).toBe(600)
    expect(series.events.every((event) => event.label === 'blink (offline)')).toBe(true)
  })

  it('takes a paused fleet\'s last sample again when an operation changes its counts, and readers start afresh', async () => {
    const engine = await createFleet({ agents: 20, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AB' })
    open.push(engine)
    const history = new FleetHistory(engine)
    history.record()
    const before = history.series()
    const generation = history.generation
    const online = before.byState.ONLINE[0]
    expect(online).toBeGreaterThan(0)
    // Nothing changed: nothing new, readers go on.
    history.record()
    expect(history.generation).toBe(generation)
    const [index] = engine.indices(new Set(['ONLINE']))
    await engine.stopAgents([index])
    history.record()
    const after = history.series()
    expect(after.seconds).toEqual(before.seconds)
    expect(after.byState.ONLINE).toEqual([online - 1])
    expect(after.byState.ERROR[0]).toBe(before.byState.ERROR[0] + 1)
    expect(history.generation).toBeGreaterThan(generation)
  })

  it('takes no sample of a fleet being rebuilt: the first after a reset counts it whole', async () => {
    const engine = await createFleet({ agents: 20_000, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AB' })
    open.push(engine)
    const history = new FleetHistory(engine)
    history.record()
    const reset = engine.reset()
    while (engine.resetting() === undefined || engine.size() !== 0) await new Promise((resolve) => setImmediate(resolve))
    history.record()
    const total = (series: ReturnType<FleetHistory['series']>) => Object.values(series.byState).reduce((sum, counts) => sum + (counts.at(-1) ?? 0), 0)
    // Still the run before's sample, not one of the fleet being rebuilt.
    expect(total(history.series())).toBe(20_000)
    await reset
    history.record()
    const series = history.series()
    expect(series.seconds).toEqual([0])
    expect(Object.values(series.byState).reduce((sum, counts) => sum + counts[0], 0)).toBe(20_000)
  })
})
