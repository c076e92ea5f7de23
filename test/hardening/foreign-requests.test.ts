/**
 * Requests that are not plain HTTP/1.1 to this server, over real sockets: CONNECT (a proxy's
 * method), HTTP/2 with prior knowledge. Each gets an answer in the error envelope saying what to do instead, and the
 * connection is closed; none is dropped without a word.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { connect as http2Connect } from 'node:http2'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { bodyOf, exchange, type RawAnswer } from './socket.js'

let dataDir: string
let http: RunningServer
let https: RunningServer

async function start(flags: string[]): Promise<RunningServer> {
  const config = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, ...flags], {})
  return startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-foreign-'))
  http = await start(['--http'])
  https = await start([])
})

afterAll(async () => {
  await Promise.all([http.close(), https.close()])
  await rm(dataDir, { recursive: true, force: true })
})

/** `bytes` sent over TLS on a fresh connection; everything back until the server closes it. */
function tlsExchange(server: RunningServer, bytes: string): Promise<RawAnswer> {
  const began = performance.now()
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: server.ca.pem, servername: 'localhost' }, () => socket.write(bytes))
    const chunks: Buffer[] = []
    const timer = setTimeout(() => socket.destroy(), 5000)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.once('close', () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('latin1')
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]
      resolve({ text, status: status === undefined ? undefined : Number(status), closedAfterMs: performance.now() - began })
    })
  })
}

describe('CONNECT', () => {
  it('gets 405 E_CONNECT_NOT_ALLOWED with Allow, and the connection closed (it was closed without an answer)', async () => {
    const answer = await exchange(http.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
    expect(answer.status).toBe(405)
    expect(answer.text).toMatch(/\r\nAllow: GET, HEAD, POST, PUT, DELETE\r\n/)
    expect(answer.text).toMatch(/\r\nConnection: close\r\n/)
    expect(answer.closedAfterMs).toBeLessThan(2000)
    const body = bodyOf(answer)
    expect(body).toContain('<code>E_CONNECT_NOT_ALLOWED</code>')
    expect(body).toContain('<status>405</status>')
    expect(body).toContain('CONNECT &quot;example.com:443&quot; asks for a tunnel')
    expect(body).toContain('GET /manager/mvc/restservice/appinfo.json')
  })

  it('gets the same over TLS on the HTTPS port, in JSON when its accept asks for it', async () => {
    const answer = await tlsExchange(https, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nAccept: application/json\r\n\r\n')
    expect(answer.status).toBe(405)
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ servicename: '', errors: [{ status: 405, code: 'E_CONNECT_NOT_ALLOWED' }] })
  })
})

describe('HTTP/2 with prior knowledge (PRI * HTTP/2.0)', () => {
  /** An HTTP/2 session to `url` with one request: the GOAWAY it gets, once the session is closed. */
  async function goawayOf(url: string): Promise<{ code: number; lastStreamId: number; debug: string }> {
    const session = http2Connect(url)
    // The session ends in an error (the GOAWAY's code): the GOAWAY itself is what counts.
    session.on('error', () => undefined)
    session.request({ ':path': '/manager/mvc/restservice/appinfo.json' }).on('error', () => undefined)
    const closed = new Promise((resolve) => session.once('close', resolve))
    const goaway = new Promise<[number, number, Buffer]>((resolve) => session.once('goaway', (...args: [number, number, Buffer]) => resolve(args)))
    await closed
    const [code, lastStreamId, data] = await Promise.race([goaway, Promise.resolve([-1, -1, Buffer.alloc(0)] as [number, number, Buffer])])
    return { code, lastStreamId, debug: data.toString('utf8') }
  }

  it('gets HTTP/2\'s GOAWAY with HTTP_1_1_REQUIRED and E_HTTP_VERSION in the envelope, and the connection closed (it got an HTTP/1.1 400 it cannot read)', async () => {
    const goaway = await goawayOf(`http://127.0.0.1:${http.port}`)
    expect(goaway).toMatchObject({ code: 0xd, lastStreamId: 0 })
    expect(goaway.debug).toContain('<status>505</status>')
    expect(goaway.debug).toContain('<code>E_HTTP_VERSION</code>')
    expect(goaway.debug).toContain('this server speaks HTTP/1.1 only: send the requests as HTTP/1.1')
    await vi.waitFor(() => expect(http.openConnections()).toBe(0), { timeout: 2000 })
  })

  it('gets the same over TLS, and, in plain text on the HTTPS port, E_HTTPS_REQUIRED naming the https:// URL', async () => {
    const answer = await tlsExchange(https, 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')
    // The server's SETTINGS frame (empty), then GOAWAY: stream 0, no stream processed, code 13.
    const bytes = Buffer.from(answer.text, 'latin1')
    expect([...bytes.subarray(0, 9)]).toEqual([0, 0, 0, 4, 0, 0, 0, 0, 0])
    expect(bytes[9 + 3]).toBe(7)
    expect(bytes.readUInt32BE(9 + 9 + 4)).toBe(0xd)
    expect(answer.text).toContain('<code>E_HTTP_VERSION</code>')
    const plain = await goawayOf(`http://127.0.0.1:${https.port}`)
    expect(plain.code).toBe(0xd)
    expect(plain.debug).toContain('<code>E_HTTPS_REQUIRED</code>')
    expect(plain.debug).toContain(`use https://127.0.0.1:${https.port}/ over HTTP/1.1`)
  })
})
