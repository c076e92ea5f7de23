/** The `journal` topic of the console stream: each client gets what is new since its last event, bounded. */
import { describe, expect, it } from 'vitest'
import { MAX_ENTRIES_PER_EVENT, journalTopic, type JournalEvent } from '../../src/console/journal-topic.js'
import { Journal, type JournalEntry } from '../../src/journal/journal.js'

function entry(k: number, status = 200): Omit<JournalEntry, 'id'> {
  return {
    time: '2026-01-01T00:00:00.000Z',
    wallMs: k,
    virtualTime: '2026-01-01T00:00:00.000Z',
    operation: 'agentinfo',
    method: 'GET',
    path: `/x/${k}`,
    query: {},
    format: 'json',
    status,
    durationMs: 1.5,
    errorCodes: [],
    partialErrors: [],
    agentStates: [],
    violations: [],
    rejected: false,
    callKey: String(k)
  }
}

describe('the journal topic', () => {
  it("starts a client at the journal's newest entry, then sends only what is new", () => {
    const journal = new Journal(50)
    journal.add(entry(1))
    const read = journalTopic(journal).subscribe()
    expect(read(0)).toEqual({ lastId: 1, entries: [], skipped: 0 })
    expect(read(1)).toBeUndefined()
    journal.add(entry(2, 503))
    const event = read(2) as JournalEvent
    expect(event).toMatchObject({ lastId: 2, skipped: 0 })
    expect(event.entries).toEqual([
      { id: 2, time: '2026-01-01T00:00:00.000Z', virtualTime: '2026-01-01T00:00:00.000Z', method: 'GET', operation: 'agentinfo', path: '/x/2', status: 503, durationMs: 1.5, fault: null, errorCodes: [], violations: 0, rejected: false }
    ])
    expect(read(3)).toBeUndefined()
  })

  it(`sends at most ${MAX_ENTRIES_PER_EVENT} entries, the newest, and counts the others as skipped`, () => {
    const journal = new Journal(1000)
    const read = journalTopic(journal).subscribe()
    read(0)
    for (let k = 0; k < MAX_ENTRIES_PER_EVENT + 30; k++) journal.add(entry(k))
    const event = read(1) as JournalEvent
    expect(event.entries).toHaveLength(MAX_ENTRIES_PER_EVENT)
    expect(event.entries[0].id).toBe(31)
    expect(event.skipped).toBe(30)
  })

  it('counts entries the ring dropped before they were sent as skipped', () => {
    const journal = new Journal(3)
    const read = journalTopic(journal).subscribe()
    read(0)
    for (let k = 0; k < 5; k++) journal.add(entry(k))
    expect(read(1)).toMatchObject({ lastId: 5, skipped: 2 })
  })

  it('keeps each client at its own position', () => {
    const journal = new Journal(10)
    const topic = journalTopic(journal)
    const early = topic.subscribe()
    early(0)
    journal.add(entry(1))
    const late = topic.subscribe()
    late(0)
    journal.add(entry(2))
    expect((early(1) as JournalEvent).entries.map((e) => e.id)).toEqual([1, 2])
    expect((late(1) as JournalEvent).entries.map((e) => e.id)).toEqual([2])
  })
})
