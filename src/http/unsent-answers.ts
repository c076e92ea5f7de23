/**
 * A bound on the memory answers hold while their clients have not read them
 * (--unsent-answers-max-bytes).
 *
 * Why: an answer written to a socket whose client does not read stays in the server's memory
 * until the client reads it or --send-timeout resets the connection (60 s by default). A client
 * that asks for large answers and never reads them (a script that opens connections and hangs,
 * a stuck consumer) pinned a copy of each, and the server's memory grew with the connections until
 * it was killed (`npm run bench:unread-answers`, bench/README.md "Answers clients do not read").
 * Past the bound, a large answer gets 503 E_UNREAD_ANSWERS with Retry-After instead, as a proxy's
 * overload protection refuses work rather than falling over, and the clients that read go on.
 *
 * What counts: every answer fastify sends of at least HELD_FROM_BYTES, from when it is handed to
 * the socket until its response is over (sent, or cut off).
 * - An answer of text (what the routes serialise for one request) is copied for its socket, so
 *   each counts its UTF-8 bytes.
 * - An answer of bytes may be one several requests send at once (a kept agentinfo list,
 *   answer-cache.ts): the socket holds the buffer itself, not a copy, so a buffer counts once
 *   however many responses send it.
 * - Streamed answers (long lists, src/http/shared-list.ts) are written as the client reads them
 *   (backpressure), so they hold a chunk or two each and are not counted; nor are answers under
 *   HELD_FROM_BYTES, which every connection (at most --max-connections) may hold one of.
 * The fast path (src/http/fast-path.ts) sends answers by name of at most a few agents, and kept
 * answers as their shared bytes: it holds nothing this bound is for.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Gauge } from 'prom-client'
import { onResponseDone } from '../lib/response-done.js'
import { apiError } from '../protocol/errors.js'

/** Answers smaller than this are not counted (64 KiB: a list of about 75 agents in JSON). */
export const HELD_FROM_BYTES = 64 * 1024

export interface UnsentAnswers {
  /** bytes the counted answers in flight hold now */
  held(): number
}

export interface UnsentAnswersOptions {
  /** --unsent-answers-max-bytes */
  maxBytes: number
  /** follows held(), for /metrics */
  gauge?: Pick<Gauge, 'set'>
}

/**
 * Adds the onSend hook that counts large answers and refuses one that would take the count past
 * `maxBytes`. Register it before the hooks that record the answer (the journal, the metrics), so
 * they record the 503 the client gets rather than the answer it does not.
 */
export function registerUnsentAnswers(app: FastifyInstance, options: UnsentAnswersOptions): UnsentAnswers {
  const { maxBytes, gauge } = options
  let held = 0
  /** responses sending each buffer counted, by buffer */
  const senders = new Map<Uint8Array, number>()
  const change = (bytes: number) => {
    held += bytes
    gauge?.set(held)
  }

  app.addHook('onSend', function holdUnsentAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) {
    const bytes = countedBytes(payload)
    if (bytes === 0) return done(null, payload)
    const shared = payload instanceof Uint8Array ? payload : undefined
    const already = shared === undefined ? 0 : (senders.get(shared) ?? 0)
    const adds = already > 0 ? 0 : bytes
    // One answer alone is always sent, however large: the bound is on answers held together.
    if (adds > 0 && held > 0 && held + adds > maxBytes) {
      reply.header('retry-after', '1')
      return done(apiError('E_UNREAD_ANSWERS', { held, bytes, limit: maxBytes }))
    }
    if (shared !== undefined) senders.set(shared, already + 1)
    change(adds)
    onResponseDone(reply.raw, request.raw.socket, () => {
      if (shared === undefined) return change(-bytes)
      const left = (senders.get(shared) ?? 1) - 1
      if (left > 0) return void senders.set(shared, left)
      senders.delete(shared)
      change(-bytes)
    })
    done(null, payload)
  })
  return { held: () => held }
}

/** The bytes an answer counts for: its length if it is text or bytes of at least HELD_FROM_BYTES, else 0. */
function countedBytes(payload: unknown): number {
  if (payload instanceof Uint8Array) return payload.byteLength >= HELD_FROM_BYTES ? payload.byteLength : 0
  if (typeof payload !== 'string') return 0
  // A character is 1 to 3 bytes of UTF-8 (4 for a pair of surrogates, 2 characters): text under a
  // third of the bound is under it in bytes, and is not measured.
  if (payload.length * 3 < HELD_FROM_BYTES) return 0
  const bytes = Buffer.byteLength(payload)
  return bytes >= HELD_FROM_BYTES ? bytes : 0
}
