/**
 * A list answer written as bytes, a chunk of about STREAM_CHUNK_CHARS bytes (or as asked) each
 * time one is taken: the envelope's head, the items (each written straight into the chunk,
 * item-bytes.ts), the envelope's tail. What the lists that stream are made of
 * (routes/agentinfo.ts): sent to one request (sendChunks) or made once for several (SharedList).
 *
 * The agent states the items showed are noted as they are written, for the journal
 * (request.streamedStates): a list written as text had them read again from its text.
 */
import type { IndexCursor } from '../fleet/fleet-api.js'
import { ChunkWriter } from './chunk-writer.js'
import type { SlabPool } from './slab-pool.js'
import { STREAM_CHUNK_CHARS, type ChunkSource, type TakenChunk, type TextEnvelope } from './reply.js'

/** Writes agent `index`'s item into `out`; returns the state it shows. */
export type WriteItem = (out: ChunkWriter, index: number) => string

/** Any list of indices as a cursor (IndexCursor): for lists that are not a walk of the fleet. */
export function cursorOf(indices: Iterable<number>): IndexCursor {
  const iterator = indices[Symbol.iterator]()
  return {
    next: () => {
      const next = iterator.next()
      return next.done === true ? -1 : next.value
    }
  }
}

export class ListBytes implements ChunkSource<Buffer> {
  private readonly out: ChunkWriter
  private started = false
  private items = 0
  private readonly seen: string[] = []
  private readonly chunkBytes: number
  private readonly wanted: ReadonlySet<string> | undefined

  constructor(
    private readonly envelope: TextEnvelope,
    /** the agents, one at a time (Fleet.cursor; cursorOf for any list of indices) */
    private readonly indices: IndexCursor,
    private readonly write: WriteItem,
    options: {
      /** where its chunks' memory comes from, for a list whose chunks are held until every request for it has them written (SharedList) */
      slabs?: SlabPool
      /** bytes a chunk holds at least (but the last), one item more at most; STREAM_CHUNK_CHARS unless said */
      chunkBytes?: number
      /**
       * the states a list by state shows: an item written showing another is taken back. The
       * agents are chosen by their state a moment before each is read, and a step worker may
       * move one in between; the list leaves it out, as if it had been chosen a moment later.
       */
      states?: ReadonlySet<string>
    } = {}
  ) {
    this.out = new ChunkWriter(options.slabs)
    this.chunkBytes = options.chunkBytes ?? STREAM_CHUNK_CHARS
    this.wanted = options.states
  }

  /** The agent states the list showed so far, in the order they first appeared. */
  get states(): readonly string[] {
    return this.seen
  }

  take(): TakenChunk<Buffer> {
    const out = this.out
    if (!this.started) {
      this.started = true
      out.text(this.envelope.head)
    }
    while (out.length < this.chunkBytes) {
      const index = this.indices.next()
      if (index === -1) {
        out.text(this.envelope.tail)
        return { chunk: out.take(), last: true }
      }
      const before = out.length
      if (this.items > 0) out.ascii(this.envelope.separator)
      const state = this.write(out, index)
      if (this.wanted !== undefined && !this.wanted.has(state)) {
        out.rewind(before)
        continue
      }
      this.items++
      this.note(state)
    }
    return { chunk: out.take(), last: false }
  }

  /** Nothing to let go: the cursor holds no resource, and the list is left unfinished. */
  stop(): void {}

  /** Every chunk taken has been written to every request it was sent to: their memory goes back to the pool (ChunkWriter.recycle). */
  recycle(): void {
    this.out.recycle()
  }

  private note(state: string): void {
    const seen = this.seen
    // Most items show the state the one before showed.
    if (seen[seen.length - 1] === state || seen.includes(state)) return
    seen.push(state)
  }
}
