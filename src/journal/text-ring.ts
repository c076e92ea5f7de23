/**
 * Texts kept as UTF-8 bytes in one buffer, first in, first out: the answer texts of the requests
 * the journal keeps whole (Journal.addShared). The journal drops its entries oldest first, and
 * their texts with them, so the texts held always lie end to end from the oldest to the newest,
 * once around the buffer at most.
 *
 * Why not the strings: the journal keeps its last 10,000 requests, so each answer text it held
 * lived past the next young-generation GC, which copied it and then promoted it to the old
 * generation. For a client asking for 2,000 agents in turn, that and the items kept as text had
 * the GC take 8 to 17 µs of each answer, bare fastify's under 3 (bench/README.md, "Items kept
 * as bytes, answer texts in a byte ring"). Written here a text costs an encoding into memory the GC does
 * not trace, and a decoding when its entry is read.
 *
 * The buffer starts small and doubles, the texts copied over, up to `maxBytes`; past that, the
 * caller drops its oldest text until the new one fits (add returns NO_ROOM).
 */

/** What add() returns when the text does not fit until older texts are dropped. */
export const NO_ROOM = -1

/** The buffer's first size. */
const FIRST_BYTES = 64 * 1024

export class TextRing {
  private buffer = Buffer.alloc(0)
  /** where the next text's bytes go */
  private head = 0
  /** start and length of each text held, by its number modulo maxTexts */
  private readonly starts: Float64Array
  private readonly lengths: Float64Array
  /** the number of the oldest text held, and of the next text added */
  private first = 0
  private next = 0
  /** bytes of the texts held: kept as they come and go, as grow() is asked at every add that finds no room */
  private held = 0

  constructor(
    /** texts held at most (the journal's capacity: one text per entry) */
    readonly maxTexts: number,
    /** bytes the buffer grows to at most */
    readonly maxBytes: number
  ) {
    if (!Number.isInteger(maxTexts) || maxTexts < 1) throw new RangeError(`a text ring holds at least one text, got ${maxTexts}`)
    this.starts = new Float64Array(maxTexts)
    this.lengths = new Float64Array(maxTexts)
  }

  /** Texts held. */
  get count(): number {
    return this.next - this.first
  }

  /** Bytes the buffer takes. */
  get capacity(): number {
    return this.buffer.length
  }

  /**
   * Adds a text as its UTF-8 bytes (copied) and returns its number; NO_ROOM when it does not fit
   * (the buffer at its largest, or maxTexts held) until the oldest text is dropped. A text longer
   * than maxBytes never fits: ask fits() first.
   */
  add(bytes: Uint8Array): number {
    const length = bytes.length
    if (this.count === this.maxTexts) return NO_ROOM
    let at = this.placeFor(length)
    if (at === NO_ROOM && this.grow(length)) at = this.placeFor(length)
    if (at === NO_ROOM) return NO_ROOM
    this.buffer.set(bytes, at)
    const slot = this.next % this.maxTexts
    this.starts[slot] = at
    this.lengths[slot] = length
    this.head = at + length
    this.held += length
    return this.next++
  }

  /** Whether a text of `length` bytes can be held at all (with every older text dropped). */
  fits(length: number): boolean {
    return length <= this.maxBytes
  }

  /** Text number `n`, decoded; it must be held (first added and not yet dropped). */
  text(n: number): string {
    if (n < this.first || n >= this.next) throw new RangeError(`text ${n} is not held (held: ${this.first} to ${this.next - 1})`)
    const slot = n % this.maxTexts
    const start = this.starts[slot]
    return this.buffer.toString('utf8', start, start + this.lengths[slot])
  }

  /** Drops the oldest text held. */
  dropOldest(): void {
    if (this.count === 0) return
    this.held -= this.lengths[this.first % this.maxTexts]
    this.first++
    if (this.count === 0) this.head = 0
  }

  /**
   * Where `length` bytes fit: after the newest text, or at the buffer's start if they do not fit
   * before its end and the oldest text starts after them; NO_ROOM if neither.
   */
  private placeFor(length: number): number {
    if (this.count === 0) return length <= this.buffer.length ? 0 : NO_ROOM
    const oldest = this.starts[this.first % this.maxTexts]
    if (oldest < this.head) {
      // Not wrapped: free from the head to the end, and from the start to the oldest text.
      if (this.head + length <= this.buffer.length) return this.head
      return length <= oldest ? 0 : NO_ROOM
    }
    // Wrapped: free from the head to the oldest text.
    return this.head + length <= oldest ? this.head : NO_ROOM
  }

  /** Doubles the buffer (at least to hold every text and `length` more, at most maxBytes), the texts copied to its start in order; false at maxBytes. */
  private grow(length: number): boolean {
    const held = this.held
    if (this.buffer.length >= this.maxBytes || held + length > this.maxBytes) return false
    let size = Math.max(FIRST_BYTES, this.buffer.length * 2)
    while (size < held + length) size *= 2
    const grown = Buffer.allocUnsafe(Math.min(size, this.maxBytes))
    let at = 0
    for (let n = this.first; n < this.next; n++) {
      const slot = n % this.maxTexts
      const start = this.starts[slot]
      const end = start + this.lengths[slot]
      this.buffer.copy(grown, at, start, end)
      this.starts[slot] = at
      at += end - start
    }
    this.buffer = grown
    this.head = at
    return true
  }
}
