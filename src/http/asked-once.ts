/**
 * The URLs asked for once lately, for AnswerCache.keepAskedAgain: a URL counts while fewer than
 * `capacity` notes have come after its own.
 *
 * Kept as 32-bit fingerprints in a set-associative table, the way a CPU cache keeps lines: a
 * URL's fingerprint picks a set of WAYS slots, and a slot holds a fingerprint and the number of
 * the note that put it there. A full set gives up its oldest slot, which happens before its
 * URL's time only when more than WAYS of the last `capacity` URLs share a set (the table has
 * four slots per URL counted, so about two share one on average).
 *
 * Why not a Set of the URLs: under a client asking for many agents in turn, each answer noted a
 * URL and deleted the oldest, so every request looked up, added and deleted strings of some 80
 * characters in a table of a thousand, and held each URL well past its request. In a profile of
 * the server under that load, this was a few per cent of its time per answer (bench/README.md,
 * "URLs asked for once, as fingerprints"). Here a request hashes its URL once and reads two
 * cache lines.
 *
 * Two URLs of one fingerprint count as one URL: the cost is an answer kept that need not have
 * been (it is kept under the whole URL, so it is never sent for the other).
 */

/** Slots per set: a set's fingerprints fill half a cache line, the numbers of their notes one. */
const WAYS = 8
/** Slots per URL counted. */
const SLOTS_PER_URL = 4

export class AskedOnce {
  private readonly prints: Int32Array
  /** the number of the note that filled each slot; 0: empty */
  private readonly notedAt: Float64Array
  /** sets - 1: the set of a fingerprint is its low bits */
  private readonly setMask: number
  /** notes so far: the number of the last */
  private notes = 0

  constructor(private readonly capacity: number) {
    let sets = 1
    while (sets * WAYS < capacity * SLOTS_PER_URL) sets *= 2
    this.setMask = sets - 1
    this.prints = new Int32Array(sets * WAYS)
    this.notedAt = new Float64Array(sets * WAYS)
  }

  /** Notes `url` as asked for now. */
  note(url: string): void {
    this.noteAt(fingerprint(url))
  }

  /**
   * Whether `url` was asked for among the last `capacity` notes: if so it is forgotten (its next
   * request counts as a first), else it is noted.
   */
  askedAgain(url: string): boolean {
    const print = fingerprint(url)
    const found = this.slotOf(print)
    if (found === -1) {
      this.noteAt(print)
      return false
    }
    this.notedAt[found] = 0
    return true
  }

  /** Forgets every URL. */
  clear(): void {
    this.notedAt.fill(0)
  }

  /** Whether the note numbered `at` is among the last `capacity` (0, an empty slot, never is). */
  private counts(at: number): boolean {
    return at !== 0 && this.notes - at < this.capacity
  }

  /** The slot holding `print` from a note that still counts; -1 if none. */
  private slotOf(print: number): number {
    const first = (print & this.setMask) * WAYS
    for (let slot = first; slot < first + WAYS; slot++) {
      if (this.prints[slot] === print && this.counts(this.notedAt[slot])) return slot
    }
    return -1
  }

  /** Puts `print` in its set as the newest note: in its own slot, else one that no longer counts, else the set's oldest. */
  private noteAt(print: number): void {
    const first = (print & this.setMask) * WAYS
    let own = -1
    let free = -1
    let oldest = first
    for (let slot = first; slot < first + WAYS; slot++) {
      // A URL holds one slot at most: its own is taken again, counting or not.
      if (this.prints[slot] === print) {
        own = slot
        break
      }
      if (free === -1 && !this.counts(this.notedAt[slot])) free = slot
      if (this.notedAt[slot] < this.notedAt[oldest]) oldest = slot
    }
    const chosen = own !== -1 ? own : free !== -1 ? free : oldest
    this.prints[chosen] = print
    this.notedAt[chosen] = ++this.notes
  }
}

/** FNV-1a over the URL's UTF-16 code units, its bits mixed (MurmurHash3's finaliser) so the low ones pick sets evenly. */
function fingerprint(url: string): number {
  let hash = 0x811c9dc5
  for (let k = 0; k < url.length; k++) hash = Math.imul(hash ^ url.charCodeAt(k), 0x01000193)
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35)
  return hash ^ (hash >>> 16)
}
