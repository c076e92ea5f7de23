import { describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { closeAfterEach, templateIds } from './helpers.js'
import { libraryFiles, loadScenarioFileOrThrow, parseScenario } from '../../src/scenario/index.js'

const START = Date.parse('2026-06-01T00:00:00Z')
const open = closeAfterEach()

async function run(file: string): Promise<FleetEngine> {
  const scenario = await loadScenarioFileOrThrow(file)
  const compiled = compileScenario(scenario, START, templateIds())
  const engine = await createFleet({ agents: 0, seed: 0, workers: 2, paused: true, startTime: START, caFingerprint: 'AB', scenario: compiled })
  open.push(engine)
  return engine
}

const library = await libraryFiles()

describe('library scenarios in the engine', () => {
  it.each(library.map((f) => [f.split('/').pop(), f]))('%s runs for two virtual hours with consistent counts', async (_name, file) => {
    const engine = await run(file as string)
    await engine.advance(2 * 3600)
    expect(Object.values(engine.counts().byState)).toEqual(engine.scanCounts())
    expect(engine.scenarioInfo()?.second).toBe(7200)
  })

  it('joins as many agents as the fleet has room for, and says how many a join could not add', async () => {
    const parsed = parseScenario('name: crowd\ndescription: More join than there is room for.\nfleet: { agents: 10 }\ntimeline:\n  - { name: crowd, at: 1m, action: join, pick: { count: 50 } }\n', 'crowd.yaml')
    if (!parsed.ok) throw new Error('the scenario is valid')
    const engine = await createFleet({ agents: 0, seed: 0, workers: 1, paused: true, startTime: START, caFingerprint: 'AB', headroom: 20, scenario: compileScenario(parsed.scenario, START, templateIds()) })
    open.push(engine)
    await engine.advance(120)
    expect(engine.counts().agents).toBe(30)
    expect(engine.scenarioInfo()?.timeline).toEqual([{ name: 'crowd', fired: 1, notJoined: 30 }])
    expect(engine.stats.notJoined).toEqual({ crowd: 30 })
  })

  it('fails exactly the picked agents after a template update, the same ones for the same seed', async () => {
    const [a, b] = await Promise.all([run('scenarios/partial-reconnect-failure.yaml'), run('scenarios/partial-reconnect-failure.yaml')])
    const outcomes = await Promise.all(
      [a, b].map(async (engine) => {
        const everyone = [...engine.indices()]
        const pending = engine.reconnectAgents(everyone, 'assigntemplatetoagent')
        await engine.advance(10)
        return pending
      })
    )
    const [first, second] = outcomes
    expect(first.failed).toHaveLength(10)
    expect(first.failed.every((f) => f.reason === 'agent did not reconnect within 10 seconds')).toBe(true)
    expect(second.failed.map((f) => f.index)).toEqual(first.failed.map((f) => f.index))
    expect(a.scenarioInfo()?.reconnectFailureSets[0]).toEqual(first.failed.map((f) => a.name(f.index)))
    for (const { index } of first.failed) expect(a.view(index, false).status).toBe('OFFLINE')
  })

  it('locks every agent out at the manager restart until agentmanager is called', async () => {
    const engine = await run('scenarios/manager-restart-lockout.yaml')
    await engine.advance(15 * 60)
    expect(engine.connectedCount()).toBe(0)
    expect(engine.stats.timelineFired['manager-restart']).toBe(1)
    await engine.advance(600)
    expect(engine.connectedCount()).toBe(0)
    await engine.managerLogin()
    await engine.advance(15)
    expect(engine.connectedCount()).toBeGreaterThan(1000)
  })

  it('lets an advance and a reconnect wait in flight go at a reset: the new run never reaches their seconds', async () => {
    const engine = await run('scenarios/partial-reconnect-failure.yaml')
    // The clock is paused: the reconnect wait (10 virtual seconds) ends only with an advance.
    const waiting = engine.reconnectAgents([...engine.indices()], 'assigntemplatetoagent')
    const advancing = engine.advance(30 * 86_400)
    await engine.reset()
    // Both were waiting for seconds of the run before; without newRun they waited for good.
    const [clock] = await Promise.all([advancing, waiting])
    expect(clock.now).toBeLessThan(START + 30 * 86_400_000)
    expect(engine.scenarioInfo()?.second).toBeLessThan(30 * 86_400)
  })

  it('starts again from the scenario start on reset, with the same digest', async () => {
    const engine = await run('scenarios/flapping-network.yaml')
    await engine.advance(1800)
    const after = await engine.digest()
    await engine.reset()
    expect(engine.scenarioInfo()?.second).toBe(0)
    await engine.advance(1800)
    expect(await engine.digest()).toBe(after)
  })
})

describe('a large rollout', () => {
  it('lists agents before they install, keeps installs UNTRUSTED until the certificate stage, and spreads the second wave', async () => {
    const engine = await run('scenarios/large-rollout-ramp.yaml')
    expect(engine.size()).toBe(100_000)
    expect(engine.counts().byState.OFFLINE).toBeGreaterThan(98_000)
    await engine.advance(15 * 60)
    // Half the ramp in, agents install at 3,300 a minute and 90% of them wait 2 to 5 minutes for
    // their certificate: about 10,000 are UNTRUSTED at any moment.
    const midRamp = engine.counts().byState
    expect(midRamp.UNTRUSTED).toBeGreaterThan(6_000)
    expect(midRamp.UNTRUSTED).toBeLessThan(15_000)
    // One second before the second wave at 2h.
    await engine.advance(105 * 60 - 1)
    const settled = engine.counts().byState
    expect(settled.UNTRUSTED).toBeLessThan(1000)
    expect(settled.ONLINE).toBeGreaterThan(95_000)
    await engine.advance(61)
    // At 2h + 60 s the 5,000 new agents are listed; a twentieth of them (60 s of 20 min) reported in.
    expect(engine.size()).toBe(105_000)
    expect(engine.counts().byState.OFFLINE - settled.OFFLINE).toBeGreaterThan(4000)
    expect(engine.stats.timelineFired['second-wave']).toBe(1)
  })
})
