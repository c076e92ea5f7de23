/**
 * The request journal: one entry per request the manager facade answered, kept in a bounded
 * ring so a long-running simulator never grows without limit (the oldest entries go first).
 * Entries hold what a client author needs to see what their client sent and got: never
 * credentials, and of a body only its shape.
 */

/** The shape of a request body: types and keys, never values. */
export type BodyShape = string | { [key: string]: BodyShape } | [BodyShape?]

export interface JournalViolation {
  /** stable rule id, e.g. `list-repeated` (see rules.ts) */
  rule: string
  /** what exactly was wrong in this request */
  detail: string
}

/** One failed agent of a multi-agent answer's `errors`. */
export interface PartialError {
  agent: string
  /** the agent's UUID when the simulator still knows the name */
  uuid?: string
  message: string
}

export interface JournalEntry {
  /** increases by one per request, from 1; survives clearing */
  id: number
  /** wall time the request arrived, ISO 8601 */
  time: string
  /** wall time in epoch ms (for gaps between requests) */
  wallMs: number
  /** the fleet's virtual time when the request arrived, ISO 8601 */
  virtualTime: string
  /** the spec's operation name, or '' when the path names none */
  operation: string
  method: string
  /** path without the query string */
  path: string
  /** query parameters as received: every value of every key, in order */
  query: Record<string, string[]>
  body?: { contentType: string | null; bytes: number; shape: BodyShape }
  /** `.json` / `.xml` suffix of the operation name, if any */
  suffix?: 'json' | 'xml'
  accept?: string
  contentType?: string
  /** format of the answer */
  format: 'json' | 'xml'
  status: number
  /** wall ms from arrival to the answer sent */
  durationMs: number
  /** catalogue codes of a request error */
  errorCodes: string[]
  /** per-agent failures reported in `errors` of a 200 answer */
  partialErrors: PartialError[]
  /** agent states in the answer (agentinfo, viewagentortemplate) */
  agentStates: string[]
  violations: JournalViolation[]
  /** true when --strict rejected the request for a violation */
  rejected: boolean
  /** the fault injected into this answer, e.g. `error` or `latency` */
  fault?: string
  /** digest of method, operation, query and body: equal keys are the same call again */
  callKey: string
}

export interface JournalFilter {
  /** operation names; an entry matches any of them */
  operations?: readonly string[]
  /** exact status (`503`) or class (`5xx`) */
  status?: string
  /** only entries that arrived at or after this wall time (epoch ms) */
  since?: number
  /** at most this many entries: the newest ones, oldest first */
  limit?: number
}

/**
 * An entry whose fields are worked out when the journal is read: the recorder keeps a
 * request's raw facts (a few strings and numbers) and formats dates, parses the query and
 * hashes the call key only for the entries someone reads, not for every request.
 */
class LazyEntry<T = unknown> {
  constructor(
    readonly id: number,
    readonly facts: T,
    readonly build: (facts: T, id: number) => JournalEntry
  ) {}
}

/** What one request adds to facts it shares with others (SharedFacts). */
export interface OwnNumbers {
  id: number
  durationMs: number
  wallMs: number
  virtualMs: number
}

/**
 * Facts many requests share, all but their timings: the front door's answers to a client
 * asking for the same agent again and again. The journal keeps a reference to the shared
 * object and each request's own numbers in columns, so such a request allocates nothing here
 * (an object per request lives as long as the journal keeps it, so young-generation GCs copy
 * it until it is dropped).
 */
export abstract class SharedFacts {
  /** The entry of one of the requests, given its own numbers. */
  abstract entry(own: OwnNumbers): JournalEntry
}

/** Numbers per slot in Journal.own: durationMs, wallMs, virtualMs. */
const OWN_NUMBERS = 3

