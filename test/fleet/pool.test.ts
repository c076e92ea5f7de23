import { afterEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'

const START = Date.parse('2026-05-01T00:00:00Z')
const open: FleetEngine[] = []

async function fleet(options: { agents: number; seed: number; workers: number }): Promise<FleetEngine> {
  const engine = await createFleet({ ...options, paused: true, startTime: START, caFingerprint: 'AB:CD' })
  open.push(engine)
  return engine
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((engine) => engine.close()))
})

describe('the fleet in a worker pool', () => {
  it('reaches the same digest on one worker and on three, and another with another seed', async () => {
    const [one, three, other] = await Promise.all([
      fleet({ agents: 20_000, seed: 5, workers: 1 }),
      fleet({ agents: 20_000, seed: 5, workers: 3 }),
      fleet({ agents: 20_000, seed: 6, workers: 3 })
    ])
    for (const engine of [one, three, other]) {
      await engine.advance(1800)
      await engine.stopAgents([10, 11])
      await engine.advance(3 * 3600)
    }
    expect(await three.digest()).toBe(await one.digest())
    expect(await other.digest()).not.toBe(await one.digest())
    expect(one.stats.transitions.reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
  })

  it('keeps its counts by state equal to a full scan while it steps', async () => {
    const engine = await fleet({ agents: 5000, seed: 8, workers: 2 })
    await engine.advance(6 * 3600)
    const { byState } = engine.counts()
    expect(Object.values(byState)).toEqual(engine.scanCounts())
    expect(engine.size()).toBe(5000)
  })

  it('loses no agent when a worker dies in the middle of a step', async () => {
    const crashed = await fleet({ agents: 4000, seed: 9, workers: 2 })
    const intact = await fleet({ agents: 4000, seed: 9, workers: 2 })
    await crashed.roundWithCrash(7200, 300)
    await intact.advance(7200)
    expect(crashed.stats.workerRestarts).toBe(1)
    expect(await crashed.digest()).toBe(await intact.digest())
    expect(Object.values(crashed.counts().byState)).toEqual(crashed.scanCounts())
  })
})
