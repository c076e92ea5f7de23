import { beforeEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import type { AgentConfig } from '../../src/fleet/fleet-api.js'
import { closeAfterEach } from './helpers.js'

const open = closeAfterEach()
/** The fleet of the running test: each test gets a new one (small, one worker, clock paused), so no test sees what another changed. */
let fleet: FleetEngine

beforeEach(async () => {
  fleet = await createFleet({ agents: 200, seed: 21, workers: 1, paused: true, startTime: Date.parse('2026-02-01T00:00:00Z'), caFingerprint: 'AB:CD' })
  open.push(fleet)
})

function onlineAgents(n: number): number[] {
  return [...fleet.indices(new Set(['ONLINE']))].slice(0, n)
}

const config: AgentConfig = {
  address: '192.0.2.10',
  port: 4041,
  caFingerprint: 'AB:CD',
  certFingerprint: 'aa'.repeat(20),
  isLogToFile: true,
  logLevel: 'INFO',
  mode: 'Connect',
  verbatim: ''
}

describe('operations on the fleet', () => {
  it('stops every module of an agent, which then reads ERROR', async () => {
    const [i] = onlineAgents(1)
    const outcome = await fleet.stopAgents([i])
    expect(outcome).toEqual({ ok: [i], failed: [] })
    const view = fleet.view(i, true)
    expect(view.status).toBe('ERROR')
    expect(view.modules?.every((m) => !m.isRunning && m.status === 'STOPPED')).toBe(true)
  })

  it('restarts modules, which are RUNNING again after a short virtual delay', async () => {
    const [i] = onlineAgents(1)
    await fleet.stopAgents([i])
    await fleet.startAgents([i])
    expect(fleet.view(i, true).modules?.every((m) => m.status === 'STARTING')).toBe(true)
    await fleet.advance(5)
    expect(fleet.view(i, false).status).toBe('ONLINE')
  })

  it('refuses commands for an agent that is not connected, saying why', async () => {
    const offline = [...fleet.indices(new Set(['OFFLINE']))][0]
    const outcome = await fleet.stopAgents([offline])
    expect(outcome.failed).toEqual([{ index: offline, reason: 'agent is not connected' }])
  })

  it('answers a reconnect only after the agents are back, in virtual time', async () => {
    const agents = onlineAgents(3)
    let answered = false
    const pending = fleet.reconnectAgents(agents).then((outcome) => {
      answered = true
      return outcome
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(answered).toBe(false)
    await fleet.advance(10)
    const outcome = await pending
    expect(outcome.ok).toEqual(agents)
    for (const i of agents) expect(fleet.view(i, false).status).toBe('ONLINE')
  })

  it('reports an agent forced to fail its reconnect, which stays OFFLINE', async () => {
    const [good, bad] = onlineAgents(2)
    await fleet.failNextReconnect(bad)
    const pending = fleet.reconnectAgents([good, bad])
    await fleet.advance(10)
    const outcome = await pending
    expect(outcome.ok).toEqual([good])
    expect(outcome.failed).toEqual([{ index: bad, reason: 'agent did not reconnect within 10 seconds' }])
    expect(fleet.view(bad, false).status).toBe('OFFLINE')
  })

  it('adds an agent that reports in shortly after', async () => {
    const before = fleet.size()
    const i = await fleet.addAgent({ name: 'added-agent', config })
    expect(fleet.size()).toBe(before + 1)
    expect(fleet.findByName('added-agent')).toBe(i)
    expect(fleet.findByUuid(fleet.uuid(i))).toBe(i)
    expect(fleet.findByCertFingerprint('AA:'.repeat(19) + 'AA')).toBe(i)
    expect(fleet.view(i, false).status).toBe('OFFLINE')
    await fleet.advance(15)
    expect(fleet.view(i, false).status).toBe('ONLINE')
  })

  it('renames an agent and makes it UNMANAGED when its mode is Unmanaged', async () => {
    const [i] = onlineAgents(1)
    const oldName = fleet.name(i)
    await fleet.modifyAgent(i, 'renamed-agent', { ...fleet.config(i), mode: 'Unmanaged' })
    expect(fleet.findByName('renamed-agent')).toBe(i)
    expect(fleet.findByName(oldName)).toBeUndefined()
    expect(fleet.view(i, false).status).toBe('UNMANAGED')
    expect(fleet.config(i).mode).toBe('Unmanaged')
  })

  it('deletes agents; one deleted without revoking comes back hours later', async () => {
    const [revoked, kept] = onlineAgents(2)
    const [revokedName, keptName] = [fleet.name(revoked), fleet.name(kept)]
    const before = fleet.size()
    await fleet.deleteAgents([revoked], true)
    await fleet.deleteAgents([kept], false)
    expect(fleet.size()).toBe(before - 2)
    expect(fleet.findByName(keptName)).toBeUndefined()
    await fleet.advance(8 * 3600)
    expect(fleet.findByName(keptName)).toBe(kept)
    expect(fleet.findByName(revokedName)).toBeUndefined()
    expect(Object.values(fleet.counts().byState)).toEqual(fleet.scanCounts())
  })

  it('keeps every connected agent OFFLINE after a manager restart until agentmanager is called', async () => {
    await fleet.managerRestart()
    const { byState } = fleet.counts()
    expect(byState.ONLINE + byState.ERROR + byState.UNTRUSTED + byState.FORGED).toBe(0)
    expect(fleet.connectedCount()).toBe(0)
    await fleet.managerLogin()
    // Unlocked, the agents reconnect over the next seconds rather than all at once.
    expect(fleet.counts().byState.ONLINE).toBe(0)
    await fleet.advance(10)
    expect(fleet.counts().byState.ONLINE).toBeGreaterThan(0.75 * fleet.size())
    expect(Object.values(fleet.counts().byState)).toEqual(fleet.scanCounts())
  })
})

describe('admin overrides', () => {
  it('forces one agent OFFLINE for a while, after which it comes back', async () => {
    const [i] = [...fleet.indices(new Set(['ONLINE']))]
    await fleet.overrideAgent(i, 'offline', 60)
    expect(fleet.view(i, false).status).toBe('OFFLINE')
    await fleet.advance(61)
    expect(fleet.view(i, false).status).toBe('ONLINE')
  })

  it('forces an agent FORGED until something else changes it', async () => {
    const [i] = [...fleet.indices(new Set(['ONLINE']))]
    await fleet.overrideAgent(i, 'forged')
    await fleet.advance(600)
    expect(fleet.view(i, false).status).toBe('FORGED')
    await fleet.overrideAgent(i, 'online')
    expect(fleet.view(i, false).status).toBe('ONLINE')
  })
})

describe('a corrupt configuration', () => {
  it('keeps the agent in ERROR through a restart, until its configuration is replaced', async () => {
    const [restarted, replaced, reloaded] = [...fleet.indices(new Set(['ONLINE']))]
    for (const i of [restarted, replaced, reloaded]) await fleet.overrideAgent(i, 'error')
    await fleet.startAgents([restarted])
    await fleet.modifyAgent(replaced, fleet.name(replaced), fleet.config(replaced))
    const reconnect = fleet.reconnectAgents([reloaded])
    await fleet.advance(10)
    await reconnect
    expect(fleet.view(restarted, false).status).toBe('ERROR')
    expect(fleet.view(replaced, false).status).toBe('ONLINE')
    expect(fleet.view(reloaded, false).status).toBe('ONLINE')
  })
})
