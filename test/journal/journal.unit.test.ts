import { describe, expect, it } from 'vitest'
import { Journal, SharedFacts, type JournalEntry, type OwnNumbers } from '../../src/journal/journal.js'

function entry(path: string): Omit<JournalEntry, 'id'> {
  return {
    time: '2026-01-01T00:00:00.000Z',
    wallMs: 1,
    virtualTime: '2026-01-01T00:00:00.000Z',
    operation: 'agentinfo',
    method: 'GET',
    path,
    query: {},
    format: 'json',
    status: 200,
    durationMs: 0.5,
    errorCodes: [],
    partialErrors: [],
    agentStates: [],
    violations: [],
    rejected: false,
    callKey: path
  }
}

/** Shared facts that count how often an entry was built from them. */
class Polled extends SharedFacts {
  builds = 0
  constructor(
    readonly path: string,
    readonly bytes = 0,
    readonly entryBytes = 100
  ) {
    super()
  }

  entry(own: OwnNumbers): JournalEntry {
    this.builds++
    // A request given its own URL and text (OwnText) shows them: path and call key.
    return { ...entry(own.url ?? this.path), id: own.id, durationMs: own.durationMs, wallMs: own.wallMs, virtualTime: new Date(own.virtualMs).toISOString(), ...(own.text === undefined ? {} : { callKey: own.text }) }
  }
}

describe('the journal', () => {
  it('keeps entries of every kind in arrival order, with ids counting every request', () => {
    const journal = new Journal(10)
    const polled = new Polled('/shared')
    journal.add(entry('/a'))
    journal.addShared(polled, 1.25, 1000, Date.UTC(2026, 0, 2))
    journal.addLazy('/lazy', (path, id) => ({ ...entry(path), id }), 100)
    journal.addShared(polled, 2.5, 2000, Date.UTC(2026, 0, 3))

    const entries = journal.entries()
    expect(entries.map((e) => [e.id, e.path])).toEqual([
      [1, '/a'],
      [2, '/shared'],
      [3, '/lazy'],
      [4, '/shared']
    ])
    // Each request sharing facts keeps its own numbers.
    expect(entries[1]).toMatchObject({ durationMs: 1.25, wallMs: 1000, virtualTime: '2026-01-02T00:00:00.000Z' })
    expect(entries[3]).toMatchObject({ durationMs: 2.5, wallMs: 2000, virtualTime: '2026-01-03T00:00:00.000Z' })
  })

  it('builds a shared entry once, on first read', () => {
    const journal = new Journal(4)
    const polled = new Polled('/shared')
    journal.addShared(polled, 1, 1, 1)
    expect(polled.builds).toBe(0)
    const first = journal.entries()[0]
    expect(journal.entries()[0]).toBe(first)
    expect(polled.builds).toBe(1)
  })

  it('drops the oldest entries when full, whatever their kind, and counts them', () => {
    const journal = new Journal(3)
    const polled = new Polled('/shared')
    for (let k = 0; k < 7; k++) {
      if (k % 2 === 0) journal.addShared(polled, k, k, k)
      else journal.add(entry(`/plain${k}`))
    }
    const entries = journal.entries()
    expect(entries.map((e) => [e.id, e.path, e.durationMs])).toEqual([
      [5, '/shared', 4],
      [6, '/plain5', 0.5],
      [7, '/shared', 6]
    ])
    expect(journal.dropped).toBe(4)
    expect(journal.size).toBe(3)
  })

  it('keeps counting ids after a clear, and a journal of size 0 keeps nothing', () => {
    const journal = new Journal(2)
    journal.addShared(new Polled('/x'), 1, 1, 1)
    journal.clear()
    expect(journal.entries()).toEqual([])
    expect(journal.addShared(new Polled('/y'), 1, 1, 1)).toBe(2)
    expect(journal.entries().map((e) => e.id)).toEqual([2])

    const none = new Journal(0)
    expect(none.enabled).toBe(false)
    expect(none.addShared(new Polled('/z'), 1, 1, 1)).toBe(1)
    expect(none.entries()).toEqual([])
  })
})

