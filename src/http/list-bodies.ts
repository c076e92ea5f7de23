/**
 * Memory for the lists kept as bytes (ListAnswer, answer-cache.ts). A list kept once made is
 * joined from its chunks into one buffer, sent again as it is. At speed 600 a list of 10,000
 * agents is made and kept about twenty times a second, each into a new buffer of 8.5 to 10.6 MB:
 * every one was new memory for the kernel to hand over page by page as it was first written, and
 * memory V8 counts in deciding when to collect, which it did far more often once JSON and XML
 * lists were both kept. A buffer no kept list needs any more (the cache dropped it, and every
 * response it was written to finished) holds the next list instead (bench/README.md, "Kept lists
 * joined into memory used again").
 */

/** Room a new buffer is made with beyond the list it is made for, so that the next list of the fleet, a few items longer, fits it too. */
const HEADROOM = 1 / 8

export class ListBodies {
  private readonly free: Buffer[] = []
  private freeBytes = 0

  /** `maxFreeBytes`: what the buffers given back and not taken again may hold together; past it the oldest go to the GC. */
  constructor(private readonly maxFreeBytes: number) {}

  /** Bytes held by buffers given back and not taken again. */
  get held(): number {
    return this.freeBytes
  }

  /**
   * `chunks` joined, `bytes` long: `body`, the list's bytes, at the start of `memory`, a buffer
   * given back (the shortest that holds them) or a new one. Give `memory` back once nothing
   * reads `body` any more.
   */
  join(chunks: readonly Uint8Array[], bytes: number): { body: Buffer; memory: Buffer } {
    const memory = this.take(bytes) ?? Buffer.allocUnsafeSlow(Math.ceil(bytes * (1 + HEADROOM)))
    let at = 0
    for (const chunk of chunks) {
      memory.set(chunk, at)
      at += chunk.length
    }
    return { body: memory.subarray(0, bytes), memory }
  }

  /** Takes `memory` back, to hold a list joined later. */
  giveBack(memory: Buffer): void {
    this.free.push(memory)
    this.freeBytes += memory.length
    while (this.freeBytes > this.maxFreeBytes) this.freeBytes -= (this.free.shift() as Buffer).length
  }

  private take(bytes: number): Buffer | undefined {
    let best = -1
    for (let k = 0; k < this.free.length; k++) {
      if (this.free[k].length >= bytes && (best === -1 || this.free[k].length < this.free[best].length)) best = k
    }
    if (best === -1) return undefined
    const [memory] = this.free.splice(best, 1)
    this.freeBytes -= memory.length
    return memory
  }
}
