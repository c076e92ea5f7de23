/**
 * Counters of the engine's running totals across a reset: what a run does after the reset is
 * counted, also when the same run (same seed) reaches the very totals of the run before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { createRegistry } from '../../src/metrics/registry.js'
import { CA } from '../http/helpers.js'
import { parseExposition } from './helpers.js'

describe('fleet counters across a reset', () => {
  let fleet: FleetEngine
  beforeAll(async () => {
    fleet = await createFleet({ agents: 300, seed: 11, workers: 1, paused: true, startTime: Date.parse('2026-03-01T00:00:00Z'), caFingerprint: CA.fingerprint })
  })
  afterAll(() => fleet.close())

  it('count the run after a reset in full, though it ends on the totals of the run before', async () => {
    const { registry } = createRegistry(fleet, { process: false })
    const sum = async (name: string) =>
      parseExposition(await registry.metrics())
        .filter((sample) => sample.name === name)
        .reduce((total, sample) => total + sample.value, 0)
    const names = ['fleetsim_agent_state_transitions_total', 'fleetsim_module_restarts_total', 'fleetsim_agent_events_received_total']
    await fleet.advance(1800)
    const first = await Promise.all(names.map(sum))
    for (const [k, value] of first.entries()) expect(value, names[k]).toBeGreaterThan(0)
    await fleet.reset()
    await fleet.advance(1800)
    // The same seed: the same run, the same totals, counted again.
    expect(await Promise.all(names.map(sum))).toEqual(first.map((value) => 2 * value))
  })
})
