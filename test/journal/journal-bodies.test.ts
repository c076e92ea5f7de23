/**
 * Bodies in the request journal (--journal-body-bytes, src/journal/kept-body.ts): the request
 * body as sent and the answer as the client got it, their first bytes cut on a character
 * boundary with the length they had, secrets redacted, shown by GET /__admin/requests.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { JournalEntry } from '../../src/journal/journal.js'
import { REDACTED } from '../../src/journal/kept-body.js'
import { AUTH, JSON_HEADERS, REST, agentBody, call, harness, type Harness } from '../http/helpers.js'
import { withFaults } from '../faults/helpers.js'

async function entries(app: Harness['app']): Promise<JournalEntry[]> {
  const response = await app.inject({ method: 'GET', url: '/__admin/requests', headers: AUTH })
  expect(response.statusCode).toBe(200)
  return (response.json() as { entries: JournalEntry[] }).entries
}

async function lastEntry(app: Harness['app']): Promise<JournalEntry> {
  const entry = (await entries(app)).at(-1)
  if (entry === undefined) throw new Error('no journal entry')
  return entry
}

interface Got {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  error?: string
}

/** A GET over a real socket: the bytes received, and how the answer ended. */
async function get(port: number, path: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { ...AUTH, accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = []
      const done = (error?: string) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ...(error === undefined ? {} : { error }) })
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('aborted', () => done('aborted'))
      res.on('error', (error) => done(error.message))
      res.on('end', () => done())
    })
    req.on('error', reject)
    req.end()
  })
}

async function listen(handler: RequestListener): Promise<{ server: Server; port: number }> {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, port: (server.address() as AddressInfo).port }
}

describe('bodies in the request journal', () => {
  let h: Harness
  beforeAll(async () => {
    h = await harness(20)
  })
  afterAll(() => h.close())
  beforeEach(() => h.built.traffic.journal.clear())

  it('keeps the body a client sent and the answer it got', async () => {
    const sent = JSON.stringify(agentBody('bodies-1'))
    const response = await call(h.app, 'POST', 'addagent', sent)
    expect(response.statusCode).toBe(200)
    const entry = await lastEntry(h.app)
    expect(entry.requestBody).toEqual({ text: sent, bytes: sent.length, truncated: false })
    expect(entry.responseBody).toEqual({ text: response.body, bytes: response.rawPayload.length, truncated: false })
  })

  it('keeps a body that did not parse as it was sent, with the error answered', async () => {
    const response = await call(h.app, 'POST', 'addagent', '{"name": "half')
    expect(response.statusCode).toBe(400)
    const entry = await lastEntry(h.app)
    expect(entry.requestBody?.text).toBe('{"name": "half')
    expect(entry.responseBody?.text).toContain('E_MALFORMED_JSON')
  })

  it('keeps no body of a request without one', async () => {
    await call(h.app, 'GET', 'appinfo')
    const entry = await lastEntry(h.app)
    expect(entry.requestBody).toBeUndefined()
    expect(entry.responseBody?.text).toContain('"servicename":"appinfo"')
  })

  it('never keeps a secret: a password field in JSON or XML, or a credential echoed in a link', async () => {
    await call(h.app, 'POST', 'addagent', JSON.stringify({ ...agentBody('bodies-2'), password: 'hunter2' }))
    const json = await lastEntry(h.app)
    expect(json.requestBody?.text).toContain(`"password":"${REDACTED}"`)
    const xml = '<agent><name>bodies-3</name><REST_PASSWORD>hunter2</REST_PASSWORD></agent>'
    await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: { ...AUTH, 'content-type': 'application/xml' }, payload: xml })
    const fromXml = await lastEntry(h.app)
    expect(fromXml.requestBody?.text).toContain(`<REST_PASSWORD>${REDACTED}</REST_PASSWORD>`)
    // The answer's self link repeats the query as sent.
    const echoed = await call(h.app, 'GET', 'appinfo?REST_PASSWORD=hunter2')
    expect(echoed.body).toContain('hunter2')
    const link = await lastEntry(h.app)
    expect(link.responseBody?.text).toContain(`REST_PASSWORD=${REDACTED}`)
    expect(JSON.stringify(await entries(h.app))).not.toContain('hunter2')
  })

  it('cuts a body longer than --journal-body-bytes on a character boundary, with the length it had', async () => {
    const small = await harness(5, { journalBodyBytes: 64 })
    try {
      // `name` starts at byte 9: the cut at byte 64 falls inside the 55th "ü" (two bytes each).
      const sent = JSON.stringify({ name: 'ü'.repeat(100) })
      await small.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: JSON_HEADERS, payload: sent })
      const entry = await lastEntry(small.app)
      expect(entry.requestBody).toEqual({ text: `{"name":"${'ü'.repeat(27)}`, bytes: Buffer.byteLength(sent), truncated: true })
      expect(Buffer.byteLength(entry.requestBody?.text ?? '')).toBe(63)
    } finally {
      await small.close()
    }
  })

  it('keeps no body with --journal-body-bytes 0', async () => {
    const none = await harness(5, { journalBodyBytes: 0 })
    try {
      await call(none.app, 'POST', 'addagent', agentBody('bodies-4'))
      const entry = await lastEntry(none.app)
      expect(entry.requestBody).toBeUndefined()
      expect(entry.responseBody).toBeUndefined()
      expect(JSON.stringify(entry)).not.toContain('bodies-4')
    } finally {
      await none.close()
    }
  })
})

