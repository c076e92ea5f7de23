/**
 * The `journal` topic of the console stream (stream.ts): the requests the journal recorded
 * since a client's last event, in brief (what the Traffic page's list shows; the page asks for
 * an entry in full, bodies included, when it is opened: GET /__admin/requests/<id>).
 *
 * A client starts at the journal's newest entry: its first event (sent as it connects) carries
 * only `lastId`, so the page can load what came before with GET /__admin/requests and lose
 * nothing in between. Each later event carries the entries after the client's position, at most
 * MAX_ENTRIES_PER_EVENT of the newest ones (`skipped` counts the others), so a client flooding
 * the simulator with requests cannot flood the page: reading what is new costs only what is new
 * (Journal.entries from a cursor), and nothing at all on a tick without requests.
 */
import type { Journal, JournalEntry } from '../journal/journal.js'
import type { StreamTopic } from './stream.js'

/** Entries one event carries at most: four events a second, so a few hundred rows a second. */
export const MAX_ENTRIES_PER_EVENT = 100

/** One request as the list shows it. */
export interface JournalLine {
  id: number
  /** wall time, ISO 8601 */
  time: string
  virtualTime: string
  method: string
  operation: string
  path: string
  status: number
  durationMs: number
  fault: string | null
  errorCodes: string[]
  violations: number
  rejected: boolean
}

export interface JournalEvent {
  /** the newest entry's id: the client's position after this event */
  lastId: number
  entries: JournalLine[]
  /** entries after the previous position left out of this event (more than MAX_ENTRIES_PER_EVENT came) */
  skipped: number
}

export function journalLine(entry: JournalEntry): JournalLine {
  return {
    id: entry.id,
    time: entry.time,
    virtualTime: entry.virtualTime,
    method: entry.method,
    operation: entry.operation,
    path: entry.path,
    status: entry.status,
    durationMs: entry.durationMs,
    fault: entry.fault ?? null,
    errorCodes: entry.errorCodes,
    violations: entry.violations.length,
    rejected: entry.rejected
  }
}

export function journalTopic(journal: Journal): StreamTopic {
  return {
    event: 'journal',
    subscribe() {
      let position: number | undefined
      return (): JournalEvent | undefined => {
        const lastId = journal.lastId
        if (position === undefined) {
          position = lastId
          return { lastId, entries: [], skipped: 0 }
        }
        if (lastId === position) return undefined
        const from = Math.max(position, lastId - MAX_ENTRIES_PER_EVENT)
        // Entries between the position and `from` are skipped; of those after it, some may have
        // been dropped from the ring already (a small --journal-size): they count as skipped too.
        const entries = journal.entries(from).map(journalLine)
        const skipped = lastId - position - entries.length
        position = lastId
        return { lastId, entries, skipped }
      }
    }
  }
}