export class Journal {
  private readonly ring: Array<JournalEntry | LazyEntry | SharedFacts | undefined>
  /** the own numbers of SharedFacts entries, OWN_NUMBERS per slot (allocated on first use) */
  private own: Float64Array | undefined
  /** where the next entry goes */
  private next = 0
  private stored = 0
  private nextId = 1
  /** entries pushed out of the ring since the last clear */
  dropped = 0

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`journal capacity must be a non-negative integer, got ${capacity}`)
    this.ring = new Array(capacity)
  }

  get enabled(): boolean {
    return this.capacity > 0
  }

  get size(): number {
    return this.stored
  }

  /** Assigns the id and stores the entry; a full ring drops its oldest entry. */
  add(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const stored = { id: this.nextId++, ...entry }
    if (this.capacity === 0) return stored
    if (this.stored === this.capacity) this.dropped++
    else this.stored++
    this.ring[this.next] = stored
    this.next = (this.next + 1) % this.capacity
    return stored
  }

  /**
   * Stores an entry built on first read by `build(facts, id)`, from facts captured when the
   * request was answered (a function of its own, not a closure per request). Returns the id.
   */
  addLazy<T>(facts: T, build: (facts: T, id: number) => JournalEntry): number {
    const id = this.nextId++
    if (this.capacity === 0) return id
    if (this.stored === this.capacity) this.dropped++
    else this.stored++
    this.ring[this.next] = new LazyEntry<unknown>(id, facts, build as (facts: unknown, id: number) => JournalEntry)
    this.next = (this.next + 1) % this.capacity
    return id
  }

  /** Stores a request that shares its facts with others; its own numbers go in columns. Returns the id. */
  addShared(shared: SharedFacts, durationMs: number, wallMs: number, virtualMs: number): number {
    const id = this.nextId++
    if (this.capacity === 0) return id
    if (this.stored === this.capacity) this.dropped++
    else this.stored++
    const at = this.next
    this.own ??= new Float64Array(this.capacity * OWN_NUMBERS)
    this.ring[at] = shared
    this.own[at * OWN_NUMBERS] = durationMs
    this.own[at * OWN_NUMBERS + 1] = wallMs
    this.own[at * OWN_NUMBERS + 2] = virtualMs
    this.next = (at + 1) % this.capacity
    return id
  }

  /** Every stored entry, oldest first. */
  entries(): JournalEntry[] {
    const out: JournalEntry[] = []
    const start = (this.next - this.stored + this.capacity) % Math.max(1, this.capacity)
    for (let i = 0; i < this.stored; i++) {
      const at = (start + i) % this.capacity
      const slot = this.ring[at] as JournalEntry | LazyEntry | SharedFacts
      // Built once: later reads see the very same object.
      // Every add takes the next id and the next slot, so ids run on from the oldest entry's.
      const id = this.nextId - this.stored + i
      const entry = slot instanceof LazyEntry ? slot.build(slot.facts, slot.id) : slot instanceof SharedFacts ? this.buildShared(slot, at, id) : slot
      this.ring[at] = entry
      out.push(entry)
    }
    return out
  }

  query(filter: JournalFilter = {}): JournalEntry[] {
    const status = statusMatcher(filter.status)
    const operations = filter.operations !== undefined && filter.operations.length > 0 ? new Set(filter.operations) : undefined
    const matching = this.entries().filter(
      (entry) =>
        (operations === undefined || operations.has(entry.operation)) &&
        status(entry.status) &&
        (filter.since === undefined || entry.wallMs >= filter.since)
    )
    return filter.limit === undefined ? matching : matching.slice(Math.max(0, matching.length - filter.limit))
  }

  private buildShared(shared: SharedFacts, at: number, id: number): JournalEntry {
    const own = this.own as Float64Array
    const numbers = { id, durationMs: own[at * OWN_NUMBERS], wallMs: own[at * OWN_NUMBERS + 1], virtualMs: own[at * OWN_NUMBERS + 2] }
    return shared.entry(numbers)
  }

  clear(): void {
    this.ring.fill(undefined)
    this.next = 0
    this.stored = 0
    this.dropped = 0
  }
}

function statusMatcher(status: string | undefined): (value: number) => boolean {
  if (status === undefined || status === '') return () => true
  const klass = /^([1-5])xx$/i.exec(status)
  if (klass !== null) return (value) => Math.floor(value / 100) === Number(klass[1])
  const exact = Number(status)
  return (value) => value === exact
}

/** A body's shape: `{name: 'string', 'global-config': {port: 'number'}}`; arrays show their first item. */
export function shapeOf(value: unknown, depth = 0): BodyShape {
  if (value === null) return 'null'
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0], depth + 1)]
  if (typeof value === 'object') {
    // Deep bodies are summarised: the journal is for reading, not for replaying.
    if (depth >= 4) return 'object'
    const out: Record<string, BodyShape> = {}
    for (const [key, item] of Object.entries(value as Record<string, unknown>).slice(0, 50)) out[key] = shapeOf(item, depth + 1)
    return out
  }
  return typeof value
}
