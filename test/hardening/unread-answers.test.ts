/**
 * Clients that ask for large answers and never read them (src/http/unsent-answers.ts), against
 * the whole server: before --unsent-answers-max-bytes, connections asking for the whole journal and
 * reading nothing each held its answer until --send-timeout (`npm run bench:unread-answers`).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import type { Socket } from 'node:net'
import { connect as connectTls } from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { bodyOf, collect, exchange, open, rawRequest } from './socket.js'

const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'admin' }
const JOURNAL = '/__admin/requests?limit=10000'
const BOUND = 16 * 1024 * 1024

let dataDir: string
let server: RunningServer
const stalled: Socket[] = []

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-unread-'))
  const config = parseServeConfig(
    ['--http', '--port', '0', '--agents', '1000', '--workers', '1', '--data-dir', dataDir, '--paused', '--journal-body-bytes', '1048576', '--unsent-answers-max-bytes', String(BOUND)],
    {}
  )
  server = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
  // Twenty lists of 1,000 agents, each kept whole by the journal: its export is past the bound.
  for (let k = 0; k < 20; k++) await (await fetch(`${server.baseUrl}/restservice/agentinfo.json?agentstate=ONLINE`, { headers: AUTH })).arrayBuffer()
})

afterAll(async () => {
  for (const socket of stalled) socket.destroy()
  await server.close()
  await rm(dataDir, { recursive: true, force: true })
})

async function metric(name: string): Promise<string[]> {
  const text = await (await fetch(`${new URL(server.baseUrl).origin}/metrics`)).text()
  return text.split('\n').filter((line) => line.startsWith(name))
}

describe('--unsent-answers-max-bytes', () => {
  it('answers 503 E_UNREAD_ANSWERS in the envelope while an unread answer holds the bound, and serves again once it is read', async () => {
    const whole = await exchange(server.port, rawRequest('GET', JOURNAL, AUTH), { boundMs: 10_000 })
    expect(whole.status).toBe(200)
    expect(bodyOf(whole).length).toBeGreaterThan(BOUND)

    const socket = await open(server.port)
    stalled.push(socket)
    socket.on('error', () => undefined)
    socket.pause()
    socket.write(`GET ${JOURNAL} HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`)
    // Held: the gauge says how much.
    let held = 0
    for (let tries = 0; tries < 200 && held === 0; tries++) {
      held = Number((await metric('fleetsim_http_unsent_answer_bytes '))[0]?.split(' ')[1] ?? 0)
      if (held === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(held).toBeGreaterThan(BOUND)

    const refused = await exchange(server.port, rawRequest('GET', JOURNAL, { ...AUTH, Accept: 'application/json' }), { boundMs: 10_000 })
    expect(refused.status).toBe(503)
    expect(refused.text.toLowerCase()).toContain('\r\nretry-after: 1\r\n')
    const envelope = JSON.parse(bodyOf(refused)) as { errors: { status: number; code: string; message: string }[] }
    expect(envelope.errors[0]).toMatchObject({ status: 503, code: 'E_UNREAD_ANSWERS' })
    expect(envelope.errors[0].message).toContain(`past the limit of ${BOUND} (--unsent-answers-max-bytes)`)
    // Small answers go on.
    const small = await exchange(server.port, rawRequest('GET', '/manager/mvc/restservice/appinfo.json', AUTH))
    expect(small.status).toBe(200)
    // The 503 is counted as what it was.
    expect((await metric('fleetsim_http_request_duration_seconds_count')).some((line) => line.includes('status="503"'))).toBe(true)

    // The client reads its answer: the bytes come back and the next one is sent.
    const rest = collect(socket, 10_000)
    socket.resume()
    socket.end()
    await rest
    let after = held
    for (let tries = 0; tries < 200 && after !== 0; tries++) {
      after = Number((await metric('fleetsim_http_unsent_answer_bytes '))[0]?.split(' ')[1] ?? 0)
      if (after !== 0) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(after).toBe(0)
    expect((await exchange(server.port, rawRequest('GET', JOURNAL, AUTH), { boundMs: 10_000 })).status).toBe(200)
  })
})

describe('--unsent-answers-max-bytes over HTTPS', () => {
  let tlsDir: string
  let tlsServer: RunningServer
  const tlsSockets: Socket[] = []
  const LIST = '/manager/mvc/restservice/agentinfo.json?agentstate=ONLINE'
  afterAll(async () => {
    for (const socket of tlsSockets) socket.destroy()
    await tlsServer?.close()
    await rm(tlsDir, { recursive: true, force: true })
  })

  /** Asks for the list over TLS on a new connection and reads its status line, nothing more. */
  function askAndStall(): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connectTls({ host: '127.0.0.1', port: tlsServer.port, rejectUnauthorized: false }, () => {
        socket.write(`GET ${LIST} HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`)
      })
      tlsSockets.push(socket)
      socket.once('error', reject)
      socket.once('data', (chunk: Buffer) => {
        socket.pause()
        socket.on('error', () => undefined)
        resolve(chunk.toString('latin1').split('\r\n')[0])
      })
    })
  }

  it('counts a kept list once per connection, as each encrypts its own copy, and refuses past the bound', async () => {
    tlsDir = await mkdtemp(join(tmpdir(), 'fleetsim-unread-tls-'))
    const size = 12_000
    tlsServer = await startServer(
      parseServeConfig(['--port', '0', '--agents', String(size), '--workers', '1', '--data-dir', tlsDir, '--paused', '--unsent-answers-max-bytes', String(12 * 1024 * 1024)], {}),
      { announce: () => undefined, logger: createLogger('silent', { pretty: false }) }
    )
    // Made, then kept: the answers below are the same bytes, sent by the fast path.
    let listBytes = 0
    for (let k = 0; k < 3; k++) listBytes = (await collectTls(tlsServer.port, LIST)).length
    expect(listBytes).toBeGreaterThan(6 * 1024 * 1024)
    expect(await askAndStall()).toBe('HTTP/1.1 200 OK')
    expect(await askAndStall()).toBe('HTTP/1.1 503 Service Unavailable')
  })
})

/** The body of a GET over TLS, read whole. */
function collectTls(port: number, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
    })
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.once('error', reject)
    socket.once('close', () => {
      const whole = Buffer.concat(chunks)
      resolve(whole.subarray(whole.indexOf('\r\n\r\n') + 4))
    })
  })
}
