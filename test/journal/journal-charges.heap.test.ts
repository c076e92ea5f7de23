/**
 * The bytes limit of the journal holds only if each entry is charged at least what it holds.
 * Here the heap that built entries hold (the heap after a full GC, before and after the
 * journal is cleared) is compared with their charges, for ordinary requests and for the
 * longest ones. Over a real socket: inject's mock requests keep each other alive.
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { heapAfterGc } from '../heap.js'
import { URL_CAP } from '../../src/journal/journal-bounds.js'
import type { ClientTraffic as HarnessState } from '../../src/journal/plugin.js'
import { JSON_HEADERS, REST, harness, type Harness } from '../http/helpers.js'

let h: Harness
let state: HarnessState
let port: number

function send(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(body)
  })
}

beforeAll(async () => {
  h = await harness(10, { journalSize: 10_000 })
  state = h.built.traffic
  await h.app.listen({ host: '127.0.0.1', port: 0 })
  port = (h.app.server.address() as { port: number }).port
})
afterAll(() => h.close())

/** A URL of almost 8 KiB with as many different parameters as fit (`&` and two characters each): the most a kept URL can make an entry hold. */
const manyParameters = (i: number) => `${REST}/agentinfo?${Array.from({ length: 1296 * 2 }, (_, k) => (((k + i) % 1296) + 36).toString(36)).join('&')}`.slice(0, URL_CAP - 10)

describe('the charge of a journal entry', () => {
  it.each([
    ['agentinfo by name', 600, (i: number) => send(`${REST}/agentinfo?agentname=agent-${i}`, JSON_HEADERS)],
    ['agentinfo by state, with an unknown parameter', 600, (i: number) => send(`${REST}/agentinfo?agentstate=ONLINE&agentwithmodules=false&x${i}=1`, JSON_HEADERS)],
    ['addagent with a body', 600, (i: number) => send(`${REST}/addagent`, JSON_HEADERS, 'POST', JSON.stringify({ name: `c-${i}`, labels: { a: 1, b: [1, 2] } }))],
    ['addagent with a 100 KB body, kept cut', 300, (i: number) => send(`${REST}/addagent`, JSON_HEADERS, 'POST', JSON.stringify({ name: `d-${i}-${'n'.repeat(100_000)}` }))],
    ['addagent with a body beyond Latin-1, kept cut', 300, (i: number) => send(`${REST}/addagent`, JSON_HEADERS, 'POST', JSON.stringify({ name: `e-${i}-${'€'.repeat(30_000)}` }))],
    ['a URL cut at the cap, without credentials', 300, (i: number) => send(`${REST}/agentinfo.json?agentname=${i}${'a'.repeat(12_000)}`, {})],
    ['a kept URL full of parameters', 40, (i: number) => send(manyParameters(i), JSON_HEADERS)]
  ])('covers what the built entry of %s holds', async (_kind, count, sendOne) => {
    // Warm up, so that code compiled and caches filled on first use do not count as entries.
    for (let i = 0; i < 20; i++) await sendOne(-1 - i)
    // Filled and measured twice, the smaller kept: anything else the process lets go between the
    // two heaps of a fill (a connection's buffers, a cache) counts as the entries'. One fill of
    // 100 KB bodies held 1.05 of its charge once in a full run (2.06 MB against 1.97), and passed
    // alone. Entries charged too little hold more than their charge in both fills.
    const fills = []
    for (let fill = 0; fill < 2; fill++) {
      state.journal.clear()
      for (let i = 0; i < count; i++) await sendOne(fill * count + i)
      expect(state.journal.size).toBe(count)
      state.journal.entries()
      const charged = state.journal.bytes
      const withEntries = heapAfterGc()
      state.journal.clear()
      fills.push({ held: withEntries - heapAfterGc(), charged })
    }
    const least = fills.reduce((a, b) => (a.held <= b.held ? a : b))
    expect(least.held).toBeGreaterThan(0)
    expect(least.held).toBeLessThanOrEqual(least.charged)
  })
})
