/**
 * Finished answers about a few agents by name (agentinfo?agentname=…) and lists of agents (by
 * state, or all of them), kept and sent again while nothing they show can have changed. A client
 * polling the same agents gets the same bytes it would get by building the answer anew, for a
 * lookup and a few integer comparisons (a pass over every agent's revision for a list).
 *
 * An answer is a function of the request (path and query, format, protocol and Host header)
 * and of the fleet, which says when that may have changed (Fleet.revision, agentRevision):
 * every step round, every main-thread change, every write to one of the agents. An answer is
 * kept only if the stamps read before it was built are still the same after, so it shows one
 * consistent state of the fleet. At speed 1 a kept answer lives at most a virtual second.
 *
 * An answer by name is kept the second time its URL is asked for (keepAskedAgain), as a caching
 * proxy admits a URL only after a minimum number of uses: a client asking for 2,000 agents in
 * turn would otherwise have every answer kept, then pushed out unused by the ones after it.
 */
import type { Fleet } from '../fleet/fleet-api.js'
import type { SharedFacts } from '../journal/journal.js'
import type { Format } from '../protocol/negotiation.js'
import type { ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import { SharedList, type StatedChunks } from './shared-list.js'
import { ListBodies } from './list-bodies.js'
import { AskedOnce } from './asked-once.js'

/** A kept answer: its text, the same as UTF-8 bytes, and the request path and query it answers. */
export interface KeptAnswer {
  readonly text: string
  /** what the fast path writes, encoded when first sent again, so no answer is encoded per request */
  readonly body: Buffer
  url: string
  /**
   * Its length, in characters of its text, or in bytes for one made as bytes (ListAnswer): what
   * the cache charges it (twice: the text and the bytes).
   */
  readonly size: number
  /** the fast path's journal facts for the requests it sent this to (see fast-path.ts) */
  journalFacts?: SharedFacts
  /** `body` is being written to `response` (a kept list's memory is not written over before it has finished: ListAnswer) */
  sendingTo?(response: ServerResponse): void
  /** the cache no longer keeps it */
  dropped?(): void
}

/**
 * An answer made as text (a list made whole) and kept (AnswerCache.keep): its bytes are made on
 * the first request that is sent it again, not when it is kept.
 */
export class Answer implements KeptAnswer {
  private bytes: Buffer | undefined
  journalFacts?: SharedFacts

  constructor(
    readonly text: string,
    readonly url: string
  ) {}

  get body(): Buffer {
    this.bytes ??= Buffer.from(this.text)
    return this.bytes
  }

  get size(): number {
    return this.text.length
  }
}

/**
 * An answer made as bytes (an answer by name: routes/agentinfo.ts, keepByName), sent as those
 * bytes; its text is decoded only if something asks for it (the journal keeps a copy of the
 * bytes, journal/text-ring.ts).
 */
export class BytesAnswer implements KeptAnswer {
  private decoded: string | undefined
  private bytes: Buffer
  journalFacts?: SharedFacts

  constructor(
    body: Buffer,
    public url: string
  ) {
    this.bytes = body
  }

  get body(): Buffer {
    return this.bytes
  }

  /** Takes a copy of its bytes, in memory of its own: `body` may be a part of a larger buffer, which would be held as long as the answer. */
  ownBytes(): void {
    this.bytes = Buffer.from(this.bytes)
  }

  get text(): string {
    this.decoded ??= this.body.toString('utf8')
    return this.decoded
  }

  /** Its length in bytes: what the cache charges it for (twice). */
  get size(): number {
    return this.body.length
  }
}

/**
 * A list kept as the bytes it was streamed as (routes/agentinfo.ts): a list is made as bytes
 * (list-bytes.ts), and kept once made if the fleet held still meanwhile. It is sent again as
 * those bytes; its text is decoded only if something asks for it (the journal's facts of the
 * list are noted as it is written, journal/answer.ts statedBytes).
 *
 * Its bytes are the start of `memory` (ListBodies), given back once the cache dropped it and
 * every response they were written to finished, as SharedList recycles its slabs. A response
 * that never finishes (its client went away) may have left them in its socket's queue: then the
 * memory is never given back, and is left to the GC.
 */
export class ListAnswer implements KeptAnswer {
  private decoded: string | undefined
  journalFacts?: SharedFacts
  /** responses being written the bytes that have not finished */
  private writing = 0
  private kept = true
  private givenBack = false

  constructor(
    readonly body: Buffer,
    readonly url: string,
    private readonly memory?: { bytes: Buffer; bodies: ListBodies }
  ) {}

  get text(): string {
    this.decoded ??= this.body.toString()
    return this.decoded
  }

  get size(): number {
    return this.body.length
  }

  sendingTo(response: ServerResponse): void {
    this.writing++
    response.once('finish', () => {
      this.writing--
      this.giveBackIfUnused()
    })
  }

  dropped(): void {
    this.kept = false
    this.giveBackIfUnused()
  }

  private giveBackIfUnused(): void {
    if (this.kept || this.writing > 0 || this.givenBack || this.memory === undefined) return
    this.givenBack = true
    this.memory.bodies.giveBack(this.memory.bytes)
  }
}

/** What the stamps were before the answer was built. */
export interface AnswerStamp {
  revision: number
  /** the agents an answer by name shows, and their revisions */
  indices: readonly number[]
  agentRevisions: number[]
  /** a list's: Fleet.fleetRevision(), as any agent may join or leave it */
  fleetRevision?: number
}

interface Entry {
  format: Format
  encrypted: boolean
  host: string | undefined
  answer: KeptAnswer
  stamp: AnswerStamp
}

/** Answers about more agents than this by name are not kept (checking them would cost more). */
export const MAX_KEPT_AGENTS = 16
/**
 * Lists of more agents than this are not kept: a kept list is checked with a pass over every
 * agent's revision, and it is held whole until every request for it has it sent, kept or not
 * (SharedList, routes/agentinfo.ts).
 */
export const MAX_KEPT_LIST_AGENTS = 20_000
/**
 * Bytes the kept answers may hold together (--kept-answers-max-bytes); the oldest paths' answers
 * go first past it. Each is charged twice its length: its text (a byte a character for the
 * ASCII the answers mostly are) and the bytes made when it is sent again. Lists are what fill
 * it: 10,000 agents are about 7 MB of JSON, charged 14 MB.
 */
export const DEFAULT_KEPT_BYTES = 32 * 1024 * 1024
/** Answers kept; past it the answers of the oldest path are dropped. */
export const DEFAULT_KEPT_ANSWERS = 1024
/** Answers kept per path and query (the formats, protocols and Host headers it came with). */
export const MAX_VARIANTS = 8

/** A request as the answers being made are keyed: format, protocol, Host, path and query. */
function requestKey(url: string, format: Format, encrypted: boolean, host: string | undefined): string {
  return `${format} ${encrypted ? 'https' : 'http'} ${host ?? ''} ${url}`
}

/**
 * Lists made in a row while the fleet held still before short lists (routes/agentinfo.ts) are
 * made whole to be kept again (listsWorthKeeping). One was enough, but at speed 600, as lists got
 * faster to make, one now and then fell between two step rounds, and the list after it was made
 * as text and kept, at more CPU than one sent as it is written, only to be stale by the next
 * request (bench/README.md, "Lists kept again after two made while the fleet held still"). At
 * speed 1 a round comes once a second and nearly every list holds still.
 */
const STILL_LISTS = 2

/**
 * Kept answers by path and query, then by what else an answer depends on besides the fleet:
 * the format and the link base (protocol and Host header). Looked up in that order, a request
 * costs a lookup of the URL string the parser made and a few comparisons rather than a key
 * string built for it, which was the largest part of the fast path's own cost in a profile.
 */
export class AnswerCache {
  private readonly byUrl = new Map<string, Entry[]>()
  private count = 0
  /** URLs answered by name once and not kept yet, among the last `capacity` noted (keepAskedAgain) */
  private readonly askedOnce: AskedOnce
  /** answers being made for a request, by request (format, protocol, Host, path and query) */
  private readonly making = new Map<string, Promise<string>>()
  /** lists being streamed (sharedList), by request as `making` */
  private readonly streaming = new Map<string, SharedList>()
  /** what the kept answers are charged together (twice their text's length) */
  private bytes = 0
  private hitCount = 0
  private joinCount = 0
  /** lists made in a row while the fleet held still (listMade), up to STILL_LISTS; lists are kept from the start */
  private stillLists = STILL_LISTS
  /** memory kept lists are joined into, used again once a list no longer needs it: as much again as the kept answers may hold at most */
  private readonly bodies: ListBodies

  constructor(
    private readonly fleet: Pick<Fleet, 'revision' | 'agentRevision' | 'fleetRevision' | 'holdRounds'>,
    private readonly capacity = DEFAULT_KEPT_ANSWERS,
    private readonly maxBytes = DEFAULT_KEPT_BYTES
  ) {
    this.bodies = new ListBodies(maxBytes)
    this.askedOnce = new AskedOnce(capacity)
  }

  /** The kept answer for this request, if nothing it shows has changed since. */
  get(url: string, format: Format, encrypted: boolean, host: string | undefined): KeptAnswer | undefined {
    const entries = this.byUrl.get(url)
    if (entries === undefined) return undefined
    for (let k = 0; k < entries.length; k++) {
      const entry = entries[k]
      if (entry.format !== format || entry.encrypted !== encrypted || entry.host !== host) continue
      if (this.unchanged(entry.stamp)) {
        this.hitCount++
        return entry.answer
      }
      this.remove(url, entries, k)
      // Asked for again since it was kept: its next answer is kept at once (keepAskedAgain).
      this.askedOnce.note(url)
      return undefined
    }
    return undefined
  }

  /**
   * The stamp to keep an answer about these agents under, read before they are; undefined
   * when it must not be kept (a change is under way, or too many agents).
   */
  stamp(indices: readonly number[]): AnswerStamp | undefined {
    if (indices.length > MAX_KEPT_AGENTS) return undefined
    const revision = this.fleet.revision()
    if ((revision & 1) === 1) return undefined
    const agentRevisions: number[] = []
    for (const index of indices) {
      const agentRevision = this.fleet.agentRevision(index)
      if ((agentRevision & 1) === 1) return undefined
      agentRevisions.push(agentRevision)
    }
    return { revision, indices, agentRevisions }
  }

  /** Whether a list of this weight (its agents, weighed more with modules: routes/agentinfo.ts) may be kept at all: not too long, and kept answers not turned off. */
  keepsList(agents: number): boolean {
    return agents <= MAX_KEPT_LIST_AGENTS && this.maxBytes > 0
  }

  /**
   * The stamp to keep a list under (agents chosen by state, or all of them), read before it is
   * built; undefined when it must not be kept (a change or a step round's write under way, or
   * more agents than MAX_KEPT_LIST_AGENTS).
   */
  stampList(agents: number): AnswerStamp | undefined {
    if (!this.keepsList(agents)) return undefined
    const revision = this.fleet.revision()
    if ((revision & 1) === 1) return undefined
    const fleetRevision = this.fleet.fleetRevision()
    if (fleetRevision === undefined) return undefined
    return { revision, indices: [], agentRevisions: [], fleetRevision }
  }

  /**
   * Whether a short list (routes/agentinfo.ts; a long one streams and is kept as its bytes) is
   * worth making whole to keep: the fleet held still while each of the last STILL_LISTS lists
   * was made. A list is sent again only if no agent moved since it was made; with the clock at
   * speed 600 the fleet steps every few tens of milliseconds, and making a list whole to keep
   * costs more than writing it as it is sent. Every list made says again whether the fleet held
   * still (listMade), so lists are made whole again once the clock slows or pauses.
   */
  get listsWorthKeeping(): boolean {
    return this.stillLists >= STILL_LISTS
  }

  /** Notes that a list was made under `stamp`, kept or streamed; true if the fleet held still meanwhile. */
  listMade(stamp: AnswerStamp): boolean {
    const still = this.unchanged(stamp)
    this.stillLists = still ? Math.min(STILL_LISTS, this.stillLists + 1) : 0
    return still
  }

  /** Keeps the answer if the stamps are still what they were before it was built; true if it did. */
  keep(url: string, format: Format, encrypted: boolean, host: string | undefined, stamp: AnswerStamp, answer: string | KeptAnswer): boolean {
    const kept = typeof answer === 'string' ? new Answer(answer, url) : answer
    if (!this.keeps(kept.size, stamp)) return false
    this.store(url, format, encrypted, host, stamp, kept)
    return true
  }

  /**
   * Keeps a list made as `chunks` (SharedList) as their bytes joined (ListAnswer), if the stamps
   * still hold and it fits the bound; returns the answer kept. The chunks are joined (a copy of
   * the whole list) only then.
   */
  keepChunks(url: string, format: Format, encrypted: boolean, host: string | undefined, stamp: AnswerStamp, chunks: readonly Buffer[]): ListAnswer | undefined {
    let bytes = 0
    for (const chunk of chunks) bytes += chunk.length
    if (!this.keeps(bytes, stamp)) return undefined
    const { body, memory } = this.bodies.join(chunks, bytes)
    const answer = new ListAnswer(body, url, { bytes: memory, bodies: this.bodies })
    this.store(url, format, encrypted, host, stamp, answer)
    return answer
  }

  /** An answer of this size (KeptAnswer.size) made under `stamp` may be kept: it fits the bound, charged twice, and nothing moved since. */
  private keeps(size: number, stamp: AnswerStamp): boolean {
    return 2 * size <= this.maxBytes && this.unchanged(stamp)
  }

  /** Adds the answer, making room for it: the same variant, the oldest variant of its path, or the oldest paths go. */
  private store(url: string, format: Format, encrypted: boolean, host: string | undefined, stamp: AnswerStamp, kept: KeptAnswer): void {
    const charge = 2 * kept.size
    const entries = this.byUrl.get(url)
    const same = entries === undefined ? -1 : entries.findIndex((e) => e.format === format && e.encrypted === encrypted && e.host === host)
    if (entries !== undefined && same !== -1) this.remove(url, entries, same)
    else if (entries !== undefined && entries.length >= MAX_VARIANTS) this.remove(url, entries, 0)
    else if (this.count >= this.capacity) this.dropOldestUrl()
    while (this.count > 0 && this.bytes + charge > this.maxBytes) this.dropOldestUrl()
    const entry = { format, encrypted, host, answer: kept, stamp }
    const list = this.byUrl.get(url)
    if (list === undefined) this.byUrl.set(url, [entry])
    else list.push(entry)
    this.count++
    this.bytes += charge
  }

  /**
   * Keeps an answer by name (keep) if its URL was asked for before and not kept then, among the
   * last `capacity` URLs noted (AskedOnce); else notes the URL. A poller's second request keeps its
   * answer and its third is sent it; URLs asked for once, or again only after more new URLs than
   * the cache holds, cost a note rather than a kept answer that would be pushed out unused.
   * A URL counts whatever format, protocol or Host it came with: it is what a client repeats.
   * `stamp` undefined: the answer is not to be kept, but the request is noted. True if it kept the answer.
   */
  keepAskedAgain(url: string, format: Format, encrypted: boolean, host: string | undefined, stamp: AnswerStamp | undefined, answer: KeptAnswer): boolean {
    if (this.maxBytes === 0) return false
    if (stamp === undefined) {
      this.askedOnce.note(url)
      return false
    }
    return this.askedOnce.askedAgain(url) && this.keep(url, format, encrypted, host, stamp, answer)
  }

  /**
   * The answer `make` makes, made once for every request that comes while it is being made:
   * two clients polling the same list at the same moment get one list made, not two (request
   * collapsing, as caching proxies do). A request that joins gets an answer begun before it
   * came, by less than one making's duration.
   */
  shared(url: string, format: Format, encrypted: boolean, host: string | undefined, make: () => Promise<string>): Promise<string> {
    const key = requestKey(url, format, encrypted, host)
    const under = this.making.get(key)
    if (under !== undefined) {
      this.joinCount++
      return under
    }
    const made = make().finally(() => this.making.delete(key))
    this.making.set(key, made)
    return made
  }

  /**
   * A body that streams the list `source` makes, made once for every request that comes while it
   * is being made (SharedList): what shared() does for lists made whole, for lists that stream.
   * `response` is where the body goes (the list's memory is recycled once every such response has
   * finished). Also the states the list showed, for the journal (request.streamedStates).
   *
   * The clock's rounds are held while the list is made (Fleet.holdRounds), and it is made once
   * the rounds in flight have ended: so it shows one state of the fleet, and is kept as its
   * chunks joined (keepChunks) if nothing else moved meanwhile. `weight`: what stampList is
   * given for it; `kept`: called with the list kept, if it is.
   */
  sharedList(
    url: string,
    format: Format,
    encrypted: boolean,
    host: string | undefined,
    response: ServerResponse,
    source: () => StatedChunks,
    weight: number,
    kept: (answer: ListAnswer) => void
  ): { body: Readable; states: () => readonly string[] } {
    const key = requestKey(url, format, encrypted, host)
    const under = this.streaming.get(key)
    if (under?.open === true) this.joinCount++
    const keepMade = (chunks: readonly Buffer[], stamp: AnswerStamp) => {
      if (!this.listMade(stamp)) return
      const answer = this.keepChunks(url, format, encrypted, host, stamp, chunks)
      if (answer !== undefined) kept(answer)
    }
    const list = under?.open === true ? under : this.startList(key, source, weight, keepMade)
    return { body: list.reader(response), states: () => list.states }
  }

  private startList(key: string, source: () => StatedChunks, weight: number, onMade: (chunks: readonly Buffer[], stamp: AnswerStamp) => void): SharedList {
    const stated = source()
    const hold = this.fleet.holdRounds()
    // Read once the rounds in flight have ended, right before the list's first agent is.
    let stamp: AnswerStamp | undefined
    const ready = hold.ready.then(() => {
      stamp = this.stampList(weight)
    })
    const list = new SharedList(
      stated,
      (chunks) => {
        if (this.streaming.get(key) === list) this.streaming.delete(key)
        try {
          if (chunks !== undefined && stamp !== undefined) onMade(chunks, stamp)
        } finally {
          // After the list is kept: a round waiting for it may start at once.
          hold.release()
        }
      },
      ready
    )
    this.streaming.set(key, list)
    return list
  }

  /** Forgets every kept answer. */
  clear(): void {
    for (const entries of this.byUrl.values()) for (const entry of entries) entry.answer.dropped?.()
    this.byUrl.clear()
    this.askedOnce.clear()
    this.count = 0
    this.bytes = 0
  }

  /** What the kept answers are charged (twice their text's length), at most the bound. */
  get keptBytes(): number {
    return this.bytes
  }

  /** Answers kept. */
  get size(): number {
    return this.count
  }

  /** Requests that got an answer another request was making (shared()), since the cache was made. */
  get joins(): number {
    return this.joinCount
  }

  /** Requests answered with a kept answer since the cache was made (a test's proof that one was sent again). */
  get hits(): number {
    return this.hitCount
  }

  private remove(url: string, entries: Entry[], k: number): void {
    const [gone] = entries.splice(k, 1)
    gone.answer.dropped?.()
    this.count--
    this.bytes -= 2 * gone.answer.size
    if (entries.length === 0) this.byUrl.delete(url)
  }

  private dropOldestUrl(): void {
    // Maps iterate in insertion order: the first path is the oldest.
    const oldest = this.byUrl.entries().next().value
    if (oldest === undefined) return
    this.byUrl.delete(oldest[0])
    this.count -= oldest[1].length
    for (const entry of oldest[1]) {
      this.bytes -= 2 * entry.answer.size
      entry.answer.dropped?.()
    }
  }

  private unchanged(stamp: AnswerStamp): boolean {
    if (this.fleet.revision() !== stamp.revision) return false
    if (stamp.fleetRevision !== undefined && this.fleet.fleetRevision() !== stamp.fleetRevision) return false
    const { indices, agentRevisions } = stamp
    for (let k = 0; k < indices.length; k++) {
      if (this.fleet.agentRevision(indices[k]) !== agentRevisions[k]) return false
    }
    return true
  }
}
