/**
 * Slow tier (`npm run test:slow`): 2,048 idle connections that never start TLS, held against
 * an HTTPS server for several times its handshake deadline, the way a load balancer's TCP
 * health checks or a port scanner hold them. Before the fix they were never closed: at 2,048
 * every new connection was refused until restart, and the server's fds only grew.
 *
 * The server runs as `fleetsim serve` in a child process, so its fds are its own. The idle
 * sockets come from 16 loopback addresses (Linux routes all of 127/8 to this machine), 128
 * from each, under the default --max-connections-per-client; --max-connections is raised so
 * that the global limit is not what this test is about. The real clients come from 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { request } from 'node:https'
import { connect as tcpConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

const IDLE_SOCKETS = 2048
const ADDRESSES = Array.from({ length: 16 }, (_, k) => `127.0.1.${k + 1}`)
/** --headers-timeout: the handshake deadline; long enough that opening them all takes less. */
const HANDSHAKE_MS = 2000
const HOLD_MS = 3 * HANDSHAKE_MS
const REQUEST_EVERY_MS = 200
/** fds this process needs: the idle sockets, the clients and Node's own, with room. */
const FDS_NEEDED = IDLE_SOCKETS + 512

/** The soft limit on open files of this process (Node raises it to the hard limit at start). */
function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((row) => row.startsWith('Max open files'))
  const soft = line?.split(/\s{2,}/)[1]
  return soft === undefined || soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft)
}

const limit = openFileLimit()
if (limit < FDS_NEEDED) console.warn(`skipped: this test holds ${IDLE_SOCKETS} sockets and needs ${FDS_NEEDED} open files, the limit is ${limit} (raise it: ulimit -n ${FDS_NEEDED})`)

let dir: string
let child: ChildProcess
let port: number
let ca: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleetsim-idle-'))
  child = spawn(
    process.execPath,
    [
      '--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--agents', '10', '--workers', '1', '--data-dir', dir, '--log-level', 'warn',
      '--headers-timeout', String(HANDSHAKE_MS), '--request-timeout', String(2 * HANDSHAKE_MS), '--max-connections', '4096'
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  )
  for await (const line of createInterface({ input: child.stdout! })) {
    const match = /^fleetsim listening on https:\/\/127\.0\.0\.1:(\d+)\/.* CA file (.*)\)$/.exec(line)
    if (match === null) continue
    port = Number(match[1])
    ca = await readFile(match[2], 'utf8')
    break
  }
})

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await rm(dir, { recursive: true, force: true })
})

async function serverFds(): Promise<number> {
  return (await readdir(`/proc/${child.pid}/fd`)).length
}

/** appinfo over HTTPS on a fresh connection; the status, or the error code. */
function appinfo(): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/manager/mvc/restservice/appinfo.json', ca, servername: 'localhost', agent: false, headers: { REST_USER: 'admin', REST_PASSWORD: 'admin' } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      }
    )
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    req.end()
  })
}

describe('an HTTPS server under 2,048 idle non-TLS connections', () => {
  it.skipIf(limit < FDS_NEEDED)('closes each after the handshake deadline, serves new clients throughout, and its fds come back to baseline', async () => {
    expect(await appinfo()).toBe(200)
    const baseline = await serverFds()

    // Open all of them, in batches so the listen backlog is not what is measured, and never
    // close one: whatever closes them is the server.
    let peakFds = 0
    const idle: Socket[] = []
    const closed = new Set<Socket>()
    for (let batch = 0; batch < IDLE_SOCKETS / 256; batch++) {
      const opened = Array.from({ length: 256 }, (_, k) => {
        const socket = tcpConnect({ host: '127.0.0.1', port, localAddress: ADDRESSES[(batch * 256 + k) % ADDRESSES.length] })
        socket.on('error', () => undefined)
        socket.once('close', () => closed.add(socket))
        idle.push(socket)
        return once(socket, 'connect')
      })
      await Promise.all(opened)
      peakFds = Math.max(peakFds, await serverFds())
    }
    const holdStarted = performance.now()

    // A real HTTPS request every 200 ms, for several times the handshake deadline.
    const answers: (number | string)[] = []
    while (performance.now() < holdStarted + HOLD_MS) {
      const tick = new Promise((resolve) => setTimeout(resolve, REQUEST_EVERY_MS))
      answers.push(await appinfo())
      await tick
    }
    const closedByServer = closed.size
    for (const socket of idle) socket.destroy()

    // The server held (most of) them at once, then closed every one of them by itself.
    expect(peakFds).toBeGreaterThan(baseline + IDLE_SOCKETS / 2)
    expect(closedByServer).toBe(IDLE_SOCKETS)
    expect(answers.length).toBeGreaterThanOrEqual(HOLD_MS / REQUEST_EVERY_MS / 2)
    expect(answers.filter((answer) => answer !== 200)).toEqual([])
    await vi.waitFor(async () => expect(await serverFds()).toBeLessThanOrEqual(baseline), { timeout: 10_000, interval: 100 })

    child.kill('SIGTERM')
    const [code] = (await once(child, 'exit')) as [number | null]
    expect(code).toBe(0)
  })
})
