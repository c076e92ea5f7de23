/**
 * A bound on the memory answers hold while their clients have not read them
 * (--unsent-answers-max-bytes).
 *
 * Why: an answer written to a socket whose client does not read stays in the server's memory
 * until the client reads it or --send-timeout resets the connection (60 s by default). A client
 * that asks for large answers and never reads them (a script that opens connections and hangs,
 * a stuck consumer) pinned a copy of each, and the server's memory grew with the connections until
 * it was killed (`npm run bench:unread-answers`, bench/README.md "Answers clients do not read").
 * Past the bound, a large answer to a GET gets 503 E_UNREAD_ANSWERS with Retry-After instead, as a
 * proxy's overload protection refuses work rather than falling over.
 *
 * What counts: every answer of at least HELD_FROM_BYTES, from when it is handed to the socket
 * until its response is over (its last byte taken by the kernel, or the connection gone). A client
 * that reads slowly holds its answer meanwhile as one that does not read.
 * - An answer of text (what the routes serialise for one request) is copied for its socket, so
 *   each counts its UTF-8 bytes; so does every answer over TLS, encrypted for each connection.
 * - An answer of bytes over plain HTTP may be one several requests send at once (a kept agentinfo
 *   list, answer-cache.ts, sent by the routes or the fast path): the socket holds the buffer
 *   itself, not a copy, so it counts once however many responses send it.
 * - Streamed answers (long lists, src/http/shared-list.ts) are written as the client reads them
 *   (backpressure), so they hold a chunk or two each and are not counted; nor are answers under
 *   HELD_FROM_BYTES, which every connection (at most --max-connections) may hold one of, nor
 *   answers to HEAD, which send no body.
 * Only a GET is refused: any other method's operation has been carried out by the time its answer
 * is counted, and a 503 would have its client retry what was done. One answer alone is always sent.
 */
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Gauge } from 'prom-client'
import { onResponseDone } from '../lib/response-done.js'
import { apiError, type ApiError } from '../protocol/errors.js'

/** Answers smaller than this are not counted (64 KiB: a list of about 75 agents in JSON). */
export const HELD_FROM_BYTES = 64 * 1024
/** The Retry-After of a refusal, in seconds. */
const RETRY_AFTER = '1'

export interface UnsentAnswers {
  /** bytes the counted answers in flight hold now */
  held(): number
  /**
   * Counts `payload`, the answer `response` is about to send on `socket` for a request of
   * `method`, until the response is over, and returns undefined; or, with nothing counted, the
   * 503 to answer in its place (registerUnsentAnswers adds Retry-After).
   */
  hold(payload: unknown, method: string, response: ServerResponse, socket: Socket | null): ApiError | undefined
}

export interface UnsentAnswersOptions {
  /** --unsent-answers-max-bytes */
  maxBytes: number
  /** follows held(), for /metrics */
  gauge?: Pick<Gauge, 'set'>
}

export function unsentAnswers(options: UnsentAnswersOptions): UnsentAnswers {
  const { maxBytes, gauge } = options
  let held = 0
  /** responses sending each buffer counted once, by buffer */
  const senders = new Map<Uint8Array, number>()
  const change = (bytes: number) => {
    held += bytes
    gauge?.set(held)
  }
  // One answer alone is always sent, however large: the bound is on answers held together.
  const refusal = (bytes: number) => (held > 0 && held + bytes > maxBytes ? apiError('E_UNREAD_ANSWERS', { held, bytes, limit: maxBytes }) : undefined)

  const hold = (payload: unknown, method: string, response: ServerResponse, socket: Socket | null): ApiError | undefined => {
    if (method === 'HEAD' || socket === null) return undefined
    const bytes = countedBytes(payload)
    if (bytes === 0) return undefined
    const encrypted = (socket as Socket & { encrypted?: boolean }).encrypted === true
    const shared = !encrypted && payload instanceof Uint8Array ? payload : undefined
    const already = shared === undefined ? 0 : (senders.get(shared) ?? 0)
    const adds = already > 0 ? 0 : bytes
    const refused = adds > 0 && method === 'GET' ? refusal(adds) : undefined
    if (refused !== undefined) return refused
    if (shared !== undefined) senders.set(shared, already + 1)
    change(adds)
    onResponseDone(response, socket, () => {
      if (shared === undefined) return change(-bytes)
      const left = (senders.get(shared) ?? 1) - 1
      if (left > 0) return void senders.set(shared, left)
      senders.delete(shared)
      change(-bytes)
    })
    return undefined
  }
  return { held: () => held, hold }
}

/**
 * Adds the onSend hook that counts what fastify sends (unsent.hold) and answers 503 in its place
 * where it is refused. Register it before the hooks that record the answer (the journal, the
 * metrics), so they record the 503 the client gets rather than the answer it does not.
 */
export function registerUnsentAnswers(app: FastifyInstance, unsent: UnsentAnswers): void {
  app.addHook('onSend', function holdUnsentAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) {
    const refused = unsent.hold(payload, request.method, reply.raw, request.raw.socket)
    if (refused === undefined) return done(null, payload)
    reply.header('retry-after', RETRY_AFTER)
    done(refused)
  })
}

/** The bytes an answer counts for: its length if it is text or bytes of at least HELD_FROM_BYTES, else 0. */
function countedBytes(payload: unknown): number {
  if (payload instanceof Uint8Array) return payload.byteLength >= HELD_FROM_BYTES ? payload.byteLength : 0
  if (typeof payload !== 'string') return 0
  // A character is 1 to 3 bytes of UTF-8 (4 for a pair of surrogates, 2 characters): text of fewer
  // than a third of HELD_FROM_BYTES characters is under it in bytes, and is not measured.
  if (payload.length * 3 < HELD_FROM_BYTES) return 0
  const bytes = Buffer.byteLength(payload)
  return bytes >= HELD_FROM_BYTES ? bytes : 0
}
