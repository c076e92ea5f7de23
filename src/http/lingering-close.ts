/**
 * Closing a connection whose client is still sending without losing the last answer: the rest
 * of a body refused with 413 by its Content-Length, a head refused with 431, bytes behind a
 * request the parser could not read.
 *
 * A socket closed with bytes in its receive buffer, or that receives bytes after it closed, is
 * answered by the kernel with a reset (RST), not FIN. A reset that reaches the client before it
 * has read the answer makes its TCP stack drop the answer: the client sees EPIPE or "connection
 * reset" and never learns why. A 413 to an upload of 5 MB or more was lost so in about half of
 * the tries with Node's own client, every time over TLS from a raw socket.
 *
 * So, as nginx's lingering close does: the answer is sent and followed by FIN (end()), then what
 * the client still sends is read and dropped until it closes its side, or LINGER_IDLE_MS pass
 * with nothing from it, or LINGER_MS in all; only then is the socket destroyed. A request read
 * from a lingering connection is never run (isLingering, pipelined.ts): its answer could not be
 * sent.
 */
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** Longest a connection lingers after its last answer: enough for a client to notice the answer and stop sending. */
const LINGER_MS = 5000
/** A lingering connection whose client sent nothing for this long is closed. */
const LINGER_IDLE_MS = 1000

const lingering = new WeakSet<Duplex>()

/** Whether the connection is closing after its last answer: requests read from it now are not run. */
export function isLingering(socket: Duplex | null): boolean {
  return socket !== null && lingering.has(socket)
}

/**
 * After the last answer has left (and FIN with it): reads and drops what the client still sends
 * until it closes its side, sends nothing for LINGER_IDLE_MS, or LINGER_MS pass; then destroys.
 */
export function lingerThenDestroy(socket: Duplex): void {
  if (socket.destroyed) return
  if (socket.readableEnded) return void socket.destroy()
  lingering.add(socket)
  const done = () => {
    clearTimeout(total)
    clearTimeout(idle)
    socket.destroy()
  }
  const total = setTimeout(done, LINGER_MS)
  const idle = setTimeout(done, LINGER_IDLE_MS)
  total.unref()
  idle.unref()
  socket.on('data', () => idle.refresh())
  socket.once('end', done)
  socket.once('close', done)
  socket.on('error', () => undefined)
  socket.resume()
}

/**
 * Makes Node's own close of the connection after an answer with `Connection: close`
 * (socket.destroySoon, from the HTTP server when the answer is the connection's last) linger:
 * for an answer sent before its request's body came in whole.
 */
export function lingerWhenClosed(socket: Socket): void {
  socket.destroySoon = function lingeringDestroySoon(this: Socket): void {
    if (this.writable) this.end()
    if (this.writableFinished) lingerThenDestroy(this)
    else this.once('finish', () => lingerThenDestroy(this))
  }
}
