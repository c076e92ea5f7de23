/**
 * When a server's response is over, whichever way: its own 'close' (sent, or cut off while it
 * was being sent), or the close of its connection for a response that never had it.
 *
 * Why the second: node answers pipelined requests in order, queueing each response behind the
 * one being sent; when the client leaves, the responses still queued are dropped without a
 * 'close' of their own (node 20). A count kept by 'close' alone (requests in flight) went up by
 * one for each and never came down.
 */
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** The responses of a connection not yet over, each by the callback that ends it: one 'close' listener per connection, however many are queued. */
const pendingByConnection = new WeakMap<Socket, Set<() => void>>()

/** Calls `done` once, when `response` (on `connection`) is over. */
export function onResponseDone(response: ServerResponse, connection: Socket, done: () => void): void {
  // Already over: its 'close' (or its connection's) came before this was asked, and does not come again.
  if (response.destroyed || connection.destroyed) return done()
  let pending = pendingByConnection.get(connection)
  if (pending === undefined) {
    const responses = new Set<() => void>()
    pendingByConnection.set(connection, responses)
    connection.once('close', () => {
      for (const end of responses) end()
    })
    pending = responses
  }
  const responses = pending
  const end = () => {
    if (!responses.delete(end)) return
    response.off('close', end)
    done()
  }
  responses.add(end)
  response.once('close', end)
}
