/**
 * What the journal keeps of long and deep requests (src/journal/journal-bounds.ts): text cut
 * to its cap with a marker and its length, rules and call keys read from the whole request,
 * and an entry for every request however deep its body (issue 13, findings 2 and 5).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { bodyText, callKey } from '../../src/journal/call-key.js'
import { DETAIL_CAP, HEADER_CAP, MAX_VIOLATIONS, SHAPE_KEYS, SHAPE_KEYS_PER_OBJECT, URL_CAP, measureShape } from '../../src/journal/journal-bounds.js'
import type { JournalEntry } from '../../src/journal/journal.js'
import { DEFAULT_BODY_BYTES } from '../../src/journal/kept-body.js'
import type { ClientTraffic as HarnessState } from '../../src/journal/plugin.js'
import { AUTH, JSON_HEADERS, REST, harness, type Harness } from '../http/helpers.js'

let h: Harness
let state: HarnessState

beforeAll(async () => {
  h = await harness(10, { journalSize: 10_000 })
  state = h.built.traffic
})
afterAll(() => h.close())
beforeEach(() => state.journal.clear())

function last(): JournalEntry {
  const entry = state.journal.entries().at(-1)
  if (entry === undefined) throw new Error('no journal entry')
  return entry
}

describe('the journal of a long request', () => {
  it('keeps a 1,000,000-character URL cut at 8 KiB, ending with a marker and its length (finding 2)', async () => {
    const url = `${REST}/agentinfo.json?agentname=${'a'.repeat(1_000_000)}`
    const response = await h.app.inject({ method: 'GET', url })
    expect(response.statusCode).toBe(401)

    const entry = last()
    expect(entry).toMatchObject({ status: 401, operation: 'agentinfo', path: `${REST}/agentinfo.json`, truncated: { url: url.length } })
    const [name] = entry.query.agentname
    expect(name.endsWith(`...[truncated: ${url.length} bytes]`)).toBe(true)
    expect(name.length).toBeLessThan(URL_CAP)
    // The journal's own account: about what the entry holds, not the megabyte sent.
    expect(state.journal.bytes).toBeGreaterThan(URL_CAP)
    expect(state.journal.bytes).toBeLessThan(4 * URL_CAP)
  })

  it('drops the oldest entries when their bytes would pass --journal-max-bytes, and counts them', async () => {
    const app = await harness(10, { journalSize: 10_000, journalMaxBytes: 256 * 1024 })
    const small = app.built.traffic
    try {
      for (let i = 0; i < 40; i++) await app.app.inject({ method: 'GET', url: `${REST}/agentinfo.json?agentname=${i}${'b'.repeat(20_000)}` })
      expect(small.journal.bytes).toBeLessThanOrEqual(256 * 1024)
      expect(small.journal.dropped).toBeGreaterThan(0)
      expect(small.journal.size + small.journal.dropped).toBe(40)
      // The newest entries are the ones kept.
      expect(small.journal.entries().at(-1)?.query.agentname[0].startsWith('39b')).toBe(true)
    } finally {
      await app.close()
    }
  })

  it('cuts long accept and content-type headers at 1 KiB', async () => {
    const accept = `application/json, ${'x/y, '.repeat(1000)}`
    const contentType = `application/json; ${'p=q; '.repeat(1000)}`
    await h.app.inject({ method: 'GET', url: `${REST}/appinfo`, headers: { ...AUTH, accept, 'content-type': contentType } })
    const entry = last()
    expect(entry.truncated).toEqual({ accept: accept.length, contentType: contentType.length })
    expect(entry.accept?.endsWith(`...[truncated: ${accept.length} bytes]`)).toBe(true)
    expect(entry.accept?.length).toBeLessThan(HEADER_CAP + 40)
    expect(entry.contentType?.length).toBeLessThan(HEADER_CAP + 40)
  })

  it('finds the rules broken past the cut, from the whole URL, and never records credentials there', async () => {
    const pad = 'p'.repeat(2 * URL_CAP)
    await h.app.inject({ method: 'GET', url: `${REST}/agentinfo?agentname=x&pad=${pad}&password=hunter2`, headers: JSON_HEADERS })
    const first = last()
    expect(first.truncated?.url).toBeGreaterThan(URL_CAP)
    expect(first.violations.map((v) => v.rule)).toEqual(['unknown-parameter', 'credentials-in-query'])
    expect(first.query.password).toBeUndefined()
    expect(JSON.stringify(first)).not.toContain('hunter2')

    // Two calls that differ only past the cut are different calls.
    await h.app.inject({ method: 'GET', url: `${REST}/agentinfo?agentname=x&pad=${pad}&password=other`, headers: JSON_HEADERS })
    expect(last().callKey).not.toBe(first.callKey)
  })

  it(`keeps at most ${MAX_VIOLATIONS} violations, details cut at ${DETAIL_CAP} characters, and how many were found`, async () => {
    const unknown = Array.from({ length: 150 }, (_, k) => `u${k}=1`).join('&')
    await h.app.inject({ method: 'GET', url: `${REST}/agentinfo?agentname=x&${unknown}`, headers: JSON_HEADERS })
    const many = last()
    expect(many.violations).toHaveLength(MAX_VIOLATIONS)
    expect(many.truncated).toEqual({ violations: 150 })

    const key = 'k'.repeat(2 * DETAIL_CAP)
    await h.app.inject({ method: 'GET', url: `${REST}/agentinfo?agentname=x&${key}=1`, headers: JSON_HEADERS })
    const [long] = last().violations
    expect(long.rule).toBe('unknown-parameter')
    expect(long.detail.length).toBeLessThan(DETAIL_CAP + 40)
    expect(long.detail).toMatch(/\.\.\.\[truncated: \d+ characters\]$/)
  })

  it('keeps of a 1 MB body its shape, with a long key cut, and its first --journal-body-bytes', async () => {
    const key = 'k'.repeat(300_000)
    const payload = JSON.stringify({ name: 'n'.repeat(700_000), [key]: 1 })
    const response = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: JSON_HEADERS, payload })
    expect(response.statusCode).toBe(400)
    const entry = last()
    expect(Object.values(entry.body?.shape ?? {})).toEqual(['string', 'number'])
    expect(Object.keys(entry.body?.shape ?? {})[1]).toBe(`${'k'.repeat(256)}...[truncated: 300000 characters]`)
    expect(entry.requestBody).toEqual({ text: payload.slice(0, DEFAULT_BODY_BYTES), bytes: payload.length, truncated: true })
    // The entry, the beginning of the body and the small answer: not the megabyte sent.
    expect(state.journal.bytes).toBeLessThan(4096 + 2 * DEFAULT_BODY_BYTES)
  })
})

describe('the journal of a deeply nested body (finding 5)', () => {
  it.each([
    ['arrays', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ['objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`]
  ])('records 100,000 levels of %s: refused before it is parsed, and kept as sent up to its cap', async (_kind, payload) => {
    const response = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: JSON_HEADERS, payload })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].code).toBe('E_BODY_TOO_DEEP')
    const entry = last()
    expect(entry).toMatchObject({ operation: 'addagent', status: 400, requestBody: { bytes: payload.length, truncated: true } })
    expect(entry.requestBody?.text).toBe(payload.slice(0, DEFAULT_BODY_BYTES))
    expect(entry.callKey).toMatch(/^[0-9a-f]{16}$/)
  })

  it('summarises the shape of a body nested as deep as is read', async () => {
    const payload = `${'['.repeat(64)}${']'.repeat(64)}`
    const response = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: JSON_HEADERS, payload })
    expect(response.statusCode).toBe(400)
    expect(last()).toMatchObject({ operation: 'addagent', status: 400, body: { shape: [[[['array']]]] } })
  })
})

describe('the shape of a body', () => {
  it(`shows at most ${SHAPE_KEYS_PER_OBJECT} keys of an object and ${SHAPE_KEYS} in all`, () => {
    const wide = Object.fromEntries(Array.from({ length: 80 }, (_, k) => [`k${k}`, k]))
    expect(Object.keys(measureShape(wide).shape)).toHaveLength(SHAPE_KEYS_PER_OBJECT)
    const nested = Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`o${k}`, wide]))
    const shape = measureShape(nested).shape as Record<string, Record<string, string>>
    const keys = Object.keys(shape).length + Object.values(shape).reduce((sum, inner) => sum + Object.keys(inner).length, 0)
    expect(keys).toBe(SHAPE_KEYS)
  })
})

describe('the call key', () => {
  it('writes a body as JSON.stringify does, so call keys stay what they were', () => {
    const bodies = [{ name: 'a', 'global-config': { port: 4041, tags: ['x', null, true, 1.5] } }, [], {}, [[], {}], 'text', 0, null, { 'quo"te': 'é\n\u0000' }]
    for (const body of bodies) expect(bodyText(body)).toBe(JSON.stringify(body))
  })

  it('digests a body nested 100,000 deep', () => {
    let deep: unknown = 1
    for (let k = 0; k < 100_000; k++) deep = [deep]
    expect(callKey('POST', 'addagent', '', deep)).toMatch(/^[0-9a-f]{16}$/)
  })
})
