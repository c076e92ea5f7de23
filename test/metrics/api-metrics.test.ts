import { once } from 'node:events'
import { createServer } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createFleet } from '../../src/fleet/fleet.js'
import { EAGER_ITEMS } from '../../src/http/reply.js'
import { CA, REST } from '../http/helpers.js'
import { parseExposition, valueOf } from './helpers.js'

const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'secret', accept: 'application/json' }
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function served(agents = 50, keptAnswersMaxBytes?: number) {
  const fleet = await createFleet({ agents, seed: 5, workers: 1, paused: true, startTime: Date.parse('2026-03-01T00:00:00Z'), caFingerprint: CA.fingerprint })
  const kept = keptAnswersMaxBytes === undefined ? {} : { keptAnswersMaxBytes }
  const { app, handler } = await buildApp({ fleet, ca: CA, processMetrics: false }, { user: 'admin', password: 'secret', ...kept })
  closers.push(() => fleet.close(), () => app.close())
  const scrape = async () => parseExposition((await app.inject({ url: '/metrics' })).body)
  return { fleet, app, handler, scrape }
}

const COUNT = 'fleetsim_http_request_duration_seconds_count'

describe('API metrics', () => {
  it('observe each request by operation, method and status', async () => {
    const { app, fleet, scrape } = await served()
    await app.inject({ url: `${REST}/agentinfo?agentname=${fleet.name(0)}`, headers: AUTH })
    await app.inject({ url: `${REST}/agentinfo.json?agentname=${fleet.name(1)}`, headers: AUTH })
    await app.inject({ url: `${REST}/agentinfo?agentname=${fleet.name(0)}`, headers: { accept: 'application/json' } })
    await app.inject({ url: '/no/such/path' })
    const samples = await scrape()
    expect(valueOf(samples, COUNT, { operation: 'agentinfo', method: 'GET', status: '200' })).toBe(2)
    expect(valueOf(samples, COUNT, { operation: 'agentinfo', method: 'GET', status: '401' })).toBe(1)
    expect(valueOf(samples, COUNT, { operation: 'not_found', method: 'GET', status: '404' })).toBe(1)
  })

  it('never take a name a client wrote as a label: unknown operations, methods no route has', async () => {
    const { app, scrape } = await served()
    const before = (await scrape()).length
    const made = Array.from({ length: 20 }, (_, k) => `made-up-${k}-${'x'.repeat(1000)}`)
    for (const name of made) {
      await app.inject({ url: `${REST}/${name}`, headers: AUTH })
      await app.inject({ method: 'PATCH', url: `${REST}/agentinfo${name}`, headers: AUTH })
      await app.inject({ url: `${REST}/${name}.json?agentname=x`, headers: AUTH })
    }
    const samples = await scrape()
    expect(samples.filter((sample) => JSON.stringify(sample).includes('made-up'))).toEqual([])
    // A handful of series more (not_found and other, by method and status), not 60 names' worth.
    expect(samples.length - before).toBeLessThan(100)
    expect(valueOf(samples, COUNT, { operation: 'not_found', method: 'GET', status: '404' })).toBe(40)
  })

  it('label a method a path is not served with as that path: POST /metrics is metrics, not not_found', async () => {
    const { app, scrape } = await served()
    expect((await app.inject({ method: 'POST', url: '/metrics' })).statusCode).toBe(405)
    expect((await app.inject({ method: 'DELETE', url: '/openapi.json' })).statusCode).toBe(405)
    const samples = await scrape()
    expect(valueOf(samples, COUNT, { operation: 'metrics', method: 'POST', status: '405' })).toBe(1)
    expect(valueOf(samples, COUNT, { operation: 'openapi', method: 'DELETE', status: '405' })).toBe(1)
    expect((await app.inject({ method: 'POST', url: '/__admin/health' })).statusCode).toBe(405)
    expect((await app.inject({ method: 'POST', url: '/openapi.yaml' })).statusCode).toBe(405)
    const after = await scrape()
    expect(valueOf(after, COUNT, { operation: 'other', method: 'POST', status: '405' })).toBe(1)
    expect(valueOf(after, COUNT, { operation: 'openapi', method: 'POST', status: '405' })).toBe(1)
    expect(valueOf(after, COUNT, { operation: 'not_found', method: 'POST', status: '405' })).toBeUndefined()
  })

  it('label /metrics itself as the metrics operation', async () => {
    const { scrape } = await served()
    await scrape()
    expect(valueOf(await scrape(), COUNT, { operation: 'metrics', status: '200' })).toBe(1)
  })

  it('bring requests in flight back to 0 once answered (the scrape itself is the one in flight)', async () => {
    const { app, fleet, scrape } = await served()
    await Promise.all([0, 1, 2].map((i) => app.inject({ url: `${REST}/agentinfo?agentname=${fleet.name(i)}`, headers: AUTH })))
    expect(valueOf(await scrape(), 'fleetsim_http_requests_in_flight')).toBe(1)
  })

  it('bring requests in flight back down when a client leaves with pipelined requests still queued', async () => {
    // The ONLINE agents of 10,000 with modules: a list several times what a loopback connection
    // holds while its client reads nothing (the sender's buffer grows to tcp_wmem's largest, 4 MB
    // by default on Linux; the receiver's does not grow unread), so the list is still being sent
    // and the requests pipelined behind it wait, not begun (src/http/pipelined.ts). The list of
    // 3,000 agents this test had fit in such a kernel's buffers: it was sent, and the test failed.
    const { handler, scrape } = await served(10_000)
    const server = createServer(handler)
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    closers.push(() => new Promise((resolve) => server.close(() => resolve())))
    const inFlight = async () => valueOf(await scrape(), 'fleetsim_http_requests_in_flight')
    const head = 'Host: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: secret\r\naccept: application/json\r\n\r\n'
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1')
    await once(client, 'connect')
    client.pause()
    client.write(`GET ${REST}/agentinfo?agentstate=ONLINE&agentwithmodules=true HTTP/1.1\r\n${head}` + `GET ${REST}/appinfo HTTP/1.1\r\n${head}`.repeat(3))
    // The list and the scrape itself: the three queued behind the list are not handled before it has been sent.
    await until(async () => (await inFlight()) === 2)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await inFlight()).toBe(2)
    client.destroy()
    await until(async () => (await inFlight()) === 1)
    expect(await inFlight()).toBe(1)
  })

  it('count the bytes of a streamed agent list as sent', async () => {
    // Nothing kept, so the list streams to its request alone.
    const { app, scrape } = await served(EAGER_ITEMS * 2, 0)
    const response = await app.inject({ url: `${REST}/agentinfo?agentwithmodules=false&agentstate=ONLINE`, headers: AUTH })
    expect(response.headers['content-length']).toBeUndefined()
    const samples = await scrape()
    expect(valueOf(samples, 'fleetsim_http_response_size_bytes_sum', { operation: 'agentinfo' })).toBe(response.rawPayload.byteLength)
    expect(valueOf(samples, 'fleetsim_http_response_size_bytes_count', { operation: 'agentinfo' })).toBe(1)
  })

  it('count the bytes of an ordinary answer', async () => {
    const { app, fleet, scrape } = await served()
    const response = await app.inject({ url: `${REST}/agentinfo?agentname=${fleet.name(0)}`, headers: AUTH })
    expect(valueOf(await scrape(), 'fleetsim_http_response_size_bytes_sum', { operation: 'agentinfo' })).toBe(response.rawPayload.byteLength)
  })
})

/** Waits for `condition`, up to 10 s; the test's own expectation then says what was wrong. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await condition()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
}
