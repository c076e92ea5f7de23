/**
 * The manager's status poll (src/fleet/status-poll.ts): an agent shows its counters, load,
 * memory and lastOnline as of the manager's last poll of it or its last change of state.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { DEFAULT_STATUS_POLL_SECONDS, lastPollAt } from '../../src/fleet/status-poll.js'

const START = Date.parse('2026-06-01T00:00:00Z')

describe('lastPollAt', () => {
  it('is the latest poll at or before t, polls an interval apart, each agent at a phase of its own', () => {
    const phases = new Set<number>()
    for (let i = 0; i < 500; i++) {
      const first = lastPollAt(7, i, 1000, 60)
      expect(first).toBeLessThanOrEqual(1000)
      expect(first).toBeGreaterThan(1000 - 60)
      // The same poll until the next, 60 s later.
      for (let t = first; t < first + 60; t += 7) expect(lastPollAt(7, i, t, 60)).toBe(first)
      expect(lastPollAt(7, i, first + 60, 60)).toBe(first + 60)
      expect(lastPollAt(7, i, first - 1, 60)).toBe(first - 60)
      phases.add(first % 60)
    }
    // 500 agents spread over the minute, not all at its top.
    expect(phases.size).toBeGreaterThan(50)
  })

  it('is t itself with an interval of 0 (live)', () => {
    expect(lastPollAt(7, 3, 12_345, 0)).toBe(12_345)
  })
})

describe('what an agent shows between polls', () => {
  let fleet: FleetEngine | undefined
  afterEach(async () => {
    await fleet?.close()
  })

  async function online(statusPoll?: number) {
    fleet = await createFleet({ agents: 20, seed: 5, workers: 1, paused: true, startTime: START, caFingerprint: 'AA', ...(statusPoll === undefined ? {} : { statusPoll }) })
    const [index] = fleet.indices(new Set(['ONLINE']))
    return { fleet, index }
  }

  it('keeps counters, load, memory and lastOnline from the last poll, 60 virtual seconds by default', async () => {
    const { fleet, index } = await online()
    await fleet.advance(DEFAULT_STATUS_POLL_SECONDS)
    const polled = fleet.polledAt(index)
    const atPoll = fleet.view(index, true)
    expect(atPoll.lastOnline).toBe(START + polled * 1000)
    // Until the next poll, nothing the agent's flow moves is new.
    await fleet.advance(polled + DEFAULT_STATUS_POLL_SECONDS - 1 - fleet.second())
    expect(fleet.view(index, true)).toEqual(atPoll)
    await fleet.advance(1)
    const next = fleet.view(index, true)
    expect(next.received).toBeGreaterThan(atPoll.received)
    expect(next.sent).toBeGreaterThan(atPoll.sent)
    expect(next.lastOnline).toBe(START + (polled + DEFAULT_STATUS_POLL_SECONDS) * 1000)
  })

  it('shows a change of state at once, with the counters of that second', async () => {
    const { fleet, index } = await online()
    await fleet.advance(DEFAULT_STATUS_POLL_SECONDS)
    // Half way between two polls.
    await fleet.advance((((fleet.polledAt(index) + 30 - fleet.second()) % 60) + 60) % 60)
    expect(fleet.second() - fleet.polledAt(index)).toBe(30)
    const before = fleet.view(index, false)
    await fleet.stopAgents([index])
    const stopped = fleet.view(index, false)
    expect(stopped.status).toBe('ERROR')
    expect(stopped.received).toBeGreaterThan(before.received)
  })

  it('shows the flow live with --status-poll 0', async () => {
    const { fleet, index } = await online(0)
    const first = fleet.view(index, false)
    await fleet.advance(1)
    const second = fleet.view(index, false)
    expect(second.received).toBeGreaterThan(first.received)
    expect(fleet.polledAt(index)).toBe(fleet.second())
  })

  it('refuses an interval that is not whole seconds', async () => {
    await expect(createFleet({ agents: 1, seed: 1, workers: 1, paused: true, caFingerprint: 'AA', statusPoll: 1.5 })).rejects.toThrow(/statusPoll must be whole seconds/)
  })
})
