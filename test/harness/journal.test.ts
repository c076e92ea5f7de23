import { describe, expect, it } from 'vitest'
import { Journal, SharedFacts, type JournalEntry, type OwnNumbers } from '../../src/harness/journal.js'

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
  constructor(readonly path: string) {
    super()
  }

  entry(own: OwnNumbers): JournalEntry {
    this.builds++
    return { ...entry(this.path), id: own.id, durationMs: own.durationMs, wallMs: own.wallMs, virtualTime: new Date(own.virtualMs).toISOString() }
  }
}

describe('the journal', () => {
  it('keeps entries of every kind in arrival order, with ids counting every request', () => {
    const journal = new Journal(10)
    const polled = new Polled('/shared')
    journal.add(entry('/a'))
    journal.addShared(polled, 1.25, 1000, Date.UTC(2026, 0, 2))
    journal.addLazy('/lazy', (path, id) => ({ ...entry(path), id }))
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
