import { describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine, type FleetOptions } from '../../src/fleet/fleet.js'
import type { AgentConfig } from '../../src/fleet/fleet-api.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { parseScenario } from '../../src/scenario/index.js'
import { closeAfterEach, templateIds } from './helpers.js'

const open = closeAfterEach()

async function fleetWith(options: Partial<FleetOptions> = {}): Promise<FleetEngine> {
  const fleet = await createFleet({ agents: 200, seed: 21, workers: 1, paused: true, startTime: Date.parse('2026-02-01T00:00:00Z'), caFingerprint: 'AB:CD', ...options })
  open.push(fleet)
  return fleet
}

const config = (k: number): AgentConfig => ({
  address: '192.0.2.10',
  port: 4041,
  caFingerprint: 'AB:CD',
  certFingerprint: String(k).repeat(40),
  isLogToFile: true,
  logLevel: 'INFO',
  mode: 'Connect',
  verbatim: ''
})

describe('the join delay of agents added through the API', () => {
  it('keeps the default of 2 to 9 s that added agents had before --join-delay, digest included', async () => {
    const fleet = await fleetWith()
    const added: number[] = []
    for (let k = 0; k < 8; k++) added.push(await fleet.addAgent({ name: `added-${k}`, config: config(k) }))
    const onlineAt = added.map(() => -1)
    for (let second = 1; second <= 12; second++) {
      await fleet.advance(1)
      added.forEach((i, k) => {
        if (onlineAt[k] < 0 && fleet.view(i, false).status !== 'OFFLINE') onlineAt[k] = second
      })
    }
    // Measured on the commit before --join-delay existed, with the same calls.
    expect(onlineAt).toEqual([4, 2, 6, 3, 3, 3, 5, 4])
    expect(await fleet.digest()).toBe('9778f292f6531aa93e72e068e5c7cca952c8873af59c7c6f23993d7be12f5e16')
  })

  it('refuses commands for an added agent until it reports in, saying when it will', async () => {
    const fleet = await fleetWith({ joinDelay: { min: 20, max: 20 } })
    const i = await fleet.addAgent({ name: 'web-01', config: config(1) })
    const reason = (await fleet.stopAgents([i])).failed[0]?.reason
    expect(reason).toBe('agent has not reported in yet: an added agent reports in 20 s after addagent (--join-delay), this one in 20 s of virtual time')
    await fleet.advance(19)
    expect(fleet.view(i, false).status).toBe('OFFLINE')
    expect((await fleet.startAgents([i])).failed[0]?.reason).toContain('this one in 1 s of virtual time')
    await fleet.advance(1)
    expect(fleet.view(i, false).status).toBe('ONLINE')
    expect(await fleet.stopAgents([i])).toEqual({ ok: [i], failed: [] })
  })

  it('names the range of the join delay in the refusal', async () => {
    const fleet = await fleetWith({ joinDelay: { min: 30, max: 60 } })
    const i = await fleet.addAgent({ name: 'web-01', config: config(1) })
    const pending = fleet.reconnectAgents([i], 'updateandreloadagent')
    expect((await pending).failed[0]?.reason).toMatch(/^agent has not reported in yet: an added agent reports in 30 to 60 s after addagent \(--join-delay\), this one in (\d+) s of virtual time$/)
  })

  it('connects an added agent at once with a join delay of 0', async () => {
    const fleet = await fleetWith({ joinDelay: { min: 0, max: 0 } })
    const i = await fleet.addAgent({ name: 'web-01', config: config(1) })
    expect(fleet.view(i, false).status).toBe('ONLINE')
    expect(await fleet.stopAgents([i])).toEqual({ ok: [i], failed: [] })
  })

  it('says only "not connected" once an added agent was forced offline before it reported in', async () => {
    const fleet = await fleetWith({ joinDelay: { min: 20, max: 20 } })
    const i = await fleet.addAgent({ name: 'web-01', config: config(1) })
    await fleet.overrideAgent(i, 'offline', 300)
    expect((await fleet.stopAgents([i])).failed[0]?.reason).toBe('agent is not connected')
  })

  it('refuses a join delay that is not whole seconds from min up to max', async () => {
    await expect(fleetWith({ joinDelay: { min: 9, max: 2 } })).rejects.toThrow('joinDelay must be whole seconds with 0 <= min <= max, got {"min":9,"max":2}')
    await expect(fleetWith({ joinDelay: { min: 0.5, max: 2 } })).rejects.toThrow(RangeError)
  })

  it('refuses an agent a scenario installed that has not reported in yet, saying when it will', async () => {
    const parsed = parseScenario('description: a ramp\nfleet: { agents: 10, seed: 3, ramp: { over: 10m, initial: 5 } }\n', 'ramp.yaml')
    if (!parsed.ok) throw new Error(parsed.issues[0].message)
    const start = Date.parse('2026-02-01T00:00:00Z')
    const fleet = await fleetWith({ agents: 0, startTime: start, scenario: compileScenario(parsed.scenario, start, templateIds()) })
    const waiting = [...fleet.indices(new Set(['OFFLINE']))].filter((i) => i >= 5)
    expect(waiting.length).toBeGreaterThan(0)
    const reason = (await fleet.stopAgents(waiting.slice(0, 1))).failed[0]?.reason
    expect(reason).toMatch(/^agent has not reported in yet: the scenario installs it, to report in \d+ s from now \(virtual time\)$/)
  })
})
