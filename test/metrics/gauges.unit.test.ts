import { describe, expect, it } from 'vitest'
import { createRegistry } from '../../src/metrics/registry.js'
import { fakeSource, parseExposition, valueOf, type FakeSource } from './helpers.js'

async function scrape(source: FakeSource) {
  const { registry } = createRegistry(source, { process: false })
  return async () => parseExposition(await registry.metrics())
}

describe('fleet and scenario metrics', () => {
  it('report agents by state as the engine counts them', async () => {
    const source = fakeSource()
    const next = await scrape(source)
    source.byState.ONLINE = 90
    source.byState.OFFLINE = 10
    const samples = await next()
    expect(valueOf(samples, 'fleetsim_agents', { state: 'ONLINE' })).toBe(90)
    expect(valueOf(samples, 'fleetsim_agents', { state: 'OFFLINE' })).toBe(10)
    expect(valueOf(samples, 'fleetsim_agents_connected')).toBe(90)
  })

  it('count state transitions by previous and new state, all 30 pairs from the start', async () => {
    const source = fakeSource()
    const next = await scrape(source)
    expect((await next()).filter((s) => s.name === 'fleetsim_agent_state_transitions_total')).toHaveLength(30)
    source.stats.transitions[0 * 6 + 1] = 7 // ONLINE → OFFLINE
    expect(valueOf(await next(), 'fleetsim_agent_state_transitions_total', { from: 'ONLINE', to: 'OFFLINE' })).toBe(7)
  })

  it('show a scenario-less simulator as scenario="" stage=""', async () => {
    const samples = await (await scrape(fakeSource()))()
    expect(samples.filter((s) => s.name === 'fleetsim_scenario_info')).toEqual([{ name: 'fleetsim_scenario_info', labels: { scenario: '', stage: '' }, value: 1 }])
  })

  it('show one info series per stage, and drop the series of a scenario that was replaced', async () => {
    const source = fakeSource()
    const next = await scrape(source)
    source.scenario = { name: 'flapping-network', stages: ['wifi-flap', 'crash'] }
    expect((await next()).filter((s) => s.name === 'fleetsim_scenario_info').map((s) => s.labels.stage)).toEqual(['wifi-flap', 'crash'])
    source.scenario = { name: 'steady-fleet', stages: [] }
    expect((await next()).filter((s) => s.name === 'fleetsim_scenario_info').map((s) => s.labels)).toEqual([{ scenario: 'steady-fleet', stage: '' }])
  })

  it('split injected faults into kind and operation', async () => {
    const source = fakeSource()
    source.stats.faultsInjected['fail-first assigntemplatetoagent'] = 3
    const samples = await (await scrape(source))()
    expect(valueOf(samples, 'fleetsim_api_faults_injected_total', { kind: 'fail-first', operation: 'assigntemplatetoagent' })).toBe(3)
  })

  it('count timeline events by name', async () => {
    const source = fakeSource()
    const next = await scrape(source)
    source.stats.timelineFired['manager-restart'] = 1
    expect(valueOf(await next(), 'fleetsim_timeline_events_fired_total', { event: 'manager-restart' })).toBe(1)
  })

  it('report the virtual clock in seconds', async () => {
    const samples = await (await scrape(fakeSource()))()
    expect(valueOf(samples, 'fleetsim_virtual_clock_time_seconds')).toBe(1_700_000_000)
    expect(valueOf(samples, 'fleetsim_virtual_clock_speed_ratio')).toBe(60)
    expect(valueOf(samples, 'fleetsim_virtual_clock_paused')).toBe(0)
  })

  it('read scenario information from an engine without the scenarioInfo method', async () => {
    const source = fakeSource()
    delete (source as Partial<FakeSource>).scenarioInfo
    const samples = await (await scrape(source))()
    expect(valueOf(samples, 'fleetsim_scenario_info')).toBe(1)
  })
})
