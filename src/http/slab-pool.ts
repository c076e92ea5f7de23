/**
 * Slabs that streamed answers were written into (ChunkWriter), kept for the next answers once
 * every chunk cut from them has been written to its socket.
 *
 * Why: a 10k list is some 8.5 MB of chunks. Each slab allocated anew is memory outside the
 * JavaScript heap that V8 must account for, sweep and give back, and that the kernel must map
 * and fault in on its first write. In a CPU profile of 10k lists at speed 600 the GC was the
 * largest part of the server's time after the socket writes; with the slabs used again, a small
 * one (bench/README.md, "A shared list's memory is used again").
 *
 * Slabs come from the pool only for the lists made once for every request that comes while they
 * are made (SharedList), which hold all their chunks until each of those requests has them
 * written anyway; they go back once every such response has finished. A list that was cut short
 * (a request went away before its end) leaves its slabs to the GC: nothing here can tell when
 * its socket stopped reading them. A list streamed to one request takes new slabs and holds
 * none (ChunkWriter without a pool), so that a 100k list does not hold its 81 MB to its end.
 */

/**
 * Chunks are cut from slabs of this many bytes (a chunk longer than a slab gets one of its own,
 * not kept). 1 MiB rather than 256 KiB: a shared list hands a request the chunks that lie end to
 * end in one slab as one write, up to 512 KiB (shared-list.ts, runFrom), and a 256 KiB slab held
 * runs of three or four 64 KiB chunks. Larger slabs alone, their chunks written one by one, did
 * not change `npm run bench:list-load` beyond its spread (bench/README.md, "Shared lists pushed
 * in runs").
 */
export const SLAB_BYTES = 1024 * 1024

/** Free slabs kept at most (16 MiB): enough for two 10k lists in flight (some 8.5 MB each). */
export const FREE_SLABS_MAX = 16

export class SlabPool {
  private readonly free: Buffer[] = []
  private reusedCount = 0

  constructor(private readonly max = FREE_SLABS_MAX) {}

  /** A slab of SLAB_BYTES: a free one, else a new one. Its bytes are whatever was there. */
  take(): Buffer {
    const slab = this.free.pop()
    if (slab === undefined) return Buffer.allocUnsafe(SLAB_BYTES)
    this.reusedCount++
    return slab
  }

  /**
   * Slabs nothing reads any more: every chunk cut from them has been written. Kept up to the
   * pool's bound; one of another size (a long chunk's own) is left to the GC.
   */
  giveBack(slabs: readonly Buffer[]): void {
    for (const slab of slabs) {
      if (this.free.length >= this.max) return
      if (slab.length === SLAB_BYTES) this.free.push(slab)
    }
  }

  /** Slabs handed out again since the pool was made. */
  get reused(): number {
    return this.reusedCount
  }

  /** Free slabs held now. */
  get size(): number {
    return this.free.length
  }
}
