/**
 * Pipelined requests, one at a time: a request that came on a connection while an earlier
 * answer on it is still being written waits until every earlier answer has finished.
 *
 * Why: Node calls the request listener for every request a read brought, at once, and queues
 * their answers in order. A client pipelining a write and then a read (stopagent, then agentinfo)
 * had the read answered before the write was applied (the fast path answers at once, fastify's
 * hooks are asynchronous): RFC 9112 §9.3.2 allows pipelined requests to be processed in parallel
 * only when they are all safe. And every queued request built its answer while the client read
 * none: 100 pipelined lists of 2,000 agents held about 200 MB. One at a time, a connection holds
 * one answer being written and the requests after it, whose answers are not begun.
 *
 * How: Node gives a response its socket (ServerResponse.assignSocket, which emits 'socket') once
 * the answers before it on the connection have finished; until then `response.socket` is null.
 * A request whose response has its socket is handled at once, as nearly every request is.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { refusedAfterClientError } from './client-errors.js'
import { isLingering } from './lingering-close.js'

export function oneAtATime(listener: RequestListener): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    // Read after its connection's error (a head completed after --headers-timeout): never run, the error answers it.
    if (refusedAfterClientError(request)) return
    // Read while its connection closes after a last answer: its own answer could not be sent.
    if (isLingering(request.socket)) return
    if (response.socket !== null) return listener(request, response)
    // The connection closing first never gives it the socket: the request is dropped with it, unanswered, as its client is gone.
    response.once('socket', () => listener(request, response))
  }
}
