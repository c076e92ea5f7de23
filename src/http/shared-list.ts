/**
 * A streamed list made once for every request for it that comes while it is being made, as
 * AnswerCache.shared makes a short list made whole once for such requests (request collapsing):
 * the lists of more than 1,000 agents that may be kept (routes/agentinfo.ts). Two dashboards
 * polling the same list at the same moment would otherwise each have it made. Once made, the
 * list is kept as its chunks joined if the fleet held still meanwhile (onEnd).
 *
 * The list is made a chunk of about SHARED_CHUNK_BYTES per turn of the event loop (ListBytes);
 * every request reads the chunks from the first at its own pace (a Readable each, with
 * backpressure), BATCH chunks at a time, those that lie end to end in one slab as one push
 * (runFrom). The chunks are held until the list is made and the last request has read them: at most the list's size (a list streams this
 * way only up to MAX_KEPT_LIST_AGENTS), and as bytes outside the JavaScript heap, which the GC
 * does not copy. Once every response the list was sent to has finished, its memory goes back to
 * be written over by the next list (recycle, slab-pool.ts). The list stops being made once every
 * request for it has gone.
 */
import type { ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { ChunkSource, TakenChunk } from './reply.js'
import { endToEnd } from './chunk-writer.js'

/** A list made a chunk at a time that notes the agent states it showed (ListBytes). */
export interface StatedChunks extends ChunkSource<Buffer> {
  /** the agent states the list showed so far, in the order they first appeared */
  readonly states: readonly string[]
  /** every chunk taken has been written to every response it was sent to: their memory may be written over (ListBytes, slab-pool.ts) */
  recycle(): void
}

/**
 * Bytes of each chunk of a list made this way (routes/agentinfo.ts), four times a list streamed
 * to one request (STREAM_CHUNK_CHARS): each chunk is a turn of the event loop, a chunk header
 * and a write, and these lists are short enough (MAX_KEPT_LIST_AGENTS) that a turn of 64 KiB,
 * about 75 items, keeps other requests waiting for little. bench/README.md, "Shared lists are
 * made 64 KiB at a time", has the A/B.
 */
export const SHARED_CHUNK_BYTES = 64 * 1024

/**
 * Chunks handed to a request together (about 512 KiB). In a CPU profile of lists of 10,000
 * agents written 16 KiB at a time, the socket writes were the largest part after making the lists
 * and the GC. The list is still made a chunk per turn of the event loop.
 */
const BATCH = 8

/**
 * Bytes handed to a request in one push at most: a batch. Each push is a write to the socket and,
 * as it is past the response's high-water mark, a wait for its 'drain' before the next; a batch
 * pushed a chunk at a time was eight of each. Chunks cut one after another from one slab
 * (chunk-writer.ts) lie end to end in its memory, and go as one push (runFrom): in `npm run
 * bench:list-load` the server's CPU per answer fell by a sixth (bench/README.md, "Shared lists
 * pushed in runs").
 */
const RUN_BYTES = BATCH * SHARED_CHUNK_BYTES

/**
 * The chunks from `from` on that lie end to end in one slab's memory, as one buffer over them (no
 * copy) of at most `limit` bytes (the first chunk whatever its length); and how many they are.
 */
export function runFrom(chunks: readonly Buffer[], from: number, limit: number): { bytes: Buffer; chunks: number } {
  let bytes = chunks[from]
  let end = from + 1
  for (; end < chunks.length; end++) {
    const joined = endToEnd(bytes, chunks[end], limit)
    if (joined === undefined) break
    bytes = joined
  }
  return { bytes, chunks: end - from }
}

export class SharedList {
  private readonly chunks: Buffer[] = []
  private readonly readers = new Set<ListReader>()
  private made = false
  private failure: Error | undefined
  private stopped = false
  /** readers whose response has not finished yet */
  private sending = 0
  private recycled = false

  /**
   * `source`: the list, a chunk at a time; `onEnd`: called once, when its last chunk is made
   * (with every chunk, to read during the call only: their memory may be recycled after), or
   * when it stopped because every request went away or making it failed (undefined). `ready`:
   * the list is made from when it resolves (the fleet's rounds in flight have ended).
   */
  constructor(
    private readonly source: StatedChunks,
    private readonly onEnd: (chunks: readonly Buffer[] | undefined) => void,
    ready: Promise<unknown> = Promise.resolve()
  ) {
    void ready.then(() => setImmediate(() => this.makeChunk()))
  }

  /** The agent states the list showed so far, for the journal of every request it is sent to. */
  get states(): readonly string[] {
    return this.source.states
  }

  /** Whether a request that comes now can still read the list from its first chunk. */
  get open(): boolean {
    return !this.made && !this.stopped
  }

  /**
   * A new request's body: every chunk, from the first. `response`: what the body is piped to.
   * Once every reader's response has finished, every chunk has been written to its socket, and
   * the list's memory is recycled. A response that closes before it finishes (its client went
   * away) never does, nor does a reader without one: its socket may still have been holding
   * chunks when it stopped, and the list is left to the GC.
   */
  reader(response?: ServerResponse): Readable {
    const reader = new ListReader(this)
    this.readers.add(reader)
    this.sending++
    response?.once('finish', () => {
      this.sending--
      this.recycleIfSent()
    })
    return reader
  }

  /** The list is made and every response it was sent to finished: its chunks are written. */
  private recycleIfSent(): void {
    if (!this.made || this.sending > 0 || this.recycled) return
    this.recycled = true
    this.chunks.length = 0
    this.source.recycle()
  }

  /** Pushes the reader the chunks it has not read yet, as far as it takes them; the end once made. */
  feed(reader: ListReader): void {
    if (this.failure !== undefined) return void reader.destroy(this.failure)
    if (!this.made && this.chunks.length - reader.next < BATCH) {
      reader.waiting = true
      return
    }
    while (reader.next < this.chunks.length) {
      const run = runFrom(this.chunks, reader.next, RUN_BYTES)
      reader.next += run.chunks
      if (!reader.push(run.bytes)) return
    }
    if (this.made) reader.push(null)
    else reader.waiting = true
  }

  /** A reader is done (read to its end, or its request went away). */
  drop(reader: ListReader): void {
    this.readers.delete(reader)
    if (this.readers.size === 0 && !this.made && !this.stopped) {
      this.stopped = true
      this.source.stop()
      this.onEnd(undefined)
    }
  }

  private makeChunk(): void {
    if (this.stopped) return
    let taken: TakenChunk<Buffer>
    try {
      taken = this.source.take()
    } catch (error) {
      this.stopped = true
      this.failure = error as Error
      for (const reader of this.readers) reader.destroy(this.failure)
      this.onEnd(undefined)
      return
    }
    const { chunk, last } = taken
    if (chunk.length > 0) this.chunks.push(chunk)
    this.made = last
    for (const reader of this.readers) {
      if (!reader.waiting) continue
      reader.waiting = false
      this.feed(reader)
    }
    if (!last) return void setImmediate(() => this.makeChunk())
    this.onEnd(this.chunks)
    // Every response may have finished already (one fastify ended without reading its body).
    this.recycleIfSent()
  }
}

class ListReader extends Readable {
  /** the next chunk to push */
  next = 0
  /** it asked for more than was made, or than a batch (feed is called for it again as each chunk is made) */
  waiting = false

  constructor(private readonly list: SharedList) {
    super()
  }

  override _read(): void {
    this.list.feed(this)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.list.drop(this)
    callback(error)
  }
}
