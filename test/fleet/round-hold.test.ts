/**
 * Rounds held while a list is made (Fleet.holdRounds, step-driver.ts): a hold's `ready` waits for
 * the round in flight, no round of the clock starts while a hold is taken until it has waited
 * its bound, and the release lets the rounds go again. Round starts and ends are seen through
 * the step task runner; the bounds checked are lower bounds only, which a slow machine cannot
 * break.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { RoundHold } from '../../src/fleet/fleet-api.js'
import { createFleet, type FleetEngine, type StepTaskRunner } from '../../src/fleet/fleet.js'

const START = Date.parse('2026-05-01T00:00:00Z')
const open: FleetEngine[] = []

afterEach(async () => {
  await Promise.all(open.splice(0).map((engine) => engine.close()))
})

/** A fleet whose clock runs fast enough that a round is due whenever the driver allows one, its rounds seen by `stepTask`. */
async function runningFleet(stepTask: StepTaskRunner, speed = 100_000): Promise<FleetEngine> {
  const engine = await createFleet({ agents: 500, seed: 4, workers: 1, speed, paused: false, startTime: START, caFingerprint: 'AB:CD', stepTask })
  open.push(engine)
  return engine
}

describe('rounds held while a list is made', () => {
  it('makes a hold ready only once the round in flight has ended', async () => {
    let gate: (() => void) | undefined
    const engine = await runningFleet(async (task, run) => {
      // The first round is held in flight until the test opens the gate.
      if (gate === undefined) await new Promise<void>((resolve) => (gate = resolve))
      return run(task)
    })
    await vi.waitFor(() => expect(gate).toBeDefined(), { timeout: 5000 })
    const revision = engine.revision()
    const hold = engine.holdRounds()
    let ready = false
    void hold.ready.then(() => (ready = true))
    try {
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(ready).toBe(false)
    } finally {
      // Open even when the check failed: the fleet closes only once its round has ended.
      ;(gate as () => void)()
    }
    await hold.ready
    // The round's main-thread part is done by then: what a list reads from now is its end.
    expect(engine.revision()).toBeGreaterThan(revision)
    hold.release()
  })

  it('never waits for an advance: a hold taken while one steps days is ready at once', async () => {
    let gate: (() => void) | undefined
    const engine = await createFleet({
      agents: 500,
      seed: 4,
      workers: 1,
      paused: true,
      startTime: START,
      caFingerprint: 'AB:CD',
      stepTask: async (task, run) => {
        // The advance's first round waits until the test opens the gate.
        if (gate === undefined) await new Promise<void>((resolve) => (gate = resolve))
        return run(task)
      }
    })
    open.push(engine)
    const advanced = engine.advance(30 * 86_400)
    await vi.waitFor(() => expect(gate).toBeDefined(), { timeout: 5000 })
    await expectReadyDuringAdvance(engine, advanced, () => (gate as () => void)())
  })

  it('never waits for an advance with the clock running: a clock catch-up queued behind it is not in flight', async () => {
    let gate: (() => void) | undefined
    let lastTo = 0
    const engine = await runningFleet(async (task, run) => {
      // A round of more than ten virtual minutes is the advance's (at speed 600 the clock's cover
      // some 24 s, rounds being 40 ms apart): its first is held until the test opens the gate.
      const long = task.to - lastTo > 600 && lastTo > 0
      lastTo = Math.max(lastTo, task.to)
      if (long && gate === undefined) await new Promise<void>((resolve) => (gate = resolve))
      return run(task)
    }, 600)
    await vi.waitFor(() => expect(lastTo).toBeGreaterThan(0), { timeout: 5000 })
    const advanced = engine.advance(30 * 86_400)
    await vi.waitFor(() => expect(gate).toBeDefined(), { timeout: 5000 })
    // The clock's timer fires meanwhile and queues a catch-up behind the advance.
    await new Promise((resolve) => setTimeout(resolve, 100))
    await expectReadyDuringAdvance(engine, advanced, () => (gate as () => void)())
  })

  it('starts no round while held until it has waited 40 ms past its due time, and goes on after the release', async () => {
    const rounds = seenRounds()
    const engine = await runningFleet(rounds.stepTask)
    await vi.waitFor(() => expect(rounds.ends.length).toBeGreaterThanOrEqual(2), { timeout: 5000 })
    const hold = engine.holdRounds()
    expect(await heldRoundWaited(rounds, hold)).toBeGreaterThanOrEqual(79)
    hold.release()
    const after = rounds.starts.length
    await vi.waitFor(() => expect(rounds.starts.length).toBeGreaterThan(after), { timeout: 5000 })
  })

  it('counts a release once however often it is called: another hold still holds', async () => {
    const rounds = seenRounds()
    const engine = await runningFleet(rounds.stepTask)
    await vi.waitFor(() => expect(rounds.ends.length).toBeGreaterThanOrEqual(2), { timeout: 5000 })
    const first = engine.holdRounds()
    const second = engine.holdRounds()
    first.release()
    first.release()
    expect(await heldRoundWaited(rounds, second)).toBeGreaterThanOrEqual(79)
    second.release()
  })
})

/** Round starts and ends, as the step task runner sees them. */
function seenRounds(): { starts: number[]; ends: number[]; stepTask: StepTaskRunner } {
  const starts: number[] = []
  const ends: number[] = []
  return {
    starts,
    ends,
    stepTask: async (task, run) => {
      starts.push(performance.now())
      const tally = await run(task)
      ends.push(performance.now())
      return tally
    }
  }
}

/**
 * Once `hold` is ready, the wall ms from the end of the last round to the start of the next:
 * it is due 40 ms after that end (MIN_ROUND_INTERVAL_MS), and held 40 ms more (MAX_ROUND_HOLD_MS).
 */
async function heldRoundWaited(rounds: ReturnType<typeof seenRounds>, hold: RoundHold): Promise<number> {
  await hold.ready
  const before = rounds.starts.length
  const lastEnd = rounds.ends[rounds.ends.length - 1]
  await vi.waitFor(() => expect(rounds.starts.length).toBeGreaterThan(before), { timeout: 5000 })
  return rounds.starts[before] - lastEnd
}

/**
 * A hold taken while an advance's round is held in flight is ready all the same (within 2 s),
 * and the advance ends once `openGate` lets its round go (called either way).
 */
async function expectReadyDuringAdvance(engine: FleetEngine, advanced: Promise<unknown>, openGate: () => void): Promise<void> {
  const hold = engine.holdRounds()
  let ready = false
  void hold.ready.then(() => (ready = true))
  try {
    await vi.waitFor(() => expect(ready).toBe(true), { timeout: 2000 })
  } finally {
    openGate()
  }
  await advanced
  hold.release()
}
