/**
 * Bytes of a streamed answer written straight into a buffer, a chunk at a time: what a list
 * that streams is made of (list-bytes.ts). Why not strings joined and encoded: a list item is
 * some twenty pieces (its identity's text, its figures, its dates), and joined they are a tree
 * of strings that encoding must flatten, then copy again; and the journal had to read every
 * chunk again for the agent states it showed. Here each piece is copied once, the identity's
 * text from bytes encoded once per agent (item-bytes.ts), and the figures as ASCII digits.
 *
 * Chunks are cut from slabs (slab-pool.ts), as Node's Buffer pool cuts small buffers: a chunk
 * handed out is never written again, and the next chunk starts where it ended. Once every chunk
 * has been written to its socket, the slabs go back to the pool (recycle).
 */
import { SLAB_BYTES, type SlabPool } from './slab-pool.js'

const NO_SLAB = Buffer.alloc(0)

/**
 * Slabs of a writer without a pool (a list streamed to one request): a quarter of a pooled one.
 * Such a list leaves each slab to the GC once its chunks are sent. With these at 1 MiB too, the
 * server's RSS grew by 47.5 MB under eight clients streaming 100k lists in the list scope of
 * `npm run bench` (goal: under 50), against 8.7 MB with 256 KiB the run before (bench/README.md,
 * "Shared lists pushed in runs").
 */
export const STREAM_SLAB_BYTES = 256 * 1024

/** bytes() copies up to this many a byte at a time. */
const FEW_BYTES = 32

/** Powers of ten, for counting an integer's digits. */
const POWERS = Array.from({ length: 16 }, (_, k) => 10 ** k)

/** The two ASCII digits of every number below 100, for writing numbers two digits at a time. */
const DIGIT_PAIRS = Uint8Array.from({ length: 200 }, (_, k) => 48 + (k % 2 === 0 ? Math.floor(k / 20) : (k >> 1) % 10))

/*
 * Writers into room already made (ChunkWriter.reserve): each writes at `at` in `into` and returns
 * where it ended. A run of short values (an item's dates and figures, item-bytes.ts) is written
 * with one check for room rather than one per value, and ChunkWriter's own writes are these.
 */

/** Room numberAt takes at most: `'' + n` of any number is at most 25 characters (`-0.0000012345678901234567`), as is toFixed(2) of one below 10^21. */
export const NUMBER_ROOM = 32

/** Bytes already encoded: a few a byte at a time, more with set(). */
export function bytesAt(into: Uint8Array, at: number, source: Uint8Array): number {
  const length = source.length
  if (length > FEW_BYTES) {
    into.set(source, at)
    return at + length
  }
  for (let k = 0; k < length; k++) into[at++] = source[k]
  return at
}

/** A string of ASCII characters only, from its character `from`, a byte each (room: its length). */
export function asciiAt(into: Uint8Array, at: number, text: string, from = 0): number {
  for (let k = from; k < text.length; k++) into[at++] = text.charCodeAt(k)
  return at
}

/**
 * A number as `'' + n` writes it (room: NUMBER_ROOM): a whole number from 0 up to 10^15 as its
 * digits, here; any other (a fraction, a sign, an exponent) through its string.
 */
export function numberAt(into: Uint8Array, at: number, n: number): number {
  if (!(Number.isInteger(n) && n >= 0 && n < 1e15)) return asciiAt(into, at, '' + n)
  let digits = 1
  while (digits < POWERS.length && n >= POWERS[digits]) digits++
  const end = at + digits
  at = end
  // Two digits a division: half the divisions of one at a time.
  while (n >= 100) {
    const rest = Math.floor(n / 100)
    const pair = (n - rest * 100) * 2
    into[--at] = DIGIT_PAIRS[pair + 1]
    into[--at] = DIGIT_PAIRS[pair]
    n = rest
  }
  // `at` is now where the number starts: one digit or two left.
  if (n >= 10) {
    into[at - 1] = DIGIT_PAIRS[n * 2 + 1]
    into[at - 2] = DIGIT_PAIRS[n * 2]
  } else {
    // -0 writes as 0, as '' + -0 does.
    into[at - 1] = 48 + n
  }
  return end
}

/**
 * A number of hundredths with its two decimals, as (hundredths / 100).toFixed(2) writes it:
 * `hundredths` from 0 up to 10^15, whole (room: NUMBER_ROOM).
 */
export function hundredthsAt(into: Uint8Array, at: number, hundredths: number): number {
  const units = Math.floor(hundredths / 100)
  at = numberAt(into, at, units)
  const pair = (hundredths - units * 100) * 2
  into[at++] = 46
  into[at++] = DIGIT_PAIRS[pair]
  into[at++] = DIGIT_PAIRS[pair + 1]
  return at
}

/**
 * `first` and `next` as one buffer over both (no copy), if `next` starts where `first` ends in the
 * same memory (chunks cut one after another from a slab) and the two are at most `limit` bytes;
 * else undefined.
 */
export function endToEnd(first: Buffer, next: Buffer, limit: number): Buffer | undefined {
  if (next.buffer !== first.buffer || next.byteOffset !== first.byteOffset + first.length || first.length + next.length > limit) return undefined
  return Buffer.from(first.buffer, first.byteOffset, first.length + next.length)
}

