/**
 * Shaping a response body: sent slowly (bytes per wall second), or cut short with the
 * connection closed. Both keep the full Content-Length when it is known, so a client sees a
 * body that ends early rather than a shorter, well-formed one.
 */
import { Readable } from 'node:stream'
import type { Socket } from 'node:net'

/** Waiting wall time; `signal` ends the wait early (src/lib/wall-wait.ts). */
export type Wait = (ms: number, signal?: AbortSignal) => Promise<void>

/** Chunks per second of a slow body: small enough to trickle, large enough to stay cheap. */
const SLOW_TICKS_PER_SECOND = 10

/** The payload fastify is about to send, as bytes; undefined for streams. */
export function payloadBytes(payload: unknown): Buffer | undefined {
  if (typeof payload === 'string') return Buffer.from(payload)
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)
  return undefined
}

async function* chunksOf(payload: Buffer | Readable): AsyncGenerator<Buffer> {
  if (Buffer.isBuffer(payload)) {
    yield payload
    return
  }
  for await (const chunk of payload) yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
}

/** The body at `bytesPerSecond`, in ten slices a second. */
export function slowBody(payload: Buffer | Readable, bytesPerSecond: number, wait: Wait): Readable {
  const slice = Math.max(1, Math.floor(bytesPerSecond / SLOW_TICKS_PER_SECOND))
  const pause = (1000 * slice) / bytesPerSecond
  return Readable.from(
    (async function* () {
      for await (const chunk of chunksOf(payload)) {
        for (let at = 0; at < chunk.length; at += slice) {
          if (at > 0) await wait(pause)
          yield chunk.subarray(at, at + slice)
        }
        await wait(pause)
      }
    })()
  )
}

/**
 * Up to `keep` bytes of the body, then the connection closes. The socket is ended (not
 * destroyed) so the bytes already written reach the client before the FIN; the stream itself
 * never ends, so fastify never finishes the response properly.
 */
export function truncatedBody(payload: Buffer | Readable, keep: number, socket: Socket | null): Readable {
  const source = chunksOf(payload)
  let sent = 0
  let closing = false
  return new Readable({
    read() {
      if (closing) return
      void source.next().then(
        ({ value, done }) => {
          if (done === true || sent >= keep) {
            closing = true
            socket?.end()
            return
          }
          const part = value.subarray(0, keep - sent)
          sent += part.length
          this.push(part)
        },
        (error: unknown) => this.destroy(error as Error)
      )
    }
  })
}
