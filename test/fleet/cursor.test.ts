/**
 * Fleet.cursor: the agents a list walks, one at a time, are the ones a scan
 * of every agent's state finds, in index order; deleted agents are skipped and one added while the
 * cursor walks is found.
 */
import { describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import type { IndexCursor } from '../../src/fleet/fleet-api.js'
import type { AgentStateName } from '../../src/protocol/states.js'
import { closeAfterEach } from './helpers.js'

const open = closeAfterEach()

async function fleetOf(agents: number): Promise<FleetEngine> {
  const fleet = await createFleet({ agents, seed: 21, workers: 1, paused: true, startTime: Date.parse('2026-02-01T00:00:00Z'), caFingerprint: 'AB:CD' })
  open.push(fleet)
  return fleet
}

function walked(cursor: IndexCursor): number[] {
  const out: number[] = []
  for (let i = cursor.next(); i !== -1; i = cursor.next()) out.push(i)
  // Done stays done.
  expect(cursor.next()).toBe(-1)
  return out
}

describe('the fleet cursor', () => {
  it('walks the agents of the states asked for, as indices() and a scan of every view give them', async () => {
    const fleet = await fleetOf(300)
    const online = [...fleet.indices(new Set(['ONLINE']))]
    await fleet.stopAgents(online.slice(0, 20))
    await fleet.deleteAgents(online.slice(20, 30), false)
    await fleet.advance(120)
    const everyone = [...fleet.indices()]
    expect(everyone).toHaveLength(290)
    const states = new Set(everyone.map((i) => fleet.view(i, false).status as AgentStateName))
    expect(states.size).toBeGreaterThan(1)
    for (const asked of [undefined, ...[...states].map((state) => new Set([state])), states]) {
      const scanned = everyone.filter((i) => asked === undefined || asked.has(fleet.view(i, false).status as AgentStateName))
      expect(walked(fleet.cursor(asked))).toEqual(scanned)
    }
    // Deleted agents are never walked.
    expect(walked(fleet.cursor())).not.toContain(online[20])
  })

  it('finds an agent added while it walks', async () => {
    const fleet = await fleetOf(50)
    const cursor = fleet.cursor()
    const first = cursor.next()
    expect(first).toBe(0)
    const added = await fleet.addAgent({
      name: 'added-while-walking',
      config: { address: 'manager', port: 4041, caFingerprint: 'AB:CD', certFingerprint: 'CE:RT', isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' }
    })
    expect(walked(cursor)).toEqual([...[...fleet.indices()].filter((i) => i !== first)])
    expect([...fleet.indices()]).toContain(added)
    // Once done, it stays done: an agent added after it said -1 is not walked.
    const more = await fleet.addAgent({
      name: 'added-after-the-end',
      config: { address: 'manager', port: 4041, caFingerprint: 'AB:CD', certFingerprint: 'CE:RU', isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' }
    })
    expect([...fleet.indices()]).toContain(more)
    expect(cursor.next()).toBe(-1)
  })
})
