/**
 * The bound on answers held for clients that do not read them (src/http/unsent-answers.ts), on a
 * fastify app of its own over real sockets: a client that sends a request and reads nothing
 * leaves most of a large answer in the server's memory (the kernel takes a few MB at most).
 */
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/protocol/errors.js'
import { HELD_FROM_BYTES, registerUnsentAnswers, unsentAnswers, type UnsentAnswers } from '../../src/http/unsent-answers.js'
import { collect, open } from '../hardening/socket.js'

const MiB = 1024 * 1024
/** Far more than loopback's socket buffers take, so most of it waits in the server. */
const LARGE = 24 * MiB
const TEXT = 'x'.repeat(LARGE)
const BYTES = Buffer.alloc(LARGE, 0x79)

let app: FastifyInstance | undefined
let unsent: UnsentAnswers
let port: number
const sockets: import('node:net').Socket[] = []

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await app?.close()
  app = undefined
})

async function serve(maxBytes: number): Promise<void> {
  app = Fastify()
  app.setErrorHandler((error, _request, reply) => {
    if (!(error instanceof ApiError)) return reply.code(500).send({ code: 'not a catalogue error' })
    return reply.code(error.statusCode).send({ code: error.code, message: error.message })
  })
  unsent = unsentAnswers({ maxBytes })
  registerUnsentAnswers(app, unsent)
  app.get('/text', async (_request, reply) => reply.type('text/plain').send(TEXT))
  app.get('/bytes', async (_request, reply) => reply.type('application/octet-stream').send(BYTES))
  app.get('/small', async (_request, reply) => reply.type('text/plain').send('y'.repeat(HELD_FROM_BYTES - 1)))
  app.post('/text', async (_request, reply) => reply.type('text/plain').send(TEXT))
  app.get('/late', async (_request, reply) => {
    await new Promise((resolve) => setTimeout(resolve, 200))
    return reply.type('text/plain').send(TEXT)
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  port = (app.server.address() as AddressInfo).port
}

/** Sends a request on a new connection and reads nothing. */
async function askAndStall(path: string, method = 'GET'): Promise<import('node:net').Socket> {
  const socket = await open(port)
  sockets.push(socket)
  socket.on('error', () => undefined)
  socket.pause()
  socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`)
  return socket
}

/** The status line of the answer a stalled connection is getting, from its first chunk (the rest stays unread). */
async function statusLine(socket: import('node:net').Socket): Promise<string> {
  const chunk = await new Promise<Buffer>((resolve) => {
    socket.once('data', (data: Buffer) => {
      socket.pause()
      resolve(data)
    })
    socket.resume()
  })
  return chunk.toString('latin1').split('\r\n')[0]
}

/** Sends a request on a new connection and reads the whole answer. */
async function ask(path: string, method = 'GET'): Promise<{ status: number | undefined; head: string; body: string }> {
  const socket = await open(port)
  const answer = collect(socket, 10_000)
  socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
  const { text, status } = await answer
  const end = text.indexOf('\r\n\r\n')
  return { status, head: text.slice(0, end), body: text.slice(end + 4) }
}

async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !check(); tries++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(check()).toBe(true)
}

describe('answers held for clients that do not read them', () => {
  it('counts a text answer per connection and refuses one past the bound with 503 and Retry-After', async () => {
    await serve(40 * MiB)
    await askAndStall('/text')
    await until(() => unsent.held() === LARGE)
    const refused = await ask('/text')
    expect(refused.status).toBe(503)
    expect(refused.head.toLowerCase()).toContain('retry-after: 1')
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'E_UNREAD_ANSWERS' })
    expect(JSON.parse(refused.body).message).toContain(`holds ${LARGE} bytes`)
    expect(JSON.parse(refused.body).message).toContain('--unsent-answers-max-bytes')
    // Nothing held by the refusal, nor by small answers, which are never counted.
    expect(unsent.held()).toBe(LARGE)
    expect((await ask('/small')).status).toBe(200)
  })

  it('always sends one answer alone, however far past the bound', async () => {
    await serve(1 * MiB)
    const answer = await ask('/text')
    expect(answer.status).toBe(200)
    expect(answer.body.length).toBe(LARGE)
  })

  it('gives the bytes back when the client reads its answer or leaves', async () => {
    await serve(40 * MiB)
    await askAndStall('/text')
    await until(() => unsent.held() === LARGE)
    sockets[0].resume()
    await until(() => unsent.held() === 0)
    await askAndStall('/text')
    await until(() => unsent.held() === LARGE)
    sockets[1].destroy()
    await until(() => unsent.held() === 0)
    expect((await ask('/text')).status).toBe(200)
  })

  it('counts an answer of bytes sent to several clients once: they share the buffer', async () => {
    await serve(40 * MiB)
    const stalled = []
    for (let k = 0; k < 3; k++) stalled.push(await askAndStall('/bytes'))
    for (const socket of stalled) expect(await statusLine(socket)).toBe('HTTP/1.1 200 OK')
    expect(unsent.held()).toBe(LARGE)
    // Text is copied for each socket: the next one would take the count past the bound.
    expect((await ask('/text')).status).toBe(503)
    for (const socket of sockets) socket.destroy()
    await until(() => unsent.held() === 0)
  })

  it('gives the bytes back after a request run through app.inject (the console forwards its calls that way)', async () => {
    await serve(40 * MiB)
    const answer = await app!.inject({ method: 'GET', url: '/text' })
    expect(answer.statusCode).toBe(200)
    await until(() => unsent.held() === 0)
    expect((await app!.inject({ method: 'GET', url: '/text' })).statusCode).toBe(200)
  })

  it('gives the bytes back when the client left before its answer was sent (the response was over when the hook came)', async () => {
    await serve(40 * MiB)
    const socket = await askAndStall('/late')
    await new Promise((resolve) => setTimeout(resolve, 50))
    socket.resetAndDestroy()
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(unsent.held()).toBe(0)
    await askAndStall('/text')
    await until(() => unsent.held() === LARGE)
  })

  it('counts no answer to HEAD, which sends no body, and refuses none', async () => {
    await serve(40 * MiB)
    await askAndStall('/text')
    await until(() => unsent.held() === LARGE)
    expect((await ask('/text', 'HEAD')).status).toBe(200)
    expect(unsent.held()).toBe(LARGE)
  })

  it('counts the answer to another method but never refuses it: its operation was carried out', async () => {
    await serve(40 * MiB)
    await askAndStall('/text')
    await until(() => unsent.held() === LARGE)
    const socket = await askAndStall('/text', 'POST')
    expect(await statusLine(socket)).toBe('HTTP/1.1 200 OK')
    expect(unsent.held()).toBe(2 * LARGE)
    expect((await ask('/text')).status).toBe(503)
  })
})
