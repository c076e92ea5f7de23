/**
 * The request journal: one entry per request the manager facade answered, kept in a bounded
 * ring so a long-running simulator never grows without limit. The ring is bounded twice: by
 * its count of entries (`--journal-size`) and by the bytes they hold (`--journal-max-bytes`,
 * each entry charged what journal-bounds.ts says); past either, the oldest entries go first.
 * Entries hold what a client author needs to see what their client sent and got: never
 * credentials, of long text only its beginning (journal-bounds.ts), of a body its shape and
 * its first `bodyBytes` bytes (kept-body.ts).
 */
import type { BodyShape, JournalEntry } from './entry.js'
import { DEFAULT_BODY_BYTES, ENTRY_BYTES, measureShape } from './journal-bounds.js'
import { NO_ROOM, TextRing } from './text-ring.js'

export type { BodyShape, JournalEntry, JournalViolation, KeptBody, PartialError, Truncated } from './entry.js'

/** The ring's bounds when none are given: the defaults of --journal-size, --journal-max-bytes and --journal-body-bytes. */
export const JOURNAL_DEFAULTS = Object.freeze({ size: 10_000, maxBytes: 32 * 1024 * 1024, bodyBytes: DEFAULT_BODY_BYTES })

export interface JournalFilter {
  /** operation names; an entry matches any of them */
  operations?: readonly string[]
  /** exact status (`503`) or class (`5xx`) */
  status?: string
  /** only entries that arrived at or after this wall time (epoch ms) */
  since?: number
  /** only entries with a greater id: a reader's cursor, its last `lastId` (reads nothing older) */
  after?: number
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
  /** the request's own URL and answer text, where it was given them (OwnText) */
  url?: string
  text?: string
}

/**
 * A request's own URL and answer, for requests that share the rest (SharedFacts): the fast
 * path's answers built for one request, whose headers and format are those of many. The URL goes
 * in a column of references, and the text as its bytes in a ring (TextRing), so the journal holds
 * no object of the request's own but the URL the server made for it.
 */
export interface OwnText {
  url: string
  /** the answer as the UTF-8 bytes it was sent as (copied into the ring) */
  answer: Uint8Array
  /** what the entry holds of them once read: its charge, over the shared facts' entryBytes */
  bytes: number
}

/**
 * Facts many requests share, all but their timings: the fast path's answers to a client
 * asking for the same agent again and again. The journal keeps a reference to the shared
 * object and each request's own numbers in columns, so such a request allocates nothing here
 * (an object per request lives as long as the journal keeps it, so young-generation GCs copy
 * it until it is dropped).
 *
 * Bytes: each entry is charged `entryBytes` (what its entry holds once read), and the shared
 * object its `bytes` once, while any entry of the journal holds it. Shared facts belong to
 * one journal (`holders` is that journal's count).
 */
export abstract class SharedFacts {
  /** what the shared object holds (charged once however many entries share it) */
  abstract readonly bytes: number
  /** what the entry of one request sharing it holds once read */
  abstract readonly entryBytes: number
  /** entries of the journal that share these facts (the journal's bookkeeping) */
  holders = 0
  /** The entry of one of the requests, given its own numbers. */
  abstract entry(own: OwnNumbers): JournalEntry
}

/** Numbers per slot in Journal.own: durationMs, wallMs, virtualMs. */
const OWN_NUMBERS = 3

/** A slot's own text (Journal.ownText): none, or the empty text, which is not put in the ring. */
const NO_TEXT = -1
const EMPTY_TEXT = -2

/**
 * The bytes the own texts' ring grows to at most: what the byte bound lets the texts be charged
 * (two a character, OwnText.bytes) at three UTF-8 bytes a character, so that the ring never
 * drops an entry the bound would keep; without a bound, 64 KiB an entry. At least 256 KiB.
 */
function ringBytesFor(capacity: number, maxBytes: number): number {
  const bound = Number.isFinite(maxBytes) ? 1.5 * maxBytes : capacity * 64 * 1024
  return Math.floor(Math.min(2 ** 30, Math.max(256 * 1024, bound)))
}

export class Journal {
  private readonly ring: Array<JournalEntry | LazyEntry | SharedFacts | undefined>
  /** the own numbers of SharedFacts entries, OWN_NUMBERS per slot (allocated on first use) */
  private own: Float64Array | undefined
  /** the own URL of SharedFacts entries given an OwnText (allocated on first use) */
  private ownUrls: Array<string | undefined> | undefined
  /** each slot's own text: its number in `texts`, or NO_TEXT, or EMPTY_TEXT (allocated on first use) */
  private ownText: Float64Array | undefined
  /** the own texts' bytes, dropped with their entries (allocated on first use) */
  private texts: TextRing | undefined
  /** own texts longer than the ring holds at most, kept as they are (a journal bounded to less than a text) */
  private longTexts: Array<string | undefined> | undefined
  /** what each slot's entry is charged (see SharedFacts for the shared part) */
  private readonly charges: Float64Array
  /** where the next entry goes */
  private next = 0
  private stored = 0
  private nextId = 1
  /** what the stored entries are charged together, shared objects included */
  private held = 0
  /** entries pushed out of the ring since the last clear */
  dropped = 0