describe('the answer the journal keeps of a long or shaped answer', () => {
  it('keeps of a streamed list the beginning of its first chunk, with the bytes sent', async () => {
    // Nothing kept, so a list of 1,500 agents streams to its request alone.
    const big = await harness(1500, { keptAnswersMaxBytes: 0 })
    try {
      const response = await call(big.app, 'GET', 'agentinfo?agentwithmodules=false')
      expect(response.headers['content-length']).toBeUndefined()
      const entry = await lastEntry(big.app)
      const kept = entry.responseBody
      expect(kept).toMatchObject({ bytes: response.rawPayload.length, truncated: true })
      expect(kept?.text).toBe(response.rawPayload.subarray(0, 4096).toString())
    } finally {
      await big.close()
    }
  })

  it('keeps of a long list sent again as the bytes it streamed as the beginning of those bytes', async () => {
    const h = await harness(1500)
    const { server, port } = await listen(h.built.handler)
    try {
      const path = `${REST}/agentinfo?agentwithmodules=false`
      const streamed = await get(port, path)
      const kept = await get(port, path)
      expect(streamed.headers['content-length']).toBeUndefined()
      expect(kept.headers['content-length']).toBe(String(streamed.body.length))
      expect(h.built.fastPathAnswers()).toBe(1)
      const [fromStream, fromKept] = h.built.traffic.journal.entries()
      expect(fromKept.responseBody).toEqual(fromStream.responseBody)
      expect(fromKept.responseBody).toEqual({ text: kept.body.subarray(0, 4096).toString(), bytes: kept.body.length, truncated: true })
    } finally {
      server.close()
      await h.close()
    }
  })

  it('keeps the answers the fast path sends, the one it built and the one it kept', async () => {
    const h = await harness(5)
    const { server, port } = await listen(h.built.handler)
    try {
      const path = `${REST}/agentinfo?agentname=${h.fleet.name(1)}`
      const first = await get(port, path)
      const second = await get(port, path)
      expect(h.built.fastPathAnswers()).toBe(2)
      const [fromBuilt, fromFastPath] = h.built.traffic.journal.entries()
      expect(fromBuilt.responseBody).toEqual({ text: first.body.toString(), bytes: first.body.length, truncated: false })
      expect(fromFastPath.responseBody).toEqual({ text: second.body.toString(), bytes: second.body.length, truncated: false })
    } finally {
      server.close()
      await h.close()
    }
  })

  it('keeps the answer a fault cut short as the client got it', async () => {
    const h = await withFaults('  - { name: half, operation: appinfo, body: { truncate: 1 } }\n')
    let closed: Promise<unknown> = Promise.resolve()
    const { server, port } = await listen((request, response) => {
      closed = once(response, 'close')
      h.app.routing(request, response)
    })
    try {
      const got = await get(port, `${REST}/appinfo`)
      expect(got.error).toBeDefined()
      // The client may see the cut before the server's side of the response closes.
      await closed
      const entry = await lastEntry(h.app)
      expect(entry.fault).toBe('truncate')
      expect(entry.responseBody).toEqual({ text: got.body.toString(), bytes: got.body.length, truncated: false })
    } finally {
      server.close()
      await h.close()
    }
  })
})
