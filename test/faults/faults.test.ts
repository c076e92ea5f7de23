import { afterEach, describe, expect, it } from 'vitest'
import type { AdminHarness } from '../admin/helpers.js'
import { AUTH, REST, admin, withFaults } from './helpers.js'

let h: AdminHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const JSON_ACCEPT = { ...AUTH, accept: 'application/json' }
const appinfo = (target: AdminHarness) => target.app.inject({ method: 'GET', url: `${REST}/appinfo`, headers: JSON_ACCEPT })

describe('API fault injection', () => {
  it('waits the drawn latency before answering, and counts it', async () => {
    h = await withFaults('  - { name: slow, operation: appinfo, latency: 250 }\n')
    const response = await appinfo(h)
    expect(response.statusCode).toBe(200)
    expect(h.waits).toEqual([250])
    expect(h.engine.stats.faultsInjected).toEqual({ 'latency appinfo': 1 })
  })

  it('answers an injected error in the envelope with the rule status and message', async () => {
    h = await withFaults('  - { name: down, operation: appinfo, error: { status: 503, rate: 1, message: "Service temporarily unavailable" } }\n')
    const response = await appinfo(h)
    expect(response.statusCode).toBe(503)
    expect(response.json()).toEqual({
      servicename: 'appinfo',
      errors: [{ status: 503, message: 'Service temporarily unavailable', code: 'E_FAULT_INJECTED' }]
    })
    expect(h.engine.stats.faultsInjected['error appinfo']).toBe(1)
  })

  it('fails the first N calls, and again N after a reset', async () => {
    h = await withFaults('  - { name: cold, operation: appinfo, failFirst: { count: 2, status: 500 } }\n')
    const statuses = async () => {
      const out: number[] = []
      for (let k = 0; k < 3; k++) out.push((await appinfo(h as AdminHarness)).statusCode)
      return out
    }
    expect(await statuses()).toEqual([500, 500, 200])
    await admin(h.app, 'POST', '/reset')
    expect(await statuses()).toEqual([500, 500, 200])
    expect(h.engine.stats.faultsInjected).toEqual({ 'fail-first appinfo': 2 })
  })

  it('applies a rule only inside its window of virtual time', async () => {
    h = await withFaults('  - { name: later, operation: appinfo, during: { from: 10m, until: 20m }, error: { rate: 1 } }\n')
    expect((await appinfo(h)).statusCode).toBe(200)
    await admin(h.app, 'POST', '/clock/advance', { seconds: 600 })
    expect((await appinfo(h)).statusCode).toBe(500)
    await admin(h.app, 'POST', '/clock/advance', { seconds: 600 })
    expect((await appinfo(h)).statusCode).toBe(200)
  })

  it('never touches the admin API, /openapi.json or unknown paths', async () => {
    h = await withFaults('  - { name: everything, operation: "*", error: { rate: 1 }, latency: 100 }\n')
    expect((await admin(h.app, 'GET', '/clock')).statusCode).toBe(200)
    expect((await h.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200)
    expect((await h.app.inject({ method: 'GET', url: `${REST}/nothing`, headers: JSON_ACCEPT })).statusCode).toBe(404)
    expect(h.waits).toEqual([])
    expect((await appinfo(h)).statusCode).toBe(500)
  })

  it('injects nothing into a call that fails authentication', async () => {
    h = await withFaults('  - { name: all, operation: "*", error: { rate: 1 } }\n')
    const response = await h.app.inject({ method: 'GET', url: `${REST}/appinfo`, headers: { accept: 'application/json' } })
    expect(response.statusCode).toBe(401)
    expect(h.engine.stats.faultsInjected).toEqual({})
  })

  it('switches off and on through PUT /__admin/faults, which lists the rules', async () => {
    h = await withFaults('  - { name: cold, operation: appinfo, failFirst: 1 }\n')
    const off = await admin(h.app, 'PUT', '/faults', { enabled: false })
    expect(off.json()).toMatchObject({ enabled: false, rules: [{ name: 'cold', operations: ['appinfo'], failFirstLeft: 1 }] })
    expect((await appinfo(h)).statusCode).toBe(200)
    await admin(h.app, 'PUT', '/faults', { enabled: true })
    expect((await appinfo(h)).statusCode).toBe(503)
    expect((await admin(h.app, 'GET', '/faults')).json()).toMatchObject({ enabled: true, rules: [{ failFirstLeft: 0 }] })
  })

  it('rejects a switch that is not a boolean', async () => {
    h = await withFaults('  - { name: cold, operation: appinfo, failFirst: 1 }\n')
    const response = await admin(h.app, 'PUT', '/faults', { enabled: 'no' })
    expect(response.json().errors[0].code).toBe('E_WRONG_TYPE')
  })

  it('holds the finished answer for a stall', async () => {
    h = await withFaults('  - { name: stuck, operation: appinfo, stall: { for: 30s, rate: 1 } }\n')
    const response = await appinfo(h)
    expect(response.statusCode).toBe(200)
    expect(h.waits).toEqual([30_000])
    expect(h.engine.stats.faultsInjected).toEqual({ 'stall appinfo': 1 })
  })

  it('sends a slow body in slices with the full length', async () => {
    h = await withFaults('  - { name: trickle, operation: agentinfo, body: { slow: 1000 } }\n')
    const response = await h.app.inject({ method: 'GET', url: `${REST}/agentinfo?agentstate=ONLINE`, headers: JSON_ACCEPT })
    expect(response.statusCode).toBe(200)
    expect(response.json().values.length).toBeGreaterThan(0)
    const length = Number(response.headers['content-length'])
    expect(response.rawPayload.length).toBe(length)
    // 100-byte slices, one wait of 100 ms after each: a second of waiting per 1000 bytes.
    expect(h.waits.length).toBe(Math.ceil(length / 100))
    expect(h.waits.every((ms) => ms === 100)).toBe(true)
  })

  it('meets the same faults for the same calls after a reset', async () => {
    h = await withFaults('  - { name: coin, operation: appinfo, error: { rate: 0.5 }, latency: { dist: uniform, min: 0, max: 1000 } }\n')
    const run = async () => {
      const statuses: number[] = []
      for (let k = 0; k < 24; k++) statuses.push((await appinfo(h as AdminHarness)).statusCode)
      return statuses
    }
    const first = await run()
    const firstWaits = h.waits.splice(0)
    await admin(h.app, 'POST', '/reset')
    expect(await run()).toEqual(first)
    expect(h.waits).toEqual(firstWaits)
    expect(first).toContain(500)
    expect(first).toContain(200)
  })
})
