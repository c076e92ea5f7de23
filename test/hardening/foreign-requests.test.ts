/**
 * Requests that are not plain HTTP/1.1 to this server, over real sockets: CONNECT (a proxy's
 * method), HTTP/2 with prior knowledge, a load balancer's PROXY protocol header. Each gets an answer in the error envelope saying what to do instead, and the
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
import { bodyOf, exchange, open, rawRequest, type RawAnswer } from './socket.js'

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

/**
 * `bytes` sent over TLS on a fresh connection, after `before` (each piece written on the TCP
 * connection as it is, before TLS starts); everything back until the server closes it.
 */
async function tlsExchange(server: RunningServer, bytes: string, before: Buffer[] = []): Promise<RawAnswer> {
  const tcp = await open(server.port)
  for (const piece of before) {
    tcp.write(piece)
    // Separate writes, so the pieces arrive apart.
    await new Promise((resolve) => setImmediate(resolve))
  }
  const began = performance.now()
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ socket: tcp, ca: server.ca.pem, servername: 'localhost' }, () => socket.write(bytes))
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
    expect(answer.text).toMatch(/\r\nAllow: GET, HEAD, POST, PUT, DELETE, OPTIONS\r\n/)
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

describe('a method HTTP does not define', () => {
  it('is told a TLS handshake to a plain HTTP port reads so on the HTTP port only, where it may be one', async () => {
    const request = `get /manager/mvc/restservice/appinfo.json HTTP/1.1\r\nHost: x\r\n\r\n`
    const plain = bodyOf(await exchange(http.port, request))
    expect(plain).toContain('methods are case-sensitive); a TLS handshake sent to a plain HTTP port reads so too')
    const overTls = bodyOf(await tlsExchange(https, request))
    expect(overTls).toContain('methods are case-sensitive) (HPE_INVALID_METHOD)')
  })
})

describe('HTTP/2 with prior knowledge (PRI * HTTP/2.0)', () => {
  /** An HTTP/2 session to `url` with one request: the GOAWAY it gets, once the session is closed. */
  async function goawayOf(url: string): Promise<{ code: number; lastStreamId: number; debug: string }> {
    const session = http2Connect(url, { rejectUnauthorized: false })
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

  it('gets the GOAWAY over TLS from a client that offers HTTP/2 alone (ALPN h2), which got a TLS alert', async () => {
    const goaway = await goawayOf(`https://127.0.0.1:${https.port}`)
    expect(goaway).toMatchObject({ code: 0xd, lastStreamId: 0 })
    expect(goaway.debug).toContain('<code>E_HTTP_VERSION</code>')
  })
})

describe('a PROXY protocol header (a load balancer with proxy protocol on)', () => {
  const V1 = Buffer.from('PROXY TCP4 192.0.2.1 198.51.100.1 51234 443\r\n', 'latin1')
  // Signature, version 2 PROXY over TCP/IPv4, 12 bytes of addresses and ports.
  const V2 = Buffer.concat([Buffer.from('0d0a0d0a000d0a515549540a2111000c', 'hex'), Buffer.from([192, 0, 2, 1, 198, 51, 100, 1, 0xc8, 0x02, 0x01, 0xbb])])
  const APPINFO = rawRequest('GET', '/manager/mvc/restservice/appinfo.json', { REST_USER: 'admin', REST_PASSWORD: 'admin' })

  it('before a TLS handshake on the HTTPS port: the handshake goes on, and the request gets 400 E_PROXY_PROTOCOL over TLS (was E_HTTPS_REQUIRED, or a closed connection)', async () => {
    for (const [version, header] of [[1, V1], [2, V2]] as const) {
      // Whole, and in pieces: split within the signature and within the header.
      for (const pieces of [[header], [header.subarray(0, 5), header.subarray(5, 14), header.subarray(14)]]) {
        const answer = await tlsExchange(https, APPINFO.toString('latin1'), pieces)
        expect(answer.status, `v${version} in ${pieces.length}`).toBe(400)
        expect(answer.text).toMatch(/\r\nconnection: close\r\n/i)
        const body = bodyOf(answer)
        expect(body).toContain('<code>E_PROXY_PROTOCOL</code>')
        expect(body).toContain(`The connection began with a PROXY protocol v${version} header (from 127.0.0.1)`)
        expect(body).toContain('turn it off for fleetsim in the load balancer')
      }
    }
    // Other connections are served as ever.
    expect((await tlsExchange(https, APPINFO.toString('latin1'))).status).toBe(200)
  })

  it('before plain HTTP on the HTTPS port, and on the HTTP port: 400 E_PROXY_PROTOCOL (was E_HTTPS_REQUIRED, or E_BAD_REQUEST naming HPE_INVALID_METHOD)', async () => {
    const plain = await exchange(https.port, Buffer.concat([V1, APPINFO]))
    expect(plain.status).toBe(400)
    expect(bodyOf(plain)).toContain('<code>E_PROXY_PROTOCOL</code>')
    expect(bodyOf(plain)).toContain(`This port also speaks HTTPS, not plain HTTP: use https://127.0.0.1:${https.port}/manager/mvc/restservice/appinfo.json.`)
    for (const [version, header] of [[1, V1], [2, V2]] as const) {
      const answer = await exchange(http.port, Buffer.concat([header, APPINFO]))
      expect(answer.status, `v${version}`).toBe(400)
      expect(bodyOf(answer)).toContain('<code>E_PROXY_PROTOCOL</code>')
      expect(bodyOf(answer)).toContain(`PROXY protocol v${version} header`)
    }
  })
})
