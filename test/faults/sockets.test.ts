/** Faults that only a real connection shows: a reset, a body cut short, a client that leaves during a wait. */
import { request } from 'node:http'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { AdminHarness } from '../admin/helpers.js'
import { AUTH, REST, withFaults } from './helpers.js'

let h: AdminHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

interface Outcome {
  status?: number
  contentLength?: number
  received: number
  error?: string
}

async function get(target: AdminHarness, path: string): Promise<Outcome> {
  await target.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = target.app.server.address() as AddressInfo
  return new Promise((resolve) => {
    const outcome: Outcome = { received: 0 }
    const req = request({ host: '127.0.0.1', port, path: `${REST}/${path}`, headers: { ...AUTH, accept: 'application/json' } }, (res) => {
      outcome.status = res.statusCode
      outcome.contentLength = Number(res.headers['content-length'])
      res.on('data', (chunk: Buffer) => (outcome.received += chunk.length))
      res.on('error', (error) => resolve({ ...outcome, error: error.message }))
      res.on('aborted', () => resolve({ ...outcome, error: 'aborted' }))
      res.on('end', () => resolve(outcome))
    })
    req.on('error', (error) => resolve({ ...outcome, error: (error as NodeJS.ErrnoException).code ?? error.message }))
    req.end()
  })
}

describe('faults on a real connection', () => {
  it('resets the connection without an answer', async () => {
    h = await withFaults('  - { name: cut, operation: appinfo, reset: { rate: 1 } }\n')
    const outcome = await get(h, 'appinfo')
    expect(outcome.status).toBeUndefined()
    expect(outcome.error).toMatch(/ECONNRESET|socket hang up/)
    expect(h.engine.stats.faultsInjected).toEqual({ 'reset appinfo': 1 })
  })

  it('cuts a body short and closes the connection', async () => {
    h = await withFaults('  - { name: half, operation: agentinfo, body: { truncate: 1 } }\n')
    const outcome = await get(h, 'agentinfo?agentstate=ONLINE')
    expect(outcome.status).toBe(200)
    expect(outcome.received).toBe(Math.floor((outcome.contentLength as number) / 2))
    expect(outcome.error).toBeDefined()
    expect(h.engine.stats.faultsInjected).toEqual({ 'truncate agentinfo': 1 })
  })

  it('ends a latency wait when its client leaves, where the call stayed held, body and all, until the wait ended', async () => {
    const signals: AbortSignal[] = []
    // A wait that ends only when its signal says the client left.
    const wait = (_ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        if (signal !== undefined) signals.push(signal)
        signal?.addEventListener('abort', () => resolve(), { once: true })
      })
    h = await withFaults('  - { name: slow, operation: appinfo, latency: 1h }\n', { wait })
    await h.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = h.app.server.address() as AddressInfo
    const socket = connect(port, '127.0.0.1')
    socket.write(`GET ${REST}/appinfo HTTP/1.1\r\nHost: x\r\nREST_USER: ${AUTH.REST_USER}\r\nREST_PASSWORD: ${AUTH.REST_PASSWORD}\r\n\r\n`)
    await expect.poll(() => signals.length).toBe(1)
    expect(signals[0].aborted).toBe(false)
    socket.destroy()
    await expect.poll(() => signals[0].aborted).toBe(true)
  })
})
