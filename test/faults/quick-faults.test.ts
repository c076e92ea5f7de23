/**
 * serve's quick fault flags on the served app: --error-rate and --latency act as the scenario's
 * fault rules do, alongside them, listed and switched by /__admin/faults, and keep the fast path
 * aside as any fault rule does.
 */
import { once } from 'node:events'
import { createServer, request as httpRequest, type Server } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import type { AppSettings } from '../../src/app.js'
import { parseServeConfig } from '../../src/config.js'
import { admin, adminHarness, type AdminHarness } from '../admin/helpers.js'
import { harness as appHarness, type Harness } from '../http/helpers.js'
import { AUTH, REST } from './helpers.js'

let h: AdminHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** The fault settings `fleetsim serve <argv>` gives the app. */
function faultFlags(argv: string[]): Partial<AppSettings> {
  const { latency, errorRate, faultOperations } = parseServeConfig(argv, {})
  return { latency, errorRate, faultOperations }
}

const served = (argv: string[]) => adminHarness({ agents: 10, settings: faultFlags(argv) })
const JSON_ACCEPT = { ...AUTH, accept: 'application/json' }
const call = (target: AdminHarness, operation: string) => target.app.inject({ method: 'GET', url: `${REST}/${operation}`, headers: JSON_ACCEPT })

async function statuses(target: AdminHarness, calls: number): Promise<number[]> {
  const out: number[] = []
  for (let k = 0; k < calls; k++) out.push((await call(target, 'appinfo')).statusCode)
  return out
}

describe('--error-rate', () => {
  it('answers about half of 200 calls at 50% with an injected error, the same calls after a reset', async () => {
    h = await served(['--error-rate', '50%'])
    const first = await statuses(h, 200)
    const errors = first.filter((status) => status === 500).length
    // Drawn from the fleet's seed (7) and each call's sequence number, so the count is exact:
    // 106 of 200, about half.
    expect(errors).toBe(106)
    expect(first.filter((status) => status !== 500 && status !== 200)).toEqual([])
    expect(h.engine.stats.faultsInjected).toEqual({ 'error appinfo': errors })
    await admin(h.app, 'POST', '/reset')
    expect(await statuses(h, 200)).toEqual(first)
  })

  it('answers with the status and message of a scenario error rule that names neither', async () => {
    h = await served(['--error-rate', '100%'])
    const response = await call(h, 'agentmanager')
    expect(response.statusCode).toBe(500)
    expect(response.json()).toEqual({
      servicename: 'agentmanager',
      errors: [{ status: 500, message: 'fault injected by the fleetsim scenario', code: 'E_FAULT_INJECTED' }]
    })
  })
})

describe('--latency', () => {
  it('waits exactly the latency before every call when it has no spread', async () => {
    h = await served(['--latency', '200ms'])
    for (const operation of ['appinfo', 'agentmanager', 'certificateinfo']) expect((await call(h, operation)).statusCode).toBe(200)
    expect(h.waits).toEqual([200, 200, 200])
    expect(h.engine.stats.faultsInjected).toEqual({ 'latency appinfo': 1, 'latency agentmanager': 1, 'latency certificateinfo': 1 })
  })

  it('waits a uniform draw within the spread', async () => {
    h = await served(['--latency', '200ms±50ms'])
    await statuses(h, 50)
    expect(h.waits).toHaveLength(50)
    expect(Math.min(...h.waits)).toBeGreaterThanOrEqual(150)
    expect(Math.max(...h.waits)).toBeLessThanOrEqual(250)
    // A uniform draw over 50 calls lands in both halves of the range.
    expect(h.waits.some((ms) => ms < 200) && h.waits.some((ms) => ms > 200)).toBe(true)
  })

  it('adds no rule at 0ms, nor --error-rate at 0%', async () => {
    h = await served(['--latency', '0ms', '--error-rate', '0%'])
    expect((await admin(h.app, 'GET', '/faults')).json()).toEqual({ enabled: true, rules: [] })
  })
})

