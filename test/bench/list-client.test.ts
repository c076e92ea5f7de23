/**
 * The clients of large answers (bench/lib/list-client.ts) in a process of their own: they start
 * only once the driver's hook has run, read every answer to its end, and stop as their bounds
 * say. Against a local node:http server; no timings checked.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runListClients } from '../../bench/lib/list-client.js'

const BODY = Buffer.alloc(200_000, 'x')

describe('the clients of large answers', () => {
  let server: Server
  let origin: string
  let requests = 0

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests++
      if (request.url === '/missing') return void response.writeHead(404).end('no')
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(BODY)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('start after the hook, and stop at the most answers asked for', { timeout: 30_000 }, async () => {
    let seenAtStart = -1
    const before = requests
    const result = await runListClients({ origin, path: '/list', headers: {}, clients: 2, seconds: 20, maxAnswers: 7 }, async () => {
      seenAtStart = requests - before
    })
    expect(seenAtStart).toBe(0)
    expect(result.answers).toBe(7)
    expect(result.times).toHaveLength(7)
    expect(result.bytes).toBe(7 * BODY.length)
    expect(result.non2xx + result.errors + result.timeouts).toBe(0)
    expect(result.wallSeconds).toBeLessThan(20)
  })

  it('go on past their seconds until the fewest answers asked for came', { timeout: 30_000 }, async () => {
    const result = await runListClients({ origin, path: '/list', headers: {}, clients: 1, seconds: 0, minAnswers: 4, maxSeconds: 20 })
    expect(result.answers).toBe(4)
  })

  it('count answers that are not 2xx', { timeout: 30_000 }, async () => {
    const result = await runListClients({ origin, path: '/missing', headers: {}, clients: 1, seconds: 0, minAnswers: 3, maxSeconds: 20 })
    expect(result.answers).toBe(3)
    expect(result.non2xx).toBe(3)
  })

  it('count requests that fail at the socket', { timeout: 30_000 }, async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const result = await runListClients({ origin: `http://127.0.0.1:${port}`, path: '/list', headers: {}, clients: 1, seconds: 0, minAnswers: 2, maxSeconds: 20 })
    expect(result.answers).toBe(0)
    expect(result.errors).toBe(2)
  })
})
