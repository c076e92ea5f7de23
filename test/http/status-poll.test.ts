/**
 * --status-poll through startFleetsim: agentinfo shows an agent's counters as of the manager's
 * last poll of it (every minute by default), or live with 0.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'

describe('startFleetsim({ statusPoll })', () => {
  let sim: RunningFleetsim | undefined
  afterEach(async () => {
    await sim?.close()
    sim = undefined
  })

  /** The first ONLINE agent's received counter as agentinfo shows it, and the second of its last poll. */
  async function received(running: RunningFleetsim): Promise<{ received: number; polledAt: number }> {
    const answer = await fetch(`${running.url}/agentinfo?agentstate=ONLINE`, { headers: { ...running.headers, accept: 'application/json' } })
    const first = ((await answer.json()) as { values: Array<{ content: { name: string; received: number } }> }).values[0].content
    return { received: first.received, polledAt: running.engine.polledAt(running.engine.findByName(first.name) as number) }
  }

  it('shows counters live with statusPoll 0', async () => {
    sim = await startFleetsim({ http: true, agents: 5, statusPoll: 0 })
    const before = await received(sim)
    await sim.clock.advance(1)
    expect((await received(sim)).received).toBeGreaterThan(before.received)
  })

  it('shows them as of the last poll otherwise, and new ones after the next', async () => {
    sim = await startFleetsim({ http: true, agents: 5, statusPoll: '1h' })
    await sim.clock.advance(3600)
    const before = await received(sim)
    // A second before the next poll, then the poll.
    await sim.clock.advance(before.polledAt + 3600 - 1 - sim.engine.second())
    expect(await received(sim)).toEqual(before)
    await sim.clock.advance(1)
    expect((await received(sim)).received).toBeGreaterThan(before.received)
  })

  it('refuses a statusPoll that is not whole seconds, naming the flag it stands for', async () => {
    await expect(startFleetsim({ http: true, agents: 5, statusPoll: '1.5s' })).rejects.toThrow('--status-poll must be a duration of whole seconds')
  })
})
