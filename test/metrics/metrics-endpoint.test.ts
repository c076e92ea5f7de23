import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createAuthCheck } from '../../src/protocol/auth.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { AGENT_STATES } from '../../src/protocol/states.js'
import { metricsPlugin } from '../../src/metrics/plugin.js'
import { createRegistry } from '../../src/metrics/registry.js'
import { CA, REST } from '../http/helpers.js'
import { fakeSource, parseExposition, valueOf } from './helpers.js'

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function bare(options: { requireAuth?: boolean } = {}) {
  const app = Fastify()
  await app.register(metricsPlugin, {
    engine: fakeSource(),
    processMetrics: false,
    requireAuth: options.requireAuth,
    authCheck: createAuthCheck({ user: 'admin', password: 'secret' })
  })
  closers.push(() => app.close())
  return app
}

async function served(agents: number): Promise<{ fleet: FleetEngine; app: FastifyInstance }> {
  const fleet = await createFleet({ agents, seed: 3, workers: 1, paused: true, startTime: Date.parse('2026-03-01T00:00:00Z'), caFingerprint: CA.fingerprint })
  const { app } = await buildApp({ fleet, ca: CA, processMetrics: false }, { user: 'admin', password: 'secret' })
  closers.push(() => fleet.close(), () => app.close())
  return { fleet, app }
}

describe('GET /metrics', () => {
  it('serves the Prometheus text format without credentials by default', async () => {
    const app = await bare()
    const response = await app.inject({ url: '/metrics' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(response.body).toContain('# TYPE fleetsim_agents gauge')
  })

  it('refuses a scrape without credentials when auth is required, saying what to send', async () => {
    const app = await bare({ requireAuth: true })
    const response = await app.inject({ url: '/metrics' })
    expect(response.statusCode).toBe(401)
    expect(response.headers['www-authenticate']).toMatch(/^Basic /)
    expect(response.body).toContain('send REST_USER and REST_PASSWORD headers, or the same pair as HTTP Basic auth')
  })

  it('accepts the REST credential headers when auth is required', async () => {
    const app = await bare({ requireAuth: true })
    const response = await app.inject({ url: '/metrics', headers: { REST_USER: 'admin', REST_PASSWORD: 'secret' } })
    expect(response.statusCode).toBe(200)
  })

  it('accepts the REST credentials as HTTP Basic auth, as Prometheus sends them', async () => {
    const app = await bare({ requireAuth: true })
    const good = await app.inject({ url: '/metrics', headers: { authorization: `Basic ${Buffer.from('admin:secret').toString('base64')}` } })
    const bad = await app.inject({ url: '/metrics', headers: { authorization: `Basic ${Buffer.from('admin:wrong').toString('base64')}` } })
    expect([good.statusCode, bad.statusCode]).toEqual([200, 401])
  })

  it('will not require auth without a credential check to use', async () => {
    const app = Fastify()
    closers.push(() => app.close())
    await expect(app.register(metricsPlugin, { engine: fakeSource(), processMetrics: false, requireAuth: true })).rejects.toThrow('requireAuth needs an authCheck')
  })

  it('will not take API metrics without the registry they are on', async () => {
    const app = Fastify()
    closers.push(() => app.close())
    const { api } = createRegistry(fakeSource(), { process: false })
    await expect(app.register(metricsPlugin, { engine: fakeSource(), processMetrics: false, api })).rejects.toThrow('api needs the registry it is on')
  })

  it('reports the same counts by state as agentinfo', async () => {
    const { fleet, app } = await served(3000)
    await fleet.advance(6 * 3600)
    const samples = parseExposition((await app.inject({ url: '/metrics' })).body)
    for (const state of AGENT_STATES) {
      const response = await app.inject({
        url: `${REST}/agentinfo?agentstate=${state}`,
        headers: { REST_USER: 'admin', REST_PASSWORD: 'secret', accept: 'application/json' }
      })
      const listed = (JSON.parse(response.body) as { values: unknown[] }).values.length
      expect(valueOf(samples, 'fleetsim_agents', { state }), state).toBe(listed)
    }
  })

  it('shows the fleet changing from one scrape to the next', async () => {
    const { fleet, app } = await served(2000)
    const scrape = async () => parseExposition((await app.inject({ url: '/metrics' })).body)
    const transitions = (samples: ReturnType<typeof parseExposition>) =>
      samples.filter((s) => s.name === 'fleetsim_agent_state_transitions_total').reduce((sum, s) => sum + s.value, 0)
    const before = await scrape()
    await fleet.advance(12 * 3600)
    const after = await scrape()
    expect(transitions(after)).toBeGreaterThan(transitions(before))
    expect(valueOf(after, 'fleetsim_virtual_clock_time_seconds')).toBe((valueOf(before, 'fleetsim_virtual_clock_time_seconds') ?? 0) + 12 * 3600)
    expect(valueOf(after, 'fleetsim_step_rounds_total')).toBeGreaterThan(valueOf(before, 'fleetsim_step_rounds_total') ?? 0)
  })
})