describe('the journal, requests with their own URL and text', () => {
  it('gives each request sharing facts its own URL and text, and none to those without', () => {
    const journal = new Journal(10)
    const shape = new Polled('/shape')
    journal.addShared(shape, 1, 1, 1, { url: '/a?agentname=one', answer: Buffer.from('answer one'), bytes: 10 })
    journal.addShared(shape, 2, 2, 2)
    journal.addShared(shape, 3, 3, 3, { url: '/a?agentname=two', answer: Buffer.from('answer two'), bytes: 10 })
    expect(journal.entries().map((e) => [e.id, e.path, e.callKey])).toEqual([
      [1, '/a?agentname=one', 'answer one'],
      [2, '/shape', '/shape'],
      [3, '/a?agentname=two', 'answer two']
    ])
  })

  it('does not give a dropped request\'s URL and text to the request that takes its slot', () => {
    const journal = new Journal(2)
    const shape = new Polled('/shape')
    journal.addShared(shape, 1, 1, 1, { url: '/first', answer: Buffer.from('first'), bytes: 10 })
    journal.addShared(shape, 2, 2, 2, { url: '/second', answer: Buffer.from('second'), bytes: 10 })
    journal.addShared(shape, 3, 3, 3)
    expect(journal.entries().map((e) => e.path)).toEqual(['/second', '/shape'])
  })

  it('keeps each text whole, and reads it the same before and after older entries go', () => {
    const journal = new Journal(50)
    const shape = new Polled('/shape')
    const text = (k: number) => `${k} é€😀 ${'<&>'.repeat(k * 7)}`
    for (let k = 0; k < 120; k++) journal.addShared(shape, k, k, k, k % 7 === 0 ? undefined : { url: `/t${k}`, answer: Buffer.from(k % 11 === 0 ? '' : text(k)), bytes: 10 })
    const read = journal.entries()
    expect(read.map((e) => e.id)).toEqual(Array.from({ length: 50 }, (_, i) => 71 + i))
    for (const e of read) {
      const k = e.id - 1
      expect(e.callKey).toBe(k % 7 === 0 ? '/shape' : k % 11 === 0 ? '' : text(k))
    }
    // Read entries keep their text; their bytes leave the ring with them, oldest first.
    for (let k = 120; k < 200; k++) journal.addShared(shape, k, k, k, { url: `/t${k}`, answer: Buffer.from(text(k % 40)), bytes: 10 })
    expect(journal.entries().map((e) => e.callKey)).toEqual(Array.from({ length: 50 }, (_, i) => text((150 + i) % 40)))
    journal.clear()
    journal.addShared(shape, 1, 1, 1, { url: '/again', answer: Buffer.from('again'), bytes: 10 })
    expect(journal.entries().map((e) => e.callKey)).toEqual(['again'])
  })

  it('drops its oldest entries when their texts fill the most its bytes bound lets the ring hold', () => {
    // A bound of 200 KiB lets the ring grow to 300 KiB (1.5 times): some 153 texts of 2,000
    // bytes, where the charges alone (110 bytes an entry) would keep all 200.
    const journal = new Journal(1000, 200 * 1024)
    const shape = new Polled('/shape')
    const text = (k: number) => `${String(k).padStart(3, '0')}:${'é'.repeat(998)}`
    for (let k = 0; k < 200; k++) journal.addShared(shape, k, k, k, { url: `/t${k}`, answer: Buffer.from(text(k)), bytes: 10 })
    const kept = journal.entries()
    expect(kept.length).toBeGreaterThanOrEqual(150)
    expect(kept.length).toBeLessThanOrEqual(153)
    expect(journal.dropped).toBe(200 - kept.length)
    for (const e of kept) expect(e.callKey).toBe(text(e.id - 1))
  })

  it('keeps a text longer than its ring can ever hold as it is', () => {
    // A bound of 1 KB: the ring holds 256 KiB at most.
    const journal = new Journal(10, 1000)
    const shape = new Polled('/shape', 0, 1)
    const long = 'z'.repeat(300 * 1024)
    journal.addShared(shape, 1, 1, 1, { url: '/long', answer: Buffer.from(long), bytes: 10 })
    journal.addShared(shape, 2, 2, 2, { url: '/short', answer: Buffer.from('short'), bytes: 10 })
    expect(journal.entries().map((e) => e.callKey)).toEqual([long, 'short'])
  })

  it('charges each request its own bytes over the shared entry bytes', () => {
    const journal = new Journal(10, 10_000)
    const shape = new Polled('/shape', 1000, 100)
    journal.addShared(shape, 1, 1, 1, { url: '/a', answer: Buffer.from('a'), bytes: 400 })
    journal.addShared(shape, 1, 1, 1, { url: '/b', answer: Buffer.from('b'), bytes: 40 })
    expect(journal.bytes).toBe(1000 + 100 + 400 + 100 + 40)
    journal.entries()
    expect(journal.bytes).toBe(100 + 400 + 100 + 40)
  })
})

