/**
 * A last answer sent while the client is still sending (a 413 to an upload by its
 * Content-Length) reaches the client: the connection reads and drops the rest before it closes
 * (src/http/lingering-close.ts). Closed at once, the rest of the upload made the kernel answer
 * with a reset, and Node's own client lost the 413 to EPIPE in about half of the tries.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { connect } from 'node:net'
import { collect, open } from './socket.js'

const REST = '/manager/mvc/restservice'
const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'admin' }
const run = promisify(execFile)

let dataDir: string
const servers: Record<'http' | 'https', RunningServer | undefined> = { http: undefined, https: undefined }
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-lingering-'))
  for (const scheme of ['http', 'https'] as const) {
    const flags = ['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, ...(scheme === 'http' ? ['--http'] : [])]
    servers[scheme] = await startServer(parseServeConfig(flags, {}), { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
  }
})
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server?.close()))
  await rm(dataDir, { recursive: true, force: true })
})

/**
 * Uploads of 20 MB with Node's own client, one after another on connections of their own, from
 * a process of its own (in the server's process the two took turns on one thread, and the
 * reset never overtook the answer): each one's status, or the error that ended it.
 */
async function uploads(scheme: 'http' | 'https', count: number): Promise<Array<number | string>> {
  const client = `
    const send = require('node:${scheme}').request
    const upload = Buffer.alloc(20_000_000, 'a')
    const one = () => new Promise((resolve) => {
      const request = send({ host: '127.0.0.1', port: ${servers[scheme]?.port}, path: '${REST}/addsubtemplate', method: 'POST', agent: false,
        rejectUnauthorized: false, headers: { ...${JSON.stringify(AUTH)}, 'content-type': 'application/json', 'content-length': upload.length } },
        (response) => { response.resume(); response.on('end', () => resolve(response.statusCode)) })
      request.on('error', (error) => resolve(error.code ?? error.message))
      request.end(upload)
    })
    ;(async () => { const outcomes = []; for (let k = 0; k < ${count}; k++) outcomes.push(await one()); console.log(JSON.stringify(outcomes)) })()
  `
  const { stdout } = await run(process.execPath, ['-e', client], { timeout: 60_000 })
  return JSON.parse(stdout) as Array<number | string>
}

/**
 * Uploads of 5 MB from a raw TLS socket that sends the whole request before it reads (from a
 * process of its own, as above): the status each one read, or "none".
 */
async function rawTlsUploads(count: number): Promise<Array<number | string>> {
  const client = `
    const tls = require('node:tls')
    const head = 'POST ${REST}/addsubtemplate HTTP/1.1\\r\\nHost: x\\r\\nREST_USER: admin\\r\\nREST_PASSWORD: admin\\r\\nContent-Type: application/json\\r\\nContent-Length: 5000000\\r\\n\\r\\n'
    const one = () => new Promise((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port: ${servers.https?.port}, rejectUnauthorized: false }, () => {
        socket.write(head)
        socket.write(Buffer.alloc(5_000_000, 'a'))
      })
      let text = ''
      socket.on('data', (chunk) => (text += chunk.toString('latin1')))
      socket.on('error', () => undefined)
      socket.on('close', () => resolve(Number(/^HTTP\\/1\\.1 (\\d{3})/.exec(text)?.[1] ?? 0) || 'none'))
    })
    ;(async () => { const outcomes = []; for (let k = 0; k < ${count}; k++) outcomes.push(await one()); console.log(JSON.stringify(outcomes)) })()
  `
  const { stdout } = await run(process.execPath, ['-e', client], { timeout: 60_000 })
  return JSON.parse(stdout) as Array<number | string>
}

describe('a last answer sent while the client is still sending', () => {
  it.each(['http', 'https'] as const)('reaches a client uploading 20 MB over %s every time', async (scheme) => {
    expect(await uploads(scheme, 8)).toEqual(Array(8).fill(413))
  })

  it('reaches a raw TLS client that sends a 5 MB upload whole before it reads', async () => {
    expect(await rawTlsUploads(6)).toEqual(Array(6).fill(413))
  })

  it('reads what the client goes on sending after the answer, without a reset, and closes a second after it stops', async () => {
    const server = servers.http as RunningServer
    await vi.waitFor(() => expect(server.openConnections()).toBe(0), { timeout: 5000 })
    // A client that goes on sending after the server's FIN: its side stays open (allowHalfOpen).
    const socket = connect({ host: '127.0.0.1', port: server.port, allowHalfOpen: true })
    await new Promise((resolve) => socket.once('connect', resolve))
    const errors: string[] = []
    socket.on('error', (error: Error & { code?: string }) => errors.push(error.code ?? error.message))
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')))
    socket.write(`POST ${REST}/createfield HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n`)
    await vi.waitFor(() => expect(answer).toMatch(/^HTTP\/1\.1 413/), { timeout: 5000 })
    // The rest of the body, a piece every 100 ms for 600 ms after the 413: read and dropped, so no reset comes back.
    for (let k = 0; k < 6; k++) {
      socket.write(Buffer.alloc(64 * 1024, 'a'))
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(errors).toEqual([])
    expect(server.openConnections()).toBe(1)
    // Closed by the server once a second passed without a byte, not at once and not after the whole linger.
    const stoppedAt = performance.now()
    await vi.waitFor(() => expect(server.openConnections()).toBe(0), { timeout: 5000, interval: 20 })
    const closedAfter = performance.now() - stoppedAt
    expect(closedAfter).toBeGreaterThan(700)
    expect(closedAfter).toBeLessThan(3000)
    socket.destroy()
  })

  it('runs no request read from the connection while it closes', async () => {
    const port = servers.http?.port as number
    const socket = await open(port)
    const answer = collect(socket, 10_000)
    const create = JSON.stringify({ name: 'lingered', type: 'STRING' })
    socket.write(`POST ${REST}/createfield HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n`)
    socket.write(Buffer.alloc(2_000_000, 'a'))
    // Behind the refused body, a request of its own that would create the field.
    socket.write(`POST ${REST}/createfield HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nContent-Type: application/json\r\nContent-Length: ${create.length}\r\n\r\n${create}`)
    const { status, text, closedAfterMs } = await answer
    expect(status).toBe(413)
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1)
    // The client sent nothing more and kept its side open: closed after the idle second, not the whole linger.
    expect(closedAfterMs).toBeLessThan(4000)
    // The field is still free: the request behind the refused body never ran.
    const created = await fetch(`http://127.0.0.1:${port}${REST}/createfield`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json' }, body: create })
    expect(created.status).toBe(200)
  })
})