export class ChunkWriter {
  /** the slab written now; none until the first write */
  private slab: Buffer = NO_SLAB
  /**
   * With a pool, every slab chunks were cut from, the one written now included: given back
   * together (recycle). Without one, none is held here, and a slab is left to the GC once the
   * chunks cut from it are: a list streamed to one client holds a slab or two at a time, not
   * the whole list.
   */
  private slabs: Buffer[] = []
  /** where the chunk being written starts in the slab */
  private start = 0
  /** where the next byte goes */
  private pos = 0

  /** bytes of a slab: the pool's, or STREAM_SLAB_BYTES */
  private readonly slabBytes: number

  /** `pool`: where slabs come from and go back to (recycle); without one, every slab is new and left to the GC. */
  constructor(private readonly pool?: SlabPool) {
    this.slabBytes = pool === undefined ? STREAM_SLAB_BYTES : SLAB_BYTES
  }

  /** Bytes written since the last take(). */
  get length(): number {
    return this.pos - this.start
  }

  /**
   * Makes room for `bytes` more (each write makes its own). When the slab is full, what the
   * chunk holds so far moves to a new slab: a chunk is one run of bytes.
   */
  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.slab.length) return
    const written = this.pos - this.start
    // Twice what it needs: a chunk longer than a slab (an item with many modules) grows by doubling.
    const slab = this.newSlab(Math.max(this.slabBytes, 2 * (written + bytes)))
    this.slab.copy(slab, 0, this.start, this.pos)
    this.slab = slab
    this.start = 0
    this.pos = written
  }

  private newSlab(bytes: number): Buffer {
    if (this.pool === undefined) return Buffer.allocUnsafe(bytes)
    const slab = bytes === SLAB_BYTES ? this.pool.take() : Buffer.allocUnsafe(bytes)
    this.slabs.push(slab)
    return slab
  }

  /**
   * Every chunk taken has been written where it was going (every response it was sent to
   * finished), and nothing reads them any more: their slabs go back to the pool, for other
   * answers to write over. What this writer writes next goes into a new slab. Bytes written since
   * the last take are lost.
   */
  recycle(): void {
    const slabs = this.slabs
    this.slabs = []
    // No room: the next write takes a slab (ensure), and a writer recycled at its answer's end takes none.
    this.slab = NO_SLAB
    this.start = 0
    this.pos = 0
    this.pool?.giveBack(slabs)
  }

  /** The chunk written since the last take (possibly empty); the next chunk starts after it. */
  take(): Buffer {
    const chunk = this.slab.subarray(this.start, this.pos)
    this.start = this.pos
    return chunk
  }

  /** Copies the chunk's bytes from its byte `from` (its length before something was written) to `target` at `at`; returns how many. */
  copyWritten(from: number, target: Uint8Array, at: number): number {
    return this.slab.copy(target, at, this.start + from, this.pos)
  }

  /** Takes back what was written since the chunk was `length` bytes long (ListBytes: an item left out once written). */
  rewind(length: number): void {
    this.pos = this.start + length
  }

  /**
   * Bytes already encoded: a few (an item's literal text between its values) a byte at a time,
   * which costs less than a call to set(); more with set().
   */
  bytes(source: Uint8Array): void {
    this.ensure(source.length)
    this.pos = bytesAt(this.slab, this.pos, source)
  }

  /**
   * The first `length` bytes of `room`, copied with the rest of it: one copy of the whole, where
   * a copy of a part makes a view of that part first. What lies past `length` is written over by
   * what comes next, or left out of the chunk.
   */
  prefix(room: Uint8Array, length: number): void {
    this.ensure(room.length)
    this.slab.set(room, this.pos)
    this.pos += length
  }

  /** Bytes `start` to `end` of `source`. */
  part(source: Buffer, start: number, end: number): void {
    this.ensure(end - start)
    this.pos += source.copy(this.slab, this.pos, start, end)
  }

  /**
   * Room for `most` bytes, for a writer that writes straight into the slab (Identity's, through
   * GeneratedIdentity): returns the slab, to be written from `end`; then moveTo(where it ended).
   */
  reserve(most: number): Uint8Array {
    this.ensure(most)
    return this.slab
  }

  /** Where the next byte goes in the slab reserve() returned. */
  get end(): number {
    return this.pos
  }

  /** Takes what was written into the reserved room up to `end` (at most the room reserved). */
  moveTo(end: number): void {
    this.pos = end
  }

  /**
   * A string of ASCII characters only (a date, a number's text, a separator), from its character
   * `from`, a byte each: for strings this short a loop costs less than a call into the encoder.
   */
  ascii(text: string, from = 0): void {
    this.ensure(text.length - from)
    this.pos = asciiAt(this.slab, this.pos, text, from)
  }

  /** Any string, as UTF-8 (room made for it here: at most three bytes a UTF-16 unit). */
  text(text: string): void {
    this.ensure(text.length * 3)
    this.pos += this.slab.write(text, this.pos, 'utf8')
  }
}