describe('the journal in bytes', () => {
  it('drops the oldest entries while the bytes would pass its limit, and counts them', () => {
    const journal = new Journal(100, 1000)
    for (let k = 0; k < 5; k++) journal.add(entry(`/e${k}`), 300)
    expect(journal.entries().map((e) => e.path)).toEqual(['/e2', '/e3', '/e4'])
    expect(journal.bytes).toBe(900)
    expect(journal.dropped).toBe(2)
    journal.addLazy('/big', (path, id) => ({ ...entry(path), id }), 700)
    expect(journal.entries().map((e) => e.path)).toEqual(['/e4', '/big'])
    expect(journal.bytes).toBe(1000)
  })

  it('keeps the newest entry even when it alone is over the limit', () => {
    const journal = new Journal(10, 1000)
    journal.add(entry('/a'), 100)
    journal.add(entry('/huge'), 5000)
    expect(journal.entries().map((e) => e.path)).toEqual(['/huge'])
    expect(journal.bytes).toBe(5000)
  })

  it('charges shared facts once while entries hold them, and gives them back with the last', () => {
    const journal = new Journal(3, 10_000)
    const polled = new Polled('/shared', 1000, 100)
    journal.addShared(polled, 1, 1, 1)
    journal.addShared(polled, 1, 1, 1)
    expect(journal.bytes).toBe(1000 + 2 * 100)
    journal.add(entry('/a'), 50)
    // The ring is full: the first shared entry goes, the facts stay for the second.
    journal.add(entry('/b'), 50)
    expect(journal.bytes).toBe(1000 + 100 + 2 * 50)
    journal.add(entry('/c'), 50)
    expect(journal.bytes).toBe(3 * 50)
    expect(polled.holders).toBe(0)
  })

  it('does not drop shared facts to make room for another entry sharing them', () => {
    const journal = new Journal(2, 1250)
    const polled = new Polled('/shared', 1000, 100)
    for (let k = 0; k < 5; k++) journal.addShared(polled, k, k, k)
    expect(journal.bytes).toBe(1000 + 2 * 100)
    expect(journal.size).toBe(2)
    expect(polled.holders).toBe(2)
  })

  it('keeps the charge of an entry built from shared facts, without the facts', () => {
    const journal = new Journal(10, 10_000)
    const polled = new Polled('/shared', 1000, 100)
    journal.addShared(polled, 1, 1, 1)
    journal.addShared(polled, 1, 1, 1)
    journal.entries()
    expect(journal.bytes).toBe(2 * 100)
    expect(polled.holders).toBe(0)
  })

  it('gives back every charge on clear', () => {
    const journal = new Journal(10, 10_000)
    const polled = new Polled('/shared', 1000, 100)
    journal.addShared(polled, 1, 1, 1)
    journal.add(entry('/a'), 300)
    journal.addLazy('/lazy', (path, id) => ({ ...entry(path), id }), 200)
    journal.clear()
    expect(journal.bytes).toBe(0)
    expect(polled.holders).toBe(0)
    journal.addShared(polled, 1, 1, 1)
    expect(journal.bytes).toBe(1100)
  })
})
