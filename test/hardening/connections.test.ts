import { mkdtemp, rm } from 'node:fs/promises'
import { get as httpGet } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { connect as tcpConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { bodyOf, collect, exchange, open, rawRequest } from './socket.js'

const REST = '/manager/mvc/restservice'
const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'admin' }

let dataDir: string
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-connections-'))
})
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

async function start(flags: string[]): Promise<RunningServer> {
  const config = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, ...flags], {})
  return startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
}

/** Whether the server closes `socket` within `boundMs` (after it, the test closes it itself). */
function closedByServer(socket: Socket, boundMs: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve(false)
      socket.destroy()
    }, boundMs)
    socket.on('error', () => undefined)
    socket.once('close', () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

/** A TCP connection from `localAddress` (any 127.x.y.z is this machine on Linux), once connected. */
function openFrom(port: number, localAddress: string): Promise<Socket> {
  const socket = tcpConnect({ host: '127.0.0.1', port, localAddress })
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket))
    socket.once('error', reject)
  })
}

/** appinfo over HTTPS on a fresh connection from `localAddress`; the status. */
function appinfo(server: RunningServer, localAddress = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.serviceUrl}/appinfo.json`, { ca: server.ca.pem, headers: AUTH, agent: false, localAddress }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('an HTTPS port with --headers-timeout 300', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await start(['--headers-timeout', '300', '--request-timeout', '600'])
  })
  afterAll(async () => {
    await server.close()
  })

  it('destroys connections that never start TLS once the time is up (TCP health checks, port scanners)', async () => {
    const idle = await Promise.all(Array.from({ length: 5 }, () => open(server.port)))
    // The bound is far beyond the timeout; before the fix these were never closed.
    expect(await Promise.all(idle.map((socket) => closedByServer(socket, 5000)))).toEqual([true, true, true, true, true])
    await vi.waitFor(() => expect(server.openConnections()).toBe(0), { timeout: 2000 })
  })

  it('destroys a connection whose TLS handshake starts but never ends', async () => {
    const socket = await open(server.port)
    // The first bytes of a TLS record header and a ClientHello, then silence.
    socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xc8, 0x01]))
    expect(await closedByServer(socket, 5000)).toBe(true)
    await vi.waitFor(() => expect(server.openConnections()).toBe(0), { timeout: 2000 })
  })

  it('answers 408 to a TLS connection that sends no request head, and closes it although the client keeps its side open', async () => {
    // TLS over a TCP socket that stays open for writing after the server's FIN.
    const tcp = tcpConnect({ host: '127.0.0.1', port: server.port, allowHalfOpen: true })
    const socket = tlsConnect({ socket: tcp, ca: server.ca.pem, servername: 'localhost' })
    await new Promise((resolve) => socket.once('secureConnect', resolve))
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('error', () => undefined)
    await new Promise((resolve) => socket.once('end', resolve))
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(text).toContain('<code>E_REQUEST_TIMEOUT</code>')
    // The client never ends its side; the server's connection is gone all the same.
    await vi.waitFor(() => expect(server.openConnections()).toBe(0), { timeout: 2000 })
    socket.destroy()
  })
})

describe('plain HTTP on the HTTPS port', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await start([])
  })
  afterAll(async () => {
    await server.close()
  })

  it('gets 400 E_HTTPS_REQUIRED naming the https:// URL to use, then the connection is closed (as curl http:// would see)', async () => {
    const answer = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = httpGet({ host: '127.0.0.1', port: server.port, path: `${REST}/appinfo.json?secret=1`, headers: { host: `localhost:${server.port}` }, agent: false }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      })
      req.on('error', reject)
    })
    expect(answer.status).toBe(400)
    expect(answer.headers).toMatchObject({ connection: 'close', 'content-type': 'application/xml; charset=utf-8' })
    expect(answer.body).toContain('<code>E_HTTPS_REQUIRED</code>')
    expect(answer.body).toContain(`use https://localhost:${server.port}${REST}/appinfo.json `)
    // The query is not echoed: it may carry what does not belong in an error message.
    expect(answer.body).not.toContain('secret')
    expect(await appinfo(server)).toBe(200)
  })

  it('answers a request after an empty line, which HTTP ignores before a request line (it was read as TLS, and dropped)', async () => {
    const request = `GET ${REST}/appinfo.json HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`
    // Whole, and with the empty lines alone first (they could begin a PROXY protocol header: the probe waits for more).
    for (const pieces of [[`\r\n${request}`], ['\r\n', `\r\n${request}`]]) {
      const socket = await open(server.port)
      const answer = collect(socket, 5000)
      for (const piece of pieces) {
        socket.write(piece)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const { status, text } = await answer
      expect(status, JSON.stringify(pieces)).toBe(400)
      expect(bodyOf({ text, status, closedAfterMs: 0 })).toContain(`use https://127.0.0.1:${server.port}${REST}/appinfo.json `)
    }
  })

  it('keeps the path of an absolute-form target (it named the https:// URL without one)', async () => {
    const socket = await open(server.port)
    const answer = collect(socket, 5000)
    socket.write(`GET http://127.0.0.1:${server.port}${REST}/appinfo.json?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`)
    const { status, text } = await answer
    expect(status).toBe(400)
    expect(bodyOf({ text, status, closedAfterMs: 0 })).toContain(`use https://127.0.0.1:${server.port}${REST}/appinfo.json `)
  })

  it('names the address the client connected to, and no path, when its Host header and path are not plain', async () => {
    const socket = await open(server.port)
    const answer = collect(socket, 5000)
    socket.write('GET /<script> HTTP/1.1\r\nHost: <script>alert(1)</script>\r\n\r\n')
    const { status, text } = await answer
    expect(status).toBe(400)
    expect(bodyOf({ text, status, closedAfterMs: 0 })).toContain(`use https://127.0.0.1:${server.port}/ `)
    expect(text).not.toContain('<script>')
  })
})

