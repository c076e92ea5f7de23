import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { request } from 'node:https'
import { connect as tcpConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { connect as tlsConnect } from 'node:tls'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

const REST = '/manager/mvc/restservice'
const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'admin' }
// appinfo answers after a second, within the grace; certificateinfo is held for a minute, past it.
const SCENARIO = `description: requests that take a while, for the shutdown test
fleet:
  agents: 5
faults:
  - name: slow
    operation: appinfo
    latency: 1000
  - name: stuck
    operation: certificateinfo
    stall: { for: 60s, rate: 1 }
`
const GRACE_MS = 3000

let dir: string
let child: ChildProcess | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleetsim-shutdown-'))
})
afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  child = undefined
  await rm(dir, { recursive: true, force: true })
})

/** Starts `fleetsim serve` with these flags; resolves with its port and CA once it listens. */
async function serve(flags: string[]): Promise<{ port: number; ca: string }> {
  child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--workers', '1', '--data-dir', dir, '--log-level', 'warn', ...flags], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  for await (const line of createInterface({ input: child.stdout! })) {
    const match = /^fleetsim listening on https:\/\/127\.0\.0\.1:(\d+)\/.* CA file (.*)\)$/.exec(line)
    if (match !== null) return { port: Number(match[1]), ca: await readFile(match[2], 'utf8') }
  }
  throw new Error('fleetsim serve ended before it listened')
}

function get(port: number, ca: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, ca, servername: 'localhost', headers: AUTH, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

function openTcp(port: number): Promise<Socket> {
  const socket = tcpConnect({ host: '127.0.0.1', port })
  socket.on('error', () => undefined)
  return new Promise((resolve) => socket.once('connect', () => resolve(socket)))
}

async function openTls(port: number, ca: string): Promise<Socket> {
  const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' })
  socket.on('error', () => undefined)
  await once(socket, 'secureConnect')
  return socket
}

describe('fleetsim serve on SIGTERM', () => {
  it('cuts stuck connections, lets a request in flight finish within --shutdown-grace, saves the state and exits 0', async () => {
    const stateFile = join(dir, 'state.bin')
    await writeFile(join(dir, 'scenario.yaml'), SCENARIO)
    // Long timeouts: here the shutdown, not a timeout, must end the stuck connections.
    const { port, ca } = await serve([
      '--scenario', join(dir, 'scenario.yaml'), '--state-file', stateFile, '--shutdown-grace', String(GRACE_MS),
      '--headers-timeout', '60000', '--request-timeout', '60000', '--max-connections-per-client', '1000'
    ])

    // Connections that never start TLS, a handshake that stops halfway, a TLS connection that
    // sends nothing, and one that stops in the middle of its request head.
    const stuck = await Promise.all(Array.from({ length: 200 }, () => openTcp(port)))
    const halfHello = await openTcp(port)
    halfHello.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xc8, 0x01]))
    const idleTls = await openTls(port, ca)
    const halfHead = await openTls(port, ca)
    halfHead.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nHost: 127.0.0.1\r\n`)
    const sockets = [...stuck, halfHello, idleTls, halfHead]
    const closed = sockets.map((socket) => once(socket, 'close'))

    const slow = get(port, ca, `${REST}/appinfo.json`)
    const held = get(port, ca, `${REST}/certificateinfo.json`).then(
      () => 'answered',
      () => 'cut'
    )
    // Both in flight (the gauge counts the /metrics request too).
    await vi.waitFor(
      async () => {
        const metrics = await get(port, ca, '/metrics')
        const inFlight = /^fleetsim_http_requests_in_flight(?:\{[^}]*\})? (\d+)/m.exec(metrics.body)
        expect(Number(inFlight?.[1])).toBeGreaterThanOrEqual(3)
      },
      { timeout: 10_000, interval: 50 }
    )

    const signalled = performance.now()
    child!.kill('SIGTERM')
    const [code] = (await once(child!, 'exit')) as [number | null]
    const tookMs = performance.now() - signalled

    expect(code).toBe(0)
    // The grace and the save, far from the minute certificateinfo is held (before: never).
    expect(tookMs).toBeLessThan(GRACE_MS + 7000)
    expect(await slow).toMatchObject({ status: 200 })
    expect(await held).toBe('cut')
    await Promise.all(closed)
    expect((await stat(stateFile)).size).toBeGreaterThan(0)
  })

  it('shuts down the same on SIGHUP (a closed terminal), saving the state (it died at once, unsaved)', async () => {
    const stateFile = join(dir, 'state.bin')
    await serve(['--agents', '5', '--state-file', stateFile])
    child!.kill('SIGHUP')
    const [code, signal] = (await once(child!, 'exit')) as [number | null, NodeJS.Signals | null]
    expect({ code, signal }).toEqual({ code: 0, signal: null })
    expect((await stat(stateFile)).size).toBeGreaterThan(0)
  })
})
