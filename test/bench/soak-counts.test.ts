import { afterEach, describe, expect, it } from 'vitest'
import { settledCounts } from '../../bench/lib/soak-checks.js'
import { createFleet, type FleetEngine, type StepTaskRunner } from '../../src/fleet/fleet.js'

const START = Date.parse('2026-05-01T00:00:00Z')
const open: FleetEngine[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((engine) => engine.close()))
})

/** Holds every step round after its worker has written the agents, before the engine gets the tally. */
function heldRounds() {
  let release: () => void = () => undefined
  const held = new Promise<void>((resolve) => (release = resolve))
  let reached: () => void = () => undefined
  const written = new Promise<void>((resolve) => (reached = resolve))
  const stepTask: StepTaskRunner = async (task, run) => {
    const tally = await run(task)
    reached()
    await held
    return tally
  }
  return { stepTask, written, release }
}

// Regression: the soak compared the counts with a scan at whatever moment its run ended, and
// failed now and then when that moment fell inside a step round.
describe('the soak comparison of the fleet counts with a scan', () => {
  it('waits for the step round in flight, during which the two legitimately differ', async () => {
    const rounds = heldRounds()
    const fleet = await createFleet({ agents: 2000, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AB:CD', stepTask: rounds.stepTask })
    open.push(fleet)
    const stepping = fleet.advance(6 * 3600)
    await rounds.written
    // Mid-round: the workers moved agents, the counts move once the round's tally comes back.
    expect(Object.values(fleet.counts().byState)).not.toEqual(fleet.scanCounts())

    const compared = settledCounts(fleet)
    rounds.release()
    const { counts, scanned } = await compared
    await stepping
    expect(counts).toEqual(scanned)
    expect(fleet.second()).toBe(6 * 3600)
    expect(fleet.clockState().paused).toBe(true)
  })
})
