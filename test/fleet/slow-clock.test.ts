/**
 * A clock slower than a timer can wait for (a virtual second past 24.8 days of wall time, below
 * about 5e-7): the step driver waits the longest a timer holds and looks again, where Node took
 * the longer wait as 1 ms and it ran every millisecond, a TimeoutOverflowWarning each time.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'

const open: FleetEngine[] = []

afterEach(async () => {
  await Promise.all(open.splice(0).map((engine) => engine.close()))
})

describe('a clock slower than a timer waits', () => {
  it('sleeps without overflowing a timer, from the start and after a change of speed', async () => {
    const overflows: Error[] = []
    const onWarning = (warning: Error) => {
      if (warning.name === 'TimeoutOverflowWarning') overflows.push(warning)
    }
    process.on('warning', onWarning)
    try {
      const engine = await createFleet({ agents: 50, seed: 2, workers: 1, speed: 1e-10, paused: false, startTime: Date.parse('2026-05-01T00:00:00Z'), caFingerprint: 'AB:CD' })
      open.push(engine)
      await new Promise((resolve) => setTimeout(resolve, 100))
      const before = engine.now()
      await engine.setClock({ speed: 1e-12 })
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(overflows).toEqual([])
      // The clock still runs, too slowly to see: no second has passed.
      expect(engine.now() - before).toBeLessThan(1)
    } finally {
      process.off('warning', onWarning)
    }
  })
})
