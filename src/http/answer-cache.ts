/**
 * Finished answers about a few agents by name (agentinfo?agentname=…), kept and sent again
 * while nothing they show can have changed. A client polling the same agents gets the same
 * bytes it would get by building the answer anew, for a lookup and a few integer comparisons.
 *
 * An answer is a function of the request (format, protocol, host, path and query: the key)
 * and of the fleet, which says when that may have changed (Fleet.revision, agentRevision):
 * every step round, every main-thread change, every write to one of the agents. An answer is
 * kept only if the stamps read before it was built are still the same after, so it shows one
 * consistent state of the fleet. At speed 1 a kept answer lives at most a virtual second.
 */
import type { Fleet } from '../fleet/fleet-api.js'
import type { SharedFacts } from '../harness/journal.js'
import type { Format } from './negotiation.js'

/** A kept answer: its text, the same as UTF-8 bytes, and the request path and query it answers. */
export interface KeptAnswer {
  text: string
  /** what the front door writes, so no answer is encoded again per request */
  body: Buffer
  url: string
  /** the front door's journal facts for the requests it sent this to (see front-door.ts) */
  journalFacts?: SharedFacts
}

/** What the stamps were before the answer was built. */
export interface AnswerStamp {
  revision: number
  indices: readonly number[]
  agentRevisions: number[]
}

interface Entry {
  answer: KeptAnswer
  stamp: AnswerStamp
}

/** Answers about more agents than this are not kept (checking them would cost more). */
export const MAX_KEPT_AGENTS = 16
/** Distinct requests kept; past it the oldest is dropped. */
export const DEFAULT_KEPT_ANSWERS = 1024

/**
 * Everything an answer depends on besides the fleet: the format, the link base (protocol and
 * Host header) and the path with its query.
 */
export function answerKey(format: Format, encrypted: boolean, host: string | undefined, url: string): string {
  return `${format} ${encrypted ? 'https' : 'http'}://${host}${url}`
}

export class AnswerCache {
  private readonly entries = new Map<string, Entry>()

  constructor(
    private readonly fleet: Pick<Fleet, 'revision' | 'agentRevision'>,
    private readonly capacity = DEFAULT_KEPT_ANSWERS
  ) {}

  /** The kept answer for this key, if nothing it shows has changed since. */
  get(key: string): KeptAnswer | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (this.unchanged(entry.stamp)) return entry.answer
    this.entries.delete(key)
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

  /** Keeps the answer if the stamps are still what they were before it was built. */
  keep(key: string, stamp: AnswerStamp, text: string, url: string): void {
    if (!this.unchanged(stamp)) return
    if (this.entries.size >= this.capacity && !this.entries.has(key)) {
      // Maps iterate in insertion order: the first key is the oldest.
      this.entries.delete(this.entries.keys().next().value as string)
    }
    this.entries.set(key, { answer: { text, body: Buffer.from(text), url }, stamp })
  }

  get size(): number {
    return this.entries.size
  }

  private unchanged(stamp: AnswerStamp): boolean {
    if (this.fleet.revision() !== stamp.revision) return false
    const { indices, agentRevisions } = stamp
    for (let k = 0; k < indices.length; k++) {
      if (this.fleet.agentRevision(indices[k]) !== agentRevisions[k]) return false
    }
    return true
  }
}
