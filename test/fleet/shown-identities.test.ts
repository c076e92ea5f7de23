/**
 * An agent's identity text is kept between reads (shown-identities.ts): every read must still
 * show what the agent is now, after renames and reconfigurations, for agents that share a slot,
 * and after the fleet is rebuilt.
 */
import { describe, expect, it, vi } from 'vitest'
import { createFleet } from '../../src/fleet/fleet.js'
import type { AgentConfig } from '../../src/fleet/fleet-api.js'
import { SLOTS, ShownIdentities } from '../../src/fleet/shown-identities.js'
import { closeAfterEach } from './helpers.js'

const open = closeAfterEach()
const START = Date.parse('2026-02-01T00:00:00Z')

const shown = (name: string) => ({ name, uuid: 'u', address: 'a', port: 1, service: 'a:1', sysinfoOs: 0, sysinfo: 's' })

describe('ShownIdentities', () => {
  it('gives back an identity at the revision it was kept at, for its own index only', () => {
    const kept = new ShownIdentities()
    kept.set(5, 1, shown('five'))
    expect(kept.get(5, 1)?.name).toBe('five')
    expect(kept.get(5, 2)).toBeUndefined()
    expect(kept.get(5 + SLOTS, 1)).toBeUndefined()
    kept.set(5 + SLOTS, 1, shown('other'))
    expect(kept.get(5, 1)).toBeUndefined()
    expect(kept.get(5 + SLOTS, 1)?.name).toBe('other')
  })
})

describe('agent views with kept identities', () => {
  it('show a rename and a new address and port at the next read', async () => {
    const fleet = await createFleet({ agents: 50, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AB:CD' })
    open.push(fleet)
    const before = fleet.view(7, false)
    expect(fleet.view(7, false).name).toBe(before.name)
    const config: AgentConfig = { ...fleet.config(7), address: '192.0.2.77', port: 4141 }
    await fleet.modifyAgent(7, 'renamed-seven', config)
    const after = fleet.view(7, false)
    expect([after.name, after.address, after.service]).toEqual(['renamed-seven', '192.0.2.77', '192.0.2.77:4141'])
    expect(after.uuid).toBe(before.uuid)
    expect(fleet.view(8, false).name).toBe(fleet.name(8))
  })

  it('keep an identity only when the read asks to (a list longer than what is kept does not)', async () => {
    const fleet = await createFleet({ agents: 50, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AB:CD' })
    open.push(fleet)
    const kept = vi.spyOn(ShownIdentities.prototype, 'set')
    try {
      const passing = fleet.view(9, false, false)
      expect(kept).not.toHaveBeenCalled()
      const read = fleet.view(9, false)
      expect(kept).toHaveBeenCalledTimes(1)
      expect(read).toEqual(passing)
      fleet.view(9, false)
      expect(kept).toHaveBeenCalledTimes(1)
    } finally {
      kept.mockRestore()
    }
  })

  it('show each agent its own identity when two share a slot', async () => {
    const fleet = await createFleet({ agents: SLOTS + 10, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AB:CD' })
    open.push(fleet)
    for (let round = 0; round < 2; round++) {
      for (const i of [3, SLOTS + 3]) {
        const view = fleet.view(i, false)
        expect([view.name, view.uuid]).toEqual([fleet.name(i), fleet.uuid(i)])
      }
    }
  })

  it('show the generated identities again once the fleet is rebuilt', async () => {
    const fleet = await createFleet({ agents: 50, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AB:CD' })
    open.push(fleet)
    const generated = fleet.view(4, false).name
    await fleet.modifyAgent(4, 'renamed-four', fleet.config(4))
    expect(fleet.view(4, false).name).toBe('renamed-four')
    await fleet.reset()
    expect(fleet.view(4, false).name).toBe(generated)
  })
})
