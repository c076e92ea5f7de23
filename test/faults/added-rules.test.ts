/**
 * Fault rules added and removed through the admin API: POST /__admin/faults takes one rule as a
 * scenario's `faults` entry is written (YAML or JSON), DELETE /__admin/faults/<id> removes any
 * rule listed, and every refusal names the field and what to send instead.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { AppSettings } from '../../src/app.js'
import { MAX_ADDED_RULES } from '../../src/faults/state.js'
import { admin, adminHarness, type AdminHarness } from '../admin/helpers.js'
import { AUTH, REST, withFaults } from './helpers.js'

let h: AdminHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const YAML = { 'content-type': 'application/yaml' }
const JSON_ACCEPT = { ...AUTH, accept: 'application/json' }
const call = (target: AdminHarness, operation: string) => target.app.inject({ method: 'GET', url: `${REST}/${operation}`, headers: JSON_ACCEPT })
const served = (settings: Partial<AppSettings> = {}) => adminHarness({ agents: 10, settings })

async function statuses(target: AdminHarness, operation: string, calls: number): Promise<number[]> {
  const out: number[] = []
  for (let k = 0; k < calls; k++) out.push((await call(target, operation)).statusCode)
  return out
}

interface Listed {
  id: string
  origin: string
  name: string
  failFirstLeft?: number
}
const listed = async (target: AdminHarness) => ((await admin(target.app, 'GET', '/faults')).json() as { rules: Listed[] }).rules

describe('adding a fault rule', () => {
  it('names an unnamed rule after an id no rule has as its name, so a rule named like one never blocks the unnamed', async () => {
    h = await served()
    const first = await admin(h.app, 'POST', '/faults', '{ name: added-2, operation: appinfo, latency: 1 }', YAML)
    expect(first.json()).toMatchObject({ added: 'added-1' })
    for (const expected of ['added-3', 'added-4']) {
      const unnamed = await admin(h.app, 'POST', '/faults', '{ operation: appinfo, latency: 1 }', YAML)
      expect(unnamed.statusCode).toBe(200)
      expect(unnamed.json()).toMatchObject({ added: expected })
    }
    expect((await listed(h)).map((rule) => [rule.id, rule.name])).toEqual([
      ['added-1', 'added-2'],
      ['added-3', 'added-3'],
      ['added-4', 'added-4']
    ])
  })

  it('adds a rule written in YAML, as a scenario entry, that acts from the next call on', async () => {
    h = await served()
    expect((await call(h, 'appinfo')).statusCode).toBe(200)
    const response = await admin(h.app, 'POST', '/faults', '{ name: down, operation: appinfo, error: { status: 503, rate: 1 } }', YAML)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      added: 'added-1',
      enabled: true,
      rules: [
        {
          id: 'added-1',
          origin: 'admin',
          name: 'down',
          operations: ['appinfo'],
          during: null,
          latencyMs: null,
          error: { status: 503, rate: 1, message: 'fault injected by the fleetsim scenario' },
          reset: null,
          stall: null,
          failFirst: null,
          body: null
        }
      ]
    })
    expect((await call(h, 'appinfo')).statusCode).toBe(503)
    expect((await call(h, 'agentmanager')).statusCode).toBe(200)
    expect(h.engine.stats.faultsInjected).toEqual({ 'error appinfo': 1 })
  })

  it('adds a rule sent as JSON, named after its id when it has no name', async () => {
    h = await served()
    const response = await admin(h.app, 'POST', '/faults', { operation: ['appinfo', 'agentmanager'], latency: '250ms' })
    expect(response.json().rules).toMatchObject([{ id: 'added-1', name: 'added-1', operations: ['appinfo', 'agentmanager'], latencyMs: { kind: 'fixed', value: 250 } }])
    await call(h, 'agentmanager')
    expect(h.waits).toEqual([250])
  })

  it('lists added rules after the scenario rules and the quick fault flags, each with its id and origin', async () => {
    h = await adminHarness({ agents: 10, settings: { errorRate: 0.01 } })
    const scenario = 'name: s\ndescription: One rule.\nfleet: { agents: 10, seed: 5 }\nfaults:\n  - { name: cold, operation: appinfo, failFirst: 2 }\n'
    await admin(h.app, 'PUT', '/scenario', scenario, YAML)
    await admin(h.app, 'POST', '/faults', '{ name: warm, operation: appinfo, failFirst: 1 }', YAML)
    expect((await listed(h)).map(({ id, origin, name, failFirstLeft }) => ({ id, origin, name, failFirstLeft }))).toEqual([
      { id: 'scenario-1', origin: 'scenario', name: 'cold', failFirstLeft: 2 },
      { id: 'flag-1', origin: 'flag', name: '--error-rate', failFirstLeft: undefined },
      { id: 'added-1', origin: 'admin', name: 'warm', failFirstLeft: 1 }
    ])
  })

  it('counts an added failFirst rule from when it was added, and again after a reset', async () => {
    h = await served()
    await statuses(h, 'appinfo', 3)
    await admin(h.app, 'POST', '/faults', '{ operation: appinfo, failFirst: { count: 2, status: 500 } }', YAML)
    expect(await statuses(h, 'appinfo', 3)).toEqual([500, 500, 200])
    await admin(h.app, 'POST', '/reset')
    expect(await statuses(h, 'appinfo', 3)).toEqual([500, 500, 200])
  })

  it('keeps added rules when a scenario is loaded or deleted', async () => {
    h = await served()
    await admin(h.app, 'POST', '/faults', '{ name: down, operation: appinfo, error: { rate: 1 } }', YAML)
    await admin(h.app, 'PUT', '/scenario', 'name: s\ndescription: No rules.\nfleet: { agents: 10, seed: 5 }\n', YAML)
    await admin(h.app, 'DELETE', '/scenario')
    expect((await listed(h)).map((rule) => rule.id)).toEqual(['added-1'])
    expect((await call(h, 'appinfo')).statusCode).toBe(500)
  })
})

describe('refusing a fault rule', () => {
  it('names the field, its line and column, and what it expected', async () => {
    h = await served()
    const response = await admin(h.app, 'POST', '/faults', 'operation: appinfo\nerror:\n  rate: lots\n', YAML)
    expect(response.statusCode).toBe(400)
    const { servicename, errors } = response.json()
    expect(servicename).toBe('admin')
    expect(errors).toEqual([
      {
        status: 400,
        code: 'E_INVALID_FAULT_RULE',
        issue: 'FSC_FRACTION',
        path: 'error.rate',
        line: 3,
        column: 9,
        problem: 'expected a fraction between 0 and 1, got "lots"',
        message: expect.stringMatching(/^fault rule:3:9 error.rate: expected a fraction between 0 and 1, got "lots" \(fix this and send the rule again: .*docs\/scenarios.md#faults\)\.$/)
      }
    ])
    expect(await listed(h)).toEqual([])
  })

  it('suggests the key a typo was meant to be', async () => {
    h = await served()
    const response = await admin(h.app, 'POST', '/faults', { operation: 'appinfo', latncy: 100 })
    const messages = (response.json().errors as { message: string }[]).map((error) => error.message)
    expect(messages.some((message) => message.includes('unknown key "latncy"; did you mean "latency"?'))).toBe(true)
  })

  it('asks for a fault when the rule has none', async () => {
    h = await served()
    const response = await admin(h.app, 'POST', '/faults', { operation: 'appinfo' })
    expect(response.json().errors[0]).toMatchObject({ code: 'E_INVALID_FAULT_RULE', issue: 'FSC_MISSING', problem: expect.stringContaining('missing a fault: one or more of latency, error') })
  })

  it('refuses a list: one rule is added at a time', async () => {
    h = await served()
    const response = await admin(h.app, 'POST', '/faults', '- { operation: appinfo, latency: 1 }\n', YAML)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_INVALID_FAULT_RULE', problem: 'expected a fault rule mapping, got a list' })
  })

  it('refuses a name another rule in force has, naming that rule', async () => {
    h = await withFaults('  - { name: cold, operation: appinfo, failFirst: 1 }\n')
    const response = await admin(h.app, 'POST', '/faults', { name: 'cold', operation: 'appinfo', latency: 1 })
    expect(response.statusCode).toBe(409)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_DUPLICATE_NAME', message: expect.stringContaining("the scenario's fault rule scenario-1") })
  })

  it('refuses an empty body, and a type that is not YAML or JSON', async () => {
    h = await served()
    expect((await admin(h.app, 'POST', '/faults', ' ', YAML)).json().errors[0].code).toBe('E_MISSING_BODY')
    const plain = await admin(h.app, 'POST', '/faults', 'operation: appinfo', { 'content-type': 'text/plain' })
    expect(plain.statusCode).toBe(415)
    expect(plain.json().errors[0]).toMatchObject({ code: 'E_SCENARIO_MEDIA_TYPE', message: expect.stringContaining('send the fault rule as application/yaml') })
  })

  it(`keeps at most ${MAX_ADDED_RULES} added rules`, async () => {
    h = await served()
    for (let k = 0; k < MAX_ADDED_RULES; k++) expect((await admin(h.app, 'POST', '/faults', { operation: 'appinfo', latency: 1 })).statusCode).toBe(200)
    const response = await admin(h.app, 'POST', '/faults', { operation: 'appinfo', latency: 1 })
    expect(response.statusCode).toBe(409)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_TOO_MANY_FAULT_RULES', message: expect.stringContaining('DELETE /__admin/faults/<id>') })
    await admin(h.app, 'DELETE', '/faults/added-7')
    expect((await admin(h.app, 'POST', '/faults', { operation: 'appinfo', latency: 1 })).statusCode).toBe(200)
  })
})

describe('removing a fault rule', () => {
  it('removes an added rule, which stops acting at once', async () => {
    h = await served()
    await admin(h.app, 'POST', '/faults', '{ name: down, operation: appinfo, error: { rate: 1 } }', YAML)
    const response = await admin(h.app, 'DELETE', '/faults/added-1')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ removed: 'added-1', enabled: true, rules: [] })
    expect((await call(h, 'appinfo')).statusCode).toBe(200)
  })

  it('never gives an id twice', async () => {
    h = await served()
    await admin(h.app, 'POST', '/faults', { operation: 'appinfo', latency: 1 })
    await admin(h.app, 'DELETE', '/faults/added-1')
    expect((await admin(h.app, 'POST', '/faults', { operation: 'appinfo', latency: 1 })).json().added).toBe('added-2')
  })

  it("removes a scenario rule until the scenario is reset, when it runs as written again", async () => {
    h = await withFaults('  - { name: down, operation: appinfo, error: { rate: 1 } }\n')
    expect((await admin(h.app, 'DELETE', '/faults/scenario-1')).json().rules).toEqual([])
    expect((await call(h, 'appinfo')).statusCode).toBe(200)
    await admin(h.app, 'POST', '/reset')
    expect((await listed(h)).map((rule) => rule.id)).toEqual(['scenario-1'])
    expect((await call(h, 'appinfo')).statusCode).toBe(500)
  })

  it('removes a quick fault flag rule for good', async () => {
    h = await served({ errorRate: 1 })
    await admin(h.app, 'DELETE', '/faults/flag-1')
    await admin(h.app, 'POST', '/reset')
    expect(await listed(h)).toEqual([])
    expect((await call(h, 'appinfo')).statusCode).toBe(200)
  })

  it('leaves the draws of the other rules as they were', async () => {
    const rules = '  - { name: slow, operation: appinfo, latency: 10 }\n  - { name: flaky, operation: appinfo, error: { rate: 0.5 } }\n'
    h = await withFaults(rules)
    const before = await statuses(h, 'appinfo', 60)
    expect(before.filter((status) => status === 500).length).toBeGreaterThan(10)
    await admin(h.app, 'POST', '/reset')
    await admin(h.app, 'DELETE', '/faults/scenario-1')
    expect(await statuses(h, 'appinfo', 60)).toEqual(before)
  })

  it('answers an unknown id with the ids in force', async () => {
    h = await withFaults('  - { name: down, operation: appinfo, error: { rate: 1 } }\n')
    const response = await admin(h.app, 'DELETE', '/faults/added-9')
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_UNKNOWN_FAULT_RULE', message: 'No fault rule has the id "added-9": the rules in force are "scenario-1" (GET /__admin/faults lists them).' })
  })
})
