/**
 * Regression of issue 13, finding 2: the journal kept every request's URL and body whole, so
 * clients repeating 1 MB requests (401s without credentials, 400s with a 1 MB body) grew the
 * heap by 1 MB a request until the process died. And the bodies the journal keeps since issue
 * 18 (--journal-body-bytes) count in --journal-max-bytes. Measured on a real server (inject's
 * mock requests keep each other alive, which would hide what the journal keeps), with the
 * heap after a full GC.
 */
import { Agent, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { heapAfterGc } from '../heap.js'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import type { JournalEntry } from '../../src/journal/journal.js'

const MB = 1024 * 1024
/** Requests of each kind; the old journal kept about 1 MB of each. */
const REQUESTS = 30

let sim: RunningFleetsim
const agent = new Agent({ keepAlive: true, maxSockets: 4 })

function send(path: string, headers: Record<string, string>, method = 'GET', body?: string, target = sim): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.origin)
    const req = request({ host: url.hostname, port: url.port, path, method, headers, agent }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(body)
  })
}

beforeAll(async () => {
  sim = await startFleetsim({ http: true, agents: 10, journalSize: 10_000 })
})
afterAll(async () => {
  agent.destroy()
  await sim.close()
})

describe('the journal under 1 MB requests', () => {
  it('keeps a bounded part of each: the heap grows by far less than the requests were long', async () => {
    const path = new URL(sim.url).pathname
    // Warm up: the first requests compile code and fill caches that would look like growth.
    for (let i = 0; i < 4; i++) await send(`${path}/agentinfo.json?agentname=warm${i}`, {})
    const before = heapAfterGc()
    const name = 'a'.repeat(1_000_000)
    const statuses: number[] = []
    for (let i = 0; i < REQUESTS; i++) statuses.push(await send(`${path}/agentinfo.json?agentname=${i}${name}`, {}))
    const json = { ...sim.headers, 'content-type': 'application/json', accept: 'application/json' }
    for (let i = 0; i < REQUESTS; i++) statuses.push(await send(`${path}/addagent`, json, 'POST', JSON.stringify({ name: `${i}${name}` })))
    const grown = heapAfterGc() - before

    expect(new Set(statuses)).toEqual(new Set([401, 400]))
    expect(sim.journal().length).toBe(2 * REQUESTS + 4)
    // The old journal grew by 2 × 30 MB here; each kept entry is now about 10 KB.
    expect(grown).toBeLessThan(12 * MB)
  })

  it('keeps none of a request\'s header names: 500 names of 1 KB each a request grow the heap by far less than they are long', async () => {
    const path = new URL(sim.url).pathname
    // Names of its own for each request: a name sent again is one string, kept once.
    const headersOf = (i: number) => {
      const headers: Record<string, string> = { ...sim.headers }
      for (let k = 0; k < 500; k++) headers[`x-${i}-${k}-${'h'.repeat(1000)}`] = 'v'
      return headers
    }
    await send(`${path}/appinfo.json`, headersOf(-1))
    const before = heapAfterGc()
    for (let i = 0; i < REQUESTS; i++) expect(await send(`${path}/appinfo.json?i=${i}`, headersOf(i))).toBe(200)
    // Kept with each entry (the credential-headers rule read them), they held 30 × 0.5 MB.
    expect(heapAfterGc() - before).toBeLessThan(6 * MB)
  })
})

describe('the journal under large bodies', () => {
  /** The least --journal-max-bytes, and bodies kept up to half of it. */
  const MAX_BYTES = MB
  const BODY_BYTES = 512 * 1024
  let big: RunningFleetsim
  beforeAll(async () => {
    // 900 agents: one answer listing them all is about 0.6 MB, sent whole (not streamed).
    // No answers kept for sending again: they have their own bound (--kept-answers-max-bytes), and here only the journal's is measured.
    big = await startFleetsim({ http: true, agents: 900, journalSize: 10_000, journalMaxBytes: MAX_BYTES, journalBodyBytes: BODY_BYTES, keptAnswersMaxBytes: 0 })
  })
  afterAll(() => big.close())

  it('counts the bodies kept in --journal-max-bytes: the heap grows by about the bound, not by the bodies', async () => {
    const path = new URL(big.url).pathname
    const json = { ...big.headers, 'content-type': 'application/json', accept: 'application/json' }
    for (let i = 0; i < 4; i++) await send(`${path}/agentinfo?agentwithmodules=false`, json, 'GET', undefined, big)
    const before = heapAfterGc()
    const statuses: number[] = []
    for (let i = 0; i < REQUESTS; i++) statuses.push(await send(`${path}/addagent`, json, 'POST', JSON.stringify({ name: `${i}${'n'.repeat(1_000_000)}` }), big))
    for (let i = 0; i < REQUESTS; i++) statuses.push(await send(`${path}/agentinfo?agentwithmodules=false&i=${i}`, json, 'GET', undefined, big))
    const grown = heapAfterGc() - before

    expect(new Set(statuses)).toEqual(new Set([400, 200]))
    // Kept whole, the 60 bodies of half a megabyte would hold 30 MB.
    expect(grown).toBeLessThan(4 * MAX_BYTES)
    const answer = (await (await fetch(`${big.origin}/__admin/requests`, { headers: big.headers })).json()) as { entries: JournalEntry[]; bytes: number; maxBytes: number; dropped: number }
    expect(answer.bytes).toBeLessThanOrEqual(MAX_BYTES)
    expect(answer.dropped).toBeGreaterThan(0)
    const newest = answer.entries.at(-1)
    expect(newest?.responseBody).toMatchObject({ truncated: true })
    expect(newest?.responseBody?.text.length).toBe(BODY_BYTES)
  })
})