describe('--max-connections-per-client', () => {
  let server: RunningServer
  beforeAll(async () => {
    // A long handshake time: here the per-client limit, not the deadline, closes connections.
    server = await start(['--max-connections-per-client', '3', '--headers-timeout', '20000', '--request-timeout', '20000'])
  })
  afterAll(async () => {
    await server.close()
  })

  it("closes a client's connections past the limit at accept, idle TLS handshakes included, while other clients are served", async () => {
    const held = await Promise.all([1, 2, 3].map(() => openFrom(server.port, '127.0.0.1')))
    await vi.waitFor(() => expect(server.openConnections()).toBe(3), { timeout: 2000 })
    const fourth = await openFrom(server.port, '127.0.0.1')
    expect(await closedByServer(fourth, 5000)).toBe(true)
    // Another address is another client.
    expect(await appinfo(server, '127.0.0.2')).toBe(200)
    for (const socket of held) socket.destroy()
    await vi.waitFor(() => expect(server.openConnections()).toBe(0), { timeout: 2000 })
    expect(await appinfo(server, '127.0.0.1')).toBe(200)
  })
})

describe('--max-connections, with connections idle between requests', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await start(['--http', '--max-connections', '3'])
  })
  afterAll(async () => {
    await server.close()
  })

  /** A connection answered once (so the server counted it), left open; `closed` is set when the server closes it. */
  async function answeredOnce(): Promise<{ socket: Socket; closed: () => boolean }> {
    const socket = await open(server.port)
    let closed = false
    socket.once('close', () => (closed = true))
    const first = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))))
    socket.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`)
    expect(await first).toMatch(/^HTTP\/1\.1 200/)
    return { socket, closed: () => closed }
  }
  const newcomer = async () => (await exchange(server.port, rawRequest('GET', `${REST}/appinfo.json`, AUTH))).status

  it('makes room for a new connection by closing the one idle longest, once it has been idle a second; never past the limit', async () => {
    const idle = await answeredOnce()
    // The others with the head of a next request on its way: not idle.
    const busy = [await answeredOnce(), await answeredOnce()]
    for (const { socket } of busy) socket.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\n`)
    // Idle for less than a second (a pool about to reuse it): not closed, and the newcomer gets 503.
    expect(await newcomer()).toBe(503)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const kept = await answeredOnce()
    await vi.waitFor(() => expect(idle.closed()).toBe(true), { timeout: 2000 })
    expect(busy.map((b) => b.closed())).toEqual([false, false])
    // None idle now (the newcomer kept its connection less than a second ago): the limit holds.
    expect(await newcomer()).toBe(503)
    await vi.waitFor(() => expect(server.openConnections()).toBe(3), { timeout: 2000 })
    for (const { socket } of [...busy, kept]) socket.destroy()
  })
})