  constructor(
    readonly capacity: number,
    /**
     * the bytes entries may hold together; the newest entry is kept even if it alone holds
     * more. Unbounded unless given: createHarness gives --journal-max-bytes (or its default).
     */
    readonly maxBytes = Number.POSITIVE_INFINITY,
    /**
     * how many bytes of each request and answer body the entries keep (0: none). The journal
     * does not cut them itself: whoever adds an entry (recorder.ts, the fast path) does, and
     * charges the entry for them.
     */
    readonly bodyBytes = JOURNAL_DEFAULTS.bodyBytes
  ) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`journal capacity must be a non-negative integer, got ${capacity}`)
    if (!(maxBytes > 0)) throw new RangeError(`journal byte limit must be positive, got ${maxBytes}`)
    if (!Number.isInteger(bodyBytes) || bodyBytes < 0) throw new RangeError(`journal body bytes must be a non-negative integer, got ${bodyBytes}`)
    this.ring = new Array(capacity)
    this.charges = new Float64Array(capacity)
  }

  get enabled(): boolean {
    return this.capacity > 0
  }

  get size(): number {
    return this.stored
  }

  /** The id of the newest request recorded (0 before the first): a cursor for `after`. Survives clearing. */
  get lastId(): number {
    return this.nextId - 1
  }

  /** The bytes the stored entries are charged together (at most maxBytes, bar one entry). */
  get bytes(): number {
    return this.held
  }

  /** Assigns the id and stores the entry, charged `bytes`; see `place` for what is dropped. */
  add(entry: Omit<JournalEntry, 'id'>, bytes = ENTRY_BYTES): JournalEntry {
    const stored = { id: this.nextId++, ...entry }
    if (this.capacity === 0) return stored
    this.ring[this.place(bytes)] = stored
    return stored
  }

  /**
   * Stores an entry built on first read by `build(facts, id)`, from facts captured when the
   * request was answered (a function of its own, not a closure per request), charged `bytes`
   * (what the facts and the entry hold). Returns the id.
   */
  addLazy<T>(facts: T, build: (facts: T, id: number) => JournalEntry, bytes: number): number {
    const id = this.nextId++
    if (this.capacity === 0) return id
    const at = this.place(bytes)
    this.ring[at] = new LazyEntry<unknown>(id, facts, build as (facts: unknown, id: number) => JournalEntry)
    return id
  }

  /**
   * Stores a request that shares its facts with others; its own numbers go in columns, and so
   * do its own URL and answer text if given (`own`). Returns the id.
   */
  addShared(shared: SharedFacts, durationMs: number, wallMs: number, virtualMs: number, own?: OwnText): number {
    const id = this.nextId++
    if (this.capacity === 0) return id
    // The shared object is charged with its first holder, and held before room is made, so
    // that dropping older entries sharing it cannot release it.
    if (shared.holders++ === 0) this.held += shared.bytes
    const at = this.place(shared.entryBytes + (own?.bytes ?? 0))
    this.own ??= new Float64Array(this.capacity * OWN_NUMBERS)
    this.ring[at] = shared
    this.own[at * OWN_NUMBERS] = durationMs
    this.own[at * OWN_NUMBERS + 1] = wallMs
    this.own[at * OWN_NUMBERS + 2] = virtualMs
    if (own !== undefined) {
      this.ownUrls ??= new Array<string | undefined>(this.capacity).fill(undefined)
      this.ownUrls[at] = own.url
      this.keepText(at, own.answer)
    }
    return id
  }

  /**
   * Keeps slot `at`'s own answer: in the ring, the oldest entries dropped while it does not fit
   * (the ring at its largest: a bound the entries' charges reach first, unless their texts are of
   * characters of three bytes); the empty answer as a mark; one longer than the ring holds at
   * most as its text.
   */
  private keepText(at: number, answer: Uint8Array): void {
    this.ownText ??= new Float64Array(this.capacity).fill(NO_TEXT)
    if (answer.length === 0) {
      this.ownText[at] = EMPTY_TEXT
      return
    }
    this.texts ??= new TextRing(this.capacity, ringBytesFor(this.capacity, this.maxBytes))
    const fits = this.texts.fits(answer.length)
    let n = fits ? this.texts.add(answer) : NO_ROOM
    // Never the entry being added: its slot's text is not in the ring yet.
    while (fits && n === NO_ROOM && this.stored > 1) {
      this.dropOldest()
      this.dropped++
      n = this.texts.add(answer)
    }
    if (n !== NO_ROOM) {
      this.ownText[at] = n
      return
    }
    this.longTexts ??= new Array<string | undefined>(this.capacity).fill(undefined)
    this.longTexts[at] = Buffer.from(answer.buffer, answer.byteOffset, answer.length).toString('utf8')
  }

  /** Slot `at`'s own text, if it was given one. */
  private textAt(at: number): string | undefined {
    const n = this.ownText?.[at] ?? NO_TEXT
    if (n === EMPTY_TEXT) return ''
    if (n >= 0) return (this.texts as TextRing).text(n)
    return this.longTexts?.[at]
  }

  /** Lets go of a slot's own URL and text: its bytes go from the ring when it is dropped, the oldest first. */
  private forgetOwnText(at: number, dropped: boolean): void {
    if (this.ownUrls !== undefined) this.ownUrls[at] = undefined
    if (this.longTexts !== undefined) this.longTexts[at] = undefined
    if (this.ownText === undefined) return
    if (dropped && this.ownText[at] >= 0) (this.texts as TextRing).dropOldest()
    if (dropped || this.ownText[at] < 0) this.ownText[at] = NO_TEXT
  }

  /**
   * The slot for a new entry charged `bytes`: drops the oldest entries while the ring is full
   * or the bytes would pass maxBytes (each counted in `dropped`), then charges the slot. Each
   * entry is dropped once, so an add costs O(1) amortised.
   */
  private place(bytes: number): number {
    while (this.stored > 0 && (this.stored === this.capacity || this.held + bytes > this.maxBytes)) {
      this.dropOldest()
      this.dropped++
    }
    const at = this.next
    this.charges[at] = bytes
    this.held += bytes
    this.stored++
    this.next = (at + 1) % this.capacity
    return at
  }

  /** Empties the oldest slot and takes back its charge (and a shared object's, with its last holder). */
  private dropOldest(): void {
    const at = (this.next - this.stored + this.capacity) % this.capacity
    this.stored--
    this.held -= this.charges[at]
    this.charges[at] = 0
    const slot = this.ring[at]
    if (slot instanceof SharedFacts) this.unshare(slot)
    // Read into its entry or not, a slot's text is in the ring until the slot is dropped.
    this.forgetOwnText(at, true)
    this.ring[at] = undefined
  }

  private unshare(shared: SharedFacts): void {
    if (--shared.holders === 0) this.held -= shared.bytes
  }

  /** Every stored entry with an id above `afterId`, oldest first. */
  entries(afterId = 0): JournalEntry[] {
    const out: JournalEntry[] = []
    // Ids run on from the oldest entry's (see entryAt), so the entries after the cursor are the
    // newest ones: a reader polling with its cursor touches only what is new.
    const skip = Math.min(this.stored, Math.max(0, afterId - (this.nextId - this.stored) + 1))
    for (let i = skip; i < this.stored; i++) out.push(this.entryAt(i))
    return out
  }

  /** The stored entry with this id, or undefined when it was never recorded or has been dropped. */
  get(id: number): JournalEntry | undefined {
    const i = id - (this.nextId - this.stored)
    return Number.isInteger(i) && i >= 0 && i < this.stored ? this.entryAt(i) : undefined
  }

  /** The i-th stored entry, oldest first (0 ≤ i < stored). */
  private entryAt(i: number): JournalEntry {
    const start = (this.next - this.stored + this.capacity) % this.capacity
    const at = (start + i) % this.capacity
    const slot = this.ring[at] as JournalEntry | LazyEntry | SharedFacts
    // Built once: later reads see the very same object. Its charge stays: it was charged
    // for what the built entry holds (a shared object is released with its last holder).
    // Every add takes the next id and the next slot, so ids run on from the oldest entry's.
    const id = this.nextId - this.stored + i
    let entry: JournalEntry
    if (slot instanceof LazyEntry) entry = slot.build(slot.facts, slot.id)
    else if (slot instanceof SharedFacts) {
      entry = this.buildShared(slot, at, id)
      this.unshare(slot)
      this.forgetOwnText(at, false)
    } else entry = slot
    this.ring[at] = entry
    return entry
  }

  query(filter: JournalFilter = {}): JournalEntry[] {
    const status = statusMatcher(filter.status)
    const operations = filter.operations !== undefined && filter.operations.length > 0 ? new Set(filter.operations) : undefined
    const matching = this.entries(filter.after).filter(
      (entry) =>
        (operations === undefined || operations.has(entry.operation)) &&
        status(entry.status) &&
        (filter.since === undefined || entry.wallMs >= filter.since)
    )
    return filter.limit === undefined ? matching : matching.slice(Math.max(0, matching.length - filter.limit))
  }

  private buildShared(shared: SharedFacts, at: number, id: number): JournalEntry {
    const own = this.own as Float64Array
    const url = this.ownUrls?.[at]
    const text = this.textAt(at)
    const numbers = { id, durationMs: own[at * OWN_NUMBERS], wallMs: own[at * OWN_NUMBERS + 1], virtualMs: own[at * OWN_NUMBERS + 2], ...(url === undefined ? {} : { url }), ...(text === undefined ? {} : { text }) }
    return shared.entry(numbers)
  }

  clear(): void {
    while (this.stored > 0) this.dropOldest()
    this.next = 0
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

/** A body's shape: `{name: 'string', 'global-config': {port: 'number'}}`; bounded as journal-bounds.ts says. */
export function shapeOf(value: unknown): BodyShape {
  return measureShape(value).shape
}
