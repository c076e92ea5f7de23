/** The slabs streamed lists are written into, and used again (src/http/slab-pool.ts, src/http/chunk-writer.ts). */
import { describe, expect, it } from 'vitest'
import { ChunkWriter, STREAM_SLAB_BYTES } from '../../src/http/chunk-writer.js'
import { SLAB_BYTES, SlabPool } from '../../src/http/slab-pool.js'

/** Writes `bytes` of `fill` in chunks of `chunk` bytes; returns the chunks. */
function chunksOf(out: ChunkWriter, bytes: number, fill: string, chunk = 16 * 1024): Buffer[] {
  const chunks: Buffer[] = []
  for (let written = 0; written < bytes; written += chunk) {
    out.ascii(fill.repeat(chunk))
    chunks.push(out.take())
  }
  return chunks
}

describe('SlabPool', () => {
  it('hands out a slab given back before a new one, and keeps at most its bound', () => {
    const pool = new SlabPool(2)
    const [a, b, c] = [pool.take(), pool.take(), pool.take()]
    expect(a.length).toBe(SLAB_BYTES)
    expect(new Set([a, b, c]).size).toBe(3)
    pool.giveBack([a, b, c])
    expect(pool.size).toBe(2)
    const again = [pool.take(), pool.take()]
    // By identity: a deep comparison of slabs reads every byte of each.
    expect(again.filter((slab) => slab === a || slab === b).length === 2 && again[0] !== again[1]).toBe(true)
    // Not .not.toBe: on objects that differ, it compares them deeply too, every byte of a slab.
    expect(pool.take() !== c).toBe(true)
    expect(pool.reused).toBe(2)
  })

  it('does not keep a slab of another size (a long chunk has one of its own)', () => {
    const pool = new SlabPool()
    pool.giveBack([Buffer.alloc(2 * SLAB_BYTES), Buffer.alloc(10)])
    expect(pool.size).toBe(0)
  })
})

describe('ChunkWriter with a pool', () => {
  it('gives back every slab it cut chunks from once recycled, and writes the next chunks into slabs from the pool', () => {
    const pool = new SlabPool()
    const out = new ChunkWriter(pool)
    const chunks = chunksOf(out, 3 * SLAB_BYTES, 'a')
    const slabs = new Set(chunks.map((chunk) => chunk.buffer))
    expect(slabs.size).toBe(3)
    expect(pool.size).toBe(0)
    out.recycle()
    expect(pool.size).toBe(3)
    // Recycling twice gives nothing back twice: a slab handed to two writers would be written by both.
    out.recycle()
    expect(pool.size).toBe(3)
    const next = chunksOf(out, 16 * 1024, 'b')[0]
    expect(slabs.has(next.buffer)).toBe(true)
    expect(next.toString()).toBe('b'.repeat(16 * 1024))
    expect(pool.size).toBe(2)
  })

  it('leaves its chunks as written until recycled, whatever other writers of the pool write', () => {
    const pool = new SlabPool()
    const first = new ChunkWriter(pool)
    const kept = chunksOf(first, 2 * SLAB_BYTES, 'a')
    const other = new ChunkWriter(pool)
    chunksOf(other, 2 * SLAB_BYTES, 'b')
    other.recycle()
    chunksOf(new ChunkWriter(pool), 2 * SLAB_BYTES, 'c')
    expect(Buffer.concat(kept).toString()).toBe('a'.repeat(2 * SLAB_BYTES))
  })
})

describe('ChunkWriter slabs', () => {
  it('cuts a pooled writer\'s chunks from the pool\'s slabs, and a writer without a pool\'s from slabs a quarter the size', () => {
    // A list streamed to one request leaves its slabs to the GC: larger ones grew the server's RSS under many such lists.
    const pooled = chunksOf(new ChunkWriter(new SlabPool()), 16 * 1024, 'a')[0]
    const streamed = chunksOf(new ChunkWriter(), 16 * 1024, 'a')[0]
    expect(pooled.buffer.byteLength).toBe(SLAB_BYTES)
    expect(streamed.buffer.byteLength).toBe(STREAM_SLAB_BYTES)
  })
})