describe('--send-timeout', () => {
  // A client that sent its request and reads none of the answer held its connection for good.
  it.each(['http', 'https'])('resets the connection of a client that stops reading a large answer over %s, and not that of one that reads it', async (scheme) => {
    const tls = scheme === 'https'
    // The keep-alive timeout is long, so only the send timeout can close a connection here.
    const server = await start([...(tls ? [] : ['--http']), '--agents', '4000', '--send-timeout', '1000', '--keep-alive-timeout', '60000'])
    const connect = async (): Promise<Socket> => {
      const tcp = await openFrom(server.port, '127.0.0.1')
      if (!tls) return tcp
      const socket = tlsConnect({ socket: tcp, ca: server.ca.pem, servername: 'localhost' })
      await new Promise((resolve) => socket.once('secureConnect', resolve))
      return socket
    }
    try {
      const request = `GET ${REST}/agentinfo.json?agentwithmodules=true HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`
      // Paused: it reads nothing, so it would not see the close either; the server's count does.
      const stalled = await connect()
      stalled.on('error', () => undefined)
      stalled.pause()
      stalled.write(request)
      const reading = await connect()
      const chunks: Buffer[] = []
      let received = 0
      reading.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        received += chunk.length
      })
      reading.write(request)
      // The reader gets its whole answer, more than the sockets' buffers hold: a list this long
      // streams (chunked), so it has come whole once its last chunk has.
      const whole = (): boolean => {
        const head = Buffer.concat(chunks.slice(0, 1)).toString('latin1')
        const length = /content-length: (\d+)/i.exec(head)
        if (length !== null) return received === head.indexOf('\r\n\r\n') + 4 + Number(length[1])
        return /transfer-encoding: chunked/i.test(head) && chunks.length > 1 && Buffer.concat(chunks.slice(-2)).toString('latin1').endsWith('\r\n0\r\n\r\n')
      }
      await vi.waitFor(() => expect(whole()).toBe(true), { timeout: 10_000, interval: 50 })
      expect(received).toBeGreaterThan(5_000_000)
      await vi.waitFor(() => expect(server.openConnections()).toBe(1), { timeout: 8_000, interval: 50 })
      expect(reading.destroyed).toBe(false)
      // Reset, not closed: reading again, the stalled client gets what its own receive buffer
      // held and nothing more. A closed socket went on sending the rest from the server's kernel
      // buffers (over 4 MB in this test when it was so), held for as long as the client kept its window shut.
      let late = 0
      stalled.on('data', (chunk: Buffer) => (late += chunk.length))
      const ended = new Promise((resolve) => stalled.once('close', resolve))
      stalled.resume()
      await ended
      expect(late).toBeLessThan(1_000_000)
      stalled.destroy()
      reading.destroy()
    } finally {
      await server.close()
    }
  })

  it.each(['http', 'https'])('leaves a connection that has sent no request yet to --headers-timeout and its 408 over %s (a shorter --send-timeout cut it without a word)', async (scheme) => {
    const tls = scheme === 'https'
    const server = await start([...(tls ? [] : ['--http']), '--send-timeout', '300', '--headers-timeout', '1500', '--request-timeout', '1500'])
    try {
      const tcp = await openFrom(server.port, '127.0.0.1')
      const socket = tls ? tlsConnect({ socket: tcp, ca: server.ca.pem, servername: 'localhost' }) : tcp
      if (tls) await new Promise((resolve) => socket.once('secureConnect', resolve))
      const answer = collect(socket, 5000)
      // Past the send timeout, within the headers timeout: served.
      await new Promise((resolve) => setTimeout(resolve, 800))
      expect(socket.destroyed).toBe(false)
      socket.write(`GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
      await vi.waitFor(() => expect(socket.bytesRead).toBeGreaterThan(0), { timeout: 2000, interval: 20 })
      const idle = tls ? tlsConnect({ socket: await openFrom(server.port, '127.0.0.1'), ca: server.ca.pem, servername: 'localhost' }) : await openFrom(server.port, '127.0.0.1')
      const timedOut = collect(idle, 5000)
      socket.destroy()
      expect((await answer).status).toBe(200)
      // One that sends nothing gets the headers timeout's 408, not a silent close at 300 ms.
      const late = await timedOut
      expect(late.status).toBe(408)
      expect(late.closedAfterMs).toBeGreaterThan(1000)
    } finally {
      await server.close()
    }
  })

  it('keeps a connection whose answer is still being made, with nothing to send yet', async () => {
    const server = await start(['--http', '--send-timeout', '500', '--latency', '1500ms'])
    try {
      const answer = await exchange(server.port, rawRequest('GET', `${REST}/appinfo.json`, AUTH))
      expect(answer.status).toBe(200)
      expect(answer.closedAfterMs).toBeGreaterThanOrEqual(1400)
    } finally {
      await server.close()
    }
  })
})
