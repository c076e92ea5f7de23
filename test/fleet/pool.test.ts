import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine, type StepTaskRunner } from '../../src/fleet/fleet.js'

const START = Date.parse('2026-05-01T00:00:00Z')
const open: FleetEngine[] = []

/** The worker entry that steps part of a shard, leaves an agent half-written and exits its thread. */
const dyingWorker = fileURLToPath(new URL('./dying-worker.ts', import.meta.url))

/** Sends the first step task of the first shard to the dying worker, every other task as usual; logs the first shard's tasks. */
function dieOnce(): { stepTask: StepTaskRunner; firstShard: Array<{ to: number; dying: boolean }> } {
  const firstShard: Array<{ to: number; dying: boolean }> = []
  const stepTask: StepTaskRunner = (task, run) => {
    if (task.range.shard !== 0) return run(task)
    const dying = firstShard.length === 0
    firstShard.push({ to: task.to, dying })
    return dying ? run(task, dyingWorker) : run(task)
  }
  return { stepTask, firstShard }
}

async function fleet(options: { agents: number; seed: number; workers: number; stepTask?: StepTaskRunner }): Promise<FleetEngine> {
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

  it('takes advances asked for at once one after the other: the same clock and digest as in turn', async () => {
    const [inTurn, atOnce] = await Promise.all([fleet({ agents: 5_000, seed: 5, workers: 2 }), fleet({ agents: 5_000, seed: 5, workers: 2 })])
    await inTurn.advance(5 * 86_400)
    await inTurn.advance(5 * 86_400)
    const [, second] = await Promise.all([atOnce.advance(5 * 86_400), atOnce.advance(5 * 86_400)])
    expect(second.now).toBe(inTurn.clockState().now)
    expect(atOnce.clockState().now).toBe(START + 10 * 86_400_000)
    expect(await atOnce.digest()).toBe(await inTurn.digest())
  })

  it.runIf(existsSync('/proc/self/fd'))('leaves no file open when a reset starts new workers, run from source as here (tsx)', async () => {
    const engine = await fleet({ agents: 200, seed: 5, workers: 2 })
    await engine.reset()
    const open = () => readdirSync('/proc/self/fd').length
    const before = open()
    for (let k = 0; k < 8; k++) await engine.reset()
    // With tsx's cache, 8 resets of 2 workers left some 70 files open.
    expect(open() - before).toBeLessThan(10)
  })

  it('keeps its counts by state equal to a full scan while it steps', async () => {
    const engine = await fleet({ agents: 5000, seed: 8, workers: 2 })
    await engine.advance(6 * 3600)
    const { byState } = engine.counts()
    expect(Object.values(byState)).toEqual(engine.scanCounts())
    expect(engine.size()).toBe(5000)
  })

  it('loses no agent when a worker dies in the middle of a step', async () => {
    const dying = dieOnce()
    const crashed = await fleet({ agents: 4000, seed: 9, workers: 2, stepTask: dying.stepTask })
    const intact = await fleet({ agents: 4000, seed: 9, workers: 2 })
    await crashed.advance(7200)
    await intact.advance(7200)
    // The task the dead worker left was sent again once, to a worker that finished it.
    const [died, retried] = dying.firstShard
    expect(retried).toEqual({ to: died.to, dying: false })
    expect(crashed.stats.workerRestarts).toBe(1)
    expect(intact.stats.workerRestarts).toBe(0)
    expect(await crashed.digest()).toBe(await intact.digest())
    expect(Object.values(crashed.counts().byState)).toEqual(crashed.scanCounts())
  })
})
