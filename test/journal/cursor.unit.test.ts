/** The journal's cursor: a reader that sends back `lastId` as `after` reads only newer entries. */
import { describe, expect, it } from 'vitest'
import { Journal, SharedFacts, type JournalEntry, type OwnNumbers } from '../../src/journal/journal.js'

function entry(path: string, operation = 'agentinfo', status = 200): Omit<JournalEntry, 'id'> {
  return {
    time: '2026-01-01T00:00:00.000Z',
    wallMs: 1,
    virtualTime: '2026-01-01T00:00:00.000Z',
    operation,
    method: 'GET',
    path,
    query: {},
    format: 'json',
    status,
    durationMs: 0.5,
    errorCodes: [],
    partialErrors: [],
    agentStates: [],
    violations: [],
    rejected: false,
    callKey: path
  }
}

class Polled extends SharedFacts {
  readonly bytes = 0
  readonly entryBytes = 100
  entry(own: OwnNumbers): JournalEntry {
    return { ...entry('/polled'), id: own.id }
  }
}

const ids = (entries: JournalEntry[]) => entries.map((e) => e.id)

describe('the journal cursor', () => {
  it('returns only the entries after the cursor, and lastId as the next cursor', () => {
    const journal = new Journal(10)
    expect(journal.lastId).toBe(0)
    for (let k = 0; k < 4; k++) journal.add(entry(`/a${k}`))
    expect(journal.lastId).toBe(4)
    expect(ids(journal.query({ after: 2 }))).toEqual([3, 4])
    expect(ids(journal.query({ after: 4 }))).toEqual([])
    expect(ids(journal.query({ after: 0 }))).toEqual([1, 2, 3, 4])
  })

  it('counts ids on across a wrapped ring, shared entries and a clear', () => {
    const journal = new Journal(3)
    const shared = new Polled()
    for (let k = 0; k < 5; k++) journal.add(entry(`/a${k}`))
    journal.addShared(shared, 1, 2, 3)
    journal.addShared(shared, 1, 2, 3)
    // Entries 5 to 7 are stored; a cursor older than the oldest reads all of them.
    expect(ids(journal.query({ after: 1 }))).toEqual([5, 6, 7])
    expect(ids(journal.query({ after: 6 }))).toEqual([7])
    journal.clear()
    journal.add(entry('/b'))
    expect(ids(journal.query({ after: 7 }))).toEqual([8])
    expect(journal.lastId).toBe(8)
  })

  it('filters what is after the cursor by operation and status', () => {
    const journal = new Journal(10)
    journal.add(entry('/1', 'agentinfo', 200))
    journal.add(entry('/2', 'appinfo', 503))
    journal.add(entry('/3', 'agentinfo', 404))
    journal.add(entry('/4', 'agentinfo', 500))
    expect(ids(journal.query({ after: 1, operations: ['agentinfo'], status: '5xx' }))).toEqual([4])
  })

  it('finds one entry by its id while it is stored, and none once dropped', () => {
    const journal = new Journal(2)
    for (let k = 0; k < 3; k++) journal.add(entry(`/a${k}`))
    expect(journal.get(3)?.path).toBe('/a2')
    expect(journal.get(2)?.path).toBe('/a1')
    expect(journal.get(1)).toBeUndefined()
    expect(journal.get(4)).toBeUndefined()
    expect(journal.get(2.5)).toBeUndefined()
  })
})