describe('the quick fault flags', () => {
  it('are listed by GET /__admin/faults and switched off and on by PUT /__admin/faults', async () => {
    h = await served(['--latency', '200ms+-50ms', '--error-rate', '5%'])
    const listed = (await admin(h.app, 'GET', '/faults')).json() as { enabled: boolean; rules: unknown[] }
    expect(listed).toEqual({
      enabled: true,
      rules: [
        { id: 'flag-1', origin: 'flag', name: '--latency', operations: null, during: null, latencyMs: { kind: 'uniform', min: 150, max: 250 }, error: null, reset: null, stall: null, failFirst: null, body: null },
        { id: 'flag-2', origin: 'flag', name: '--error-rate', operations: null, during: null, latencyMs: null, error: { status: 500, rate: 0.05, message: 'fault injected by the fleetsim scenario' }, reset: null, stall: null, failFirst: null, body: null }
      ]
    })
    expect((await admin(h.app, 'PUT', '/faults', { enabled: false })).json()).toMatchObject({ enabled: false, rules: listed.rules })
    await statuses(h, 5)
    expect(h.waits).toEqual([])
    await admin(h.app, 'PUT', '/faults', { enabled: true })
    await statuses(h, 5)
    expect(h.waits).toHaveLength(5)
  })

  it('act only on the operations --fault-operations names', async () => {
    h = await served(['--latency', '100ms', '--error-rate', '100%', '--fault-operations', 'appinfo'])
    expect((await call(h, 'agentmanager')).statusCode).toBe(200)
    expect(h.waits).toEqual([])
    expect((await call(h, 'appinfo')).statusCode).toBe(500)
    expect(h.waits).toEqual([100])
  })

  it('apply after the scenario rules: latencies add up and a scenario error answers first', async () => {
    h = await served(['--latency', '200ms', '--error-rate', '100%'])
    const yaml = `name: with-faults\ndescription: A scenario with its own fault rule.\nfleet: { agents: 10, seed: 5 }\nfaults:
  - { name: down, operation: appinfo, latency: 100, error: { status: 503, rate: 1 } }\n`
    expect((await admin(h.app, 'PUT', '/scenario', yaml, { 'content-type': 'application/yaml' })).statusCode).toBe(200)
    expect(((await admin(h.app, 'GET', '/faults')).json() as { rules: { name: string }[] }).rules.map((rule) => rule.name)).toEqual([
      'down',
      '--latency',
      '--error-rate'
    ])
    expect((await call(h, 'appinfo')).statusCode).toBe(503)
    expect(h.waits).toEqual([300])
    expect((await call(h, 'agentmanager')).statusCode).toBe(500)
    expect(h.waits).toEqual([300, 200])
  })

  it('stay when the scenario is deleted', async () => {
    h = await served(['--error-rate', '100%'])
    const yaml = `name: own\ndescription: A scenario with its own fault rule.\nfleet: { agents: 10, seed: 5 }\nfaults:\n  - { name: cold, operation: appinfo, failFirst: 1 }\n`
    await admin(h.app, 'PUT', '/scenario', yaml, { 'content-type': 'application/yaml' })
    await admin(h.app, 'DELETE', '/scenario')
    const names = ((await admin(h.app, 'GET', '/faults')).json() as { rules: { name: string }[] }).rules.map((rule) => rule.name)
    expect(names).toEqual(['--error-rate'])
    expect((await call(h, 'appinfo')).statusCode).toBe(500)
  })
})

describe('the fast path with quick fault flags', () => {
  let app: Harness | undefined
  let server: Server | undefined
  afterEach(async () => {
    server?.close()
    await app?.close()
    app = server = undefined
  })

  /** Sends the same agentinfo poll twice over HTTP; returns how many the fast path answered and the fault waits. */
  async function pollTwice(settings: Partial<AppSettings>): Promise<{ fastPath: number; waits: number[] }> {
    const waits: number[] = []
    app = await appHarness(10, settings, { faultWait: async (ms) => void waits.push(ms) })
    const built = app.built
    server = createServer(built.handler).listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    const path = `${REST}/agentinfo?agentname=${encodeURIComponent(app.fleet.name(1))}`
    for (let k = 0; k < 2; k++) {
      await new Promise<void>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port, path, headers: JSON_ACCEPT }, (res) => res.resume().on('end', resolve)).on('error', reject).end()
      })
    }
    return { fastPath: built.fastPathAnswers(), waits }
  }

  it('answers polls without fastify when no flag is given', async () => {
    expect(await pollTwice({})).toEqual({ fastPath: 2, waits: [] })
  })

  it('stands aside while --latency is in force, so every poll waits', async () => {
    expect(await pollTwice(faultFlags(['--latency', '10ms']))).toEqual({ fastPath: 0, waits: [10, 10] })
  })
})
