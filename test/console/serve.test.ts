/**
 * The console as `fleetsim serve` serves it, over HTTPS (startFleetsim: src/server.ts): the
 * session cookie is Secure over TLS, and stopping the server ends open streams at once rather
 * than cutting them after the shutdown grace.
 */
import { once } from 'node:events'
import type { IncomingMessage } from 'node:http'
import { request } from 'node:https'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'

describe('the console over HTTPS', () => {
  let sim: RunningFleetsim
  beforeAll(async () => {
    sim = await startFleetsim({ agents: 20 })
  })
  afterAll(async () => {
    await sim?.close()
  })

  const send = async (method: string, path: string, headers: Record<string, string>, body?: string): Promise<IncomingMessage> => {
    const req = request(`${sim.origin}${path}`, { method, headers, ca: sim.ca })
    req.end(body)
    const [response] = (await once(req, 'response')) as [IncomingMessage]
    return response
  }

  it('sets a Secure session cookie at login', async () => {
    const { user, password } = sim.credentials
    const response = await send('POST', '/console/login', { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ user, password }).toString())
    response.resume()
    expect(response.statusCode).toBe(303)
    expect(String(response.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/)
  })

  it('passes the scheme and Host the console was reached at to the operations it forwards: their links name them', async () => {
    const { user, password } = sim.credentials
    const response = await send('GET', `/console/api/rest/agentinfo?agentname=${encodeURIComponent(sim.engine.name(0))}`, {
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
    })
    let text = ''
    for await (const chunk of response) text += String(chunk)
    expect(response.statusCode, text).toBe(200)
    const host = new URL(sim.origin).host
    const links = (JSON.parse(text) as { links: Array<{ href: string }> }).links
    expect(links.length).toBeGreaterThan(0)
    for (const link of links) expect(link.href.startsWith(`https://${host}/`), link.href).toBe(true)
  })

  it('ends an open stream cleanly when the server stops', async () => {
    const { user, password } = sim.credentials
    const stream = await send('GET', '/console/api/events', { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` })
    expect(stream.statusCode).toBe(200)
    stream.resume()
    const ended = once(stream, 'end')
    await sim.close()
    // 'end' means the server finished the response; a stream cut at the end of the grace would be aborted instead.
    await ended
    expect(stream.complete).toBe(true)
  })
})
