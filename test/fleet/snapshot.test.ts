import { describe, expect, it } from 'vitest'
import { FleetEngine, createFleet } from '../../src/fleet/fleet.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { closeAfterEach, templateIds } from './helpers.js'
import { loadScenarioFileOrThrow } from '../../src/scenario/index.js'

const START = Date.parse('2026-07-01T00:00:00Z')
const open = closeAfterEach()

function track(engine: FleetEngine): FleetEngine {
  open.push(engine)
  return engine
}

describe('saving and resuming a run', () => {
  it('continues with the same digest as a run that was never stopped', async () => {
    const options = { agents: 3000, seed: 31, workers: 2, paused: true, startTime: START, caFingerprint: 'AB' }
    const [kept, stopped] = await Promise.all([createFleet(options), createFleet(options)].map((p) => p.then(track)))
    for (const engine of [kept, stopped]) {
      await engine.advance(3600)
      await engine.addAgent({ name: 'late-agent', config: { ...engine.config(0), certFingerprint: 'ab'.repeat(20) } })
      await engine.modifyAgent(5, 'renamed', engine.config(5))
      await engine.stopAgents([7])
    }
    const saved = await stopped.snapshot()
    await stopped.close()
    const resumed = track(await FleetEngine.restore(saved, { workers: 1, caFingerprint: 'AB' }))
    expect(await resumed.digest()).toBe(await kept.digest())
    await kept.advance(7200)
    await resumed.advance(7200)
    expect(await resumed.digest()).toBe(await kept.digest())
    expect(resumed.findByName('renamed')).toBe(5)
    expect(resumed.findByName('late-agent')).toBe(kept.findByName('late-agent'))
    expect(Object.values(resumed.counts().byState)).toEqual(resumed.scanCounts())
  })

  it('puts the clock back where it was saved, within the fleet\'s second (a save paused mid-second resumed up to a second early)', async () => {
    const engine = track(await createFleet({ agents: 10, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AB' }))
    await engine.advance(3600)
    const saved = await engine.snapshot()
    await engine.close()
    expect(saved.clockMs).toBe(3_600_000)
    const clockAt = async (clockMs: number | undefined) => {
      const resumed = track(await FleetEngine.restore({ ...saved, clockMs }, { workers: 1, caFingerprint: 'AB' }))
      const now = resumed.clockState().now - START
      await resumed.close()
      return now
    }
    // Paused 600 ms into the second the fleet stood at.
    expect(await clockAt(3_600_600)).toBe(3_600_600)
    // A file saved before clockMs; a clock saved seconds ahead of the fleet: the fleet's second.
    expect(await clockAt(undefined)).toBe(3_600_000)
    expect(await clockAt(3_605_000)).toBe(3_600_999)
  })

  it('resumes a scenario where it stopped, timeline and reconnect picks included', async () => {
    const scenario = await loadScenarioFileOrThrow('scenarios/mass-outage-recovery.yaml')
    const compile = () => compileScenario(scenario, START, templateIds())
    const make = () => createFleet({ agents: 0, seed: 0, workers: 2, paused: true, startTime: START, caFingerprint: 'AB', scenario: compile() }).then(track)
    const [kept, stopped] = await Promise.all([make(), make()])
    await kept.advance(1200)
    await stopped.advance(1200)
    const saved = await stopped.snapshot()
    await stopped.close()
    const resumed = track(await FleetEngine.restore(saved, { workers: 2, caFingerprint: 'AB', scenario: compile() }))
    await kept.advance(3 * 3600)
    await resumed.advance(3 * 3600)
    expect(await resumed.digest()).toBe(await kept.digest())
    expect(resumed.scenarioInfo()?.timeline).toEqual(kept.scenarioInfo()?.timeline)
  })
})
