import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { createManager, type Manager } from '../../src/manager/manager.js'
import { APP_PATH, CA, START } from '../http/helpers.js'
import { requestArbitrary, type FuzzRequest } from './fuzz/requests.js'
import { FUZZ_LIMITS, checkFleet } from './fuzz/runner.js'
import { bodyOf, exchange, rawRequest, type RawAnswer } from './socket.js'

// Fewer than the inject run: each request is a connection. Fixed seed and count.
const SEED = 4242
const RUNS = 300

let fleet: FleetEngine
let manager: Manager
let app: FastifyInstance
let port: number

beforeAll(async () => {
  // A fast clock: operations that wait for agents to reconnect answer within milliseconds.
  fleet = await createFleet({ agents: 100, seed: 3, workers: 1, speed: 2000, startTime: START, caFingerprint: CA.fingerprint })
  manager = createManager(fleet, CA)
  app = (await buildApp({ fleet, manager, ca: CA, processMetrics: false }, { user: 'fuzz', password: 'fuzz-secret', ...FUZZ_LIMITS })).app
  await app.listen({ host: '127.0.0.1', port: 0 })
  port = (app.server.address() as { port: number }).port
})

afterAll(async () => {
  await app.close()
  await fleet.close()
})

type Mutation = { kind: 'none' } | { kind: 'bytes'; at: number; bytes: Uint8Array } | { kind: 'truncate'; at: number }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('bytes' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) }
)

function bytesOf(request: FuzzRequest, change: Mutation): Buffer {
  const raw = rawRequest(request.method, request.url, request.headers, request.payload)
  if (change.kind === 'bytes') {
    // Into the head: the request line and headers are what Node's parser reads.
    const headEnd = raw.indexOf('\r\n\r\n')
    const at = change.at % Math.max(1, headEnd)
    return Buffer.concat([raw.subarray(0, at), Buffer.from(change.bytes), raw.subarray(at)])
  }
  if (change.kind === 'truncate') return raw.subarray(0, 1 + (change.at % Math.max(1, raw.length - 1)))
  return raw
}

function envelopeProblem(request: FuzzRequest, answer: RawAnswer): string | undefined {
  if (answer.status === undefined) return 'no answer'
  if (answer.status >= 500 || answer.status < 200 || (answer.status >= 300 && answer.status < 400)) return `status ${answer.status}`
  if (request.method === 'HEAD' || answer.status === 204) return undefined
  const body = bodyOf(answer)
  if (/content-type: application\/json/i.test(answer.text)) {
    try {
      const parsed = JSON.parse(body) as { servicename?: unknown }
      return typeof parsed.servicename === 'string' ? undefined : 'JSON without servicename'
    } catch {
      return 'JSON that does not parse'
    }
  }
  return body.startsWith('<?xml') && body.includes('<result servicename=') ? undefined : 'neither a JSON nor an XML envelope'
}

describe('fuzzed raw requests over real sockets on 127.0.0.1', () => {
  it(`answer ${RUNS} requests (some with stray bytes in the head, some cut short) without a 5xx or a dropped connection`, { timeout: 120_000 }, async () => {
    const everyone = [...fleet.indices()]
    const requests = fc.sample(
      fc.tuple(
        requestArbitrary({ appPath: APP_PATH, user: 'fuzz', password: 'fuzz-secret', caFingerprint: CA.fingerprint, names: everyone.map((i) => fleet.name(i)), uuids: everyone.map((i) => fleet.uuid(i)) }),
        mutation
      ),
      { seed: SEED, numRuns: RUNS }
    )
    const problems: string[] = []
    const statuses: Record<string, number> = {}
    let serverErrors = 0
    let dropped = 0
    for (const [request, change] of requests) {
      const truncated = change.kind === 'truncate'
      // A cut-short request ends the client's side; the server may answer 400 or just close.
      const answer = await exchange(port, bytesOf(request, change), { end: truncated, boundMs: 10_000 })
      const key = answer.status === undefined ? 'none' : String(answer.status)
      statuses[key] = (statuses[key] ?? 0) + 1
      if (answer.status !== undefined && answer.status >= 500) serverErrors++
      if (truncated) {
        if (answer.status !== undefined && answer.status >= 500) problems.push(`${answer.status} to a truncated ${request.method} ${request.url.slice(0, 120)}`)
        continue
      }
      const problem = envelopeProblem(request, answer)
      if (problem === 'no answer') dropped++
      if (problem !== undefined && problems.length < 20) problems.push(`${problem}: ${change.kind} ${request.method} ${request.url.slice(0, 160)} → ${answer.text.slice(0, 200)}`)
    }
    const alive = await exchange(port, rawRequest('GET', `${APP_PATH}/restservice/appinfo.json`, { REST_USER: 'fuzz', REST_PASSWORD: 'fuzz-secret' }))
    await fleet.setClock({ paused: true })
    await fleet.digest()
    process.stdout.write(
      `fuzz (sockets): ${RUNS} requests, ${serverErrors} server errors, ${dropped} dropped (${Object.entries(statuses).map(([s, n]) => `${s}×${n}`).join(' ')})\n`
    )
    expect(problems).toEqual([])
    expect(alive.status).toBe(200)
    expect(checkFleet(fleet, manager)).toEqual([])
  })
})
