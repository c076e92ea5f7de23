/**
 * The first bytes of a connection on the HTTPS port tell a TLS ClientHello from a plain HTTP
 * request. A TLS record starts with its content type (0x16 for a handshake); an HTTP request
 * starts with a method, which is letters. So the probe reads the first chunk before TLS sees the
 * connection: a letter gets a short 400 that names the https:// URL to use (as nginx does,
 * instead of the empty reply TLS would give; HTTP/2's preface gets HTTP/2's GOAWAY saying the
 * same, http2-refusal.ts), anything else is given back to the socket and handed to TLS, which
 * judges it. A load balancer's PROXY protocol header before those bytes is taken off, and the
 * connection marked as such (proxy-protocol.ts): fleetsim does not read that protocol, and says so.
 */
import type { Socket } from 'node:net'
import { answerAndClose, rawErrorAnswer } from './client-errors.js'
import { http2Refusal, startsWithHttp2Preface } from './http2-refusal.js'
import { proxyHeader, proxyProtocolError, type ProxyVersion } from './proxy-protocol.js'
import { apiError } from '../protocol/errors.js'

export interface ProbeHandlers {
  /**
   * the connection starts like TLS (or at least not like HTTP): hand it to the TLS server;
   * `proxied`: it began with a PROXY protocol header of that version, taken off (proxy-protocol.ts)
   */
  tls(proxied?: ProxyVersion): void
}

/**
 * Waits for the first bytes of `socket` and either answers a plain HTTP request (then closes the
 * connection) or puts the bytes back and calls `handlers.tls`. A load balancer's PROXY protocol
 * header in front of them is taken off first (waiting for the rest of it when it came in pieces),
 * and a plain HTTP request after one is told about the PROXY protocol. A client that closes
 * before sending anything is destroyed; one that sends nothing is the caller's deadline's business.
 */
export function probeFirstBytes(socket: Socket, handlers: ProbeHandlers): void {
  /** bytes of a PROXY protocol header that came in pieces */
  let held: Buffer | undefined
  let proxied: ProxyVersion | undefined
  const stop = () => {
    socket.off('data', onData)
    socket.off('end', onEnd)
  }
  // Keep reading (and dropping) the rest of the request, so closing sends FIN, not a reset that
  // could overtake the answer.
  const answer = (bytes: string | Buffer) => {
    stop()
    socket.resume()
    answerAndClose(socket, bytes)
  }
  const onData = (chunk: Buffer) => {
    let bytes = held === undefined ? chunk : Buffer.concat([held, chunk])
    held = undefined
    if (proxied === undefined) {
      const header = proxyHeader(bytes)
      if (header?.length === 'partial') {
        held = bytes
        return
      }
      if (header?.length === 'malformed') {
        answer(rawErrorAnswer(proxyProtocolError(header.version, socket)))
        return
      }
      if (header !== undefined) {
        proxied = header.version
        bytes = bytes.subarray(header.length)
        // The client's own first bytes are still to come.
        if (bytes.length === 0) return
      }
    }
    if (startsLikeHttp(bytes)) {
      const url = httpsUrl(bytes, socket)
      if (proxied !== undefined) {
        answer(rawErrorAnswer(proxyProtocolError(proxied, socket, url)))
        return
      }
      // An HTTP/2 client with prior knowledge (h2c) reads frames, not an HTTP/1.1 answer.
      const http2 = startsWithHttp2Preface(bytes)
      const error = apiError('E_HTTPS_REQUIRED', { url, ...(http2 ? { http2 } : {}) })
      answer(http2 ? http2Refusal(error) : rawErrorAnswer(error))
      return
    }
    stop()
    socket.pause()
    // TLS reads what is buffered on the socket before its own reads (node:tls, initRead).
    socket.unshift(bytes)
    handlers.tls(proxied)
  }
  const onEnd = () => {
    stop()
    socket.destroy()
  }
  socket.on('data', onData)
  socket.once('end', onEnd)
}

/** An HTTP method is a token of letters; no TLS record type (20 to 24) is one. */
function startsLikeHttp(chunk: Buffer): boolean {
  const first = chunk[requestLineAt(chunk)] ?? 0
  return (first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a)
}

/**
 * Where the request line starts: after the empty lines a client may send before it, which a
 * server ignores (RFC 9112, 2.2), as the HTTP port's parser does. Read as TLS, a request after a
 * CRLF was dropped without an answer.
 */
function requestLineAt(chunk: Buffer): number {
  let at = 0
  while (chunk[at] === 0x0d || chunk[at] === 0x0a) at++
  return at
}

const HOST_NAME = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])$/
/** A path of RFC 3986 characters only (no quotes, angle brackets or spaces). */
const PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/
/** The scheme and authority of an absolute-form request target, up to its path. */
const ABSOLUTE_FORM_ORIGIN = /^https?:\/\/[^/?#]*/i
/** Longest request path echoed in the answer; a longer one is left out. */
const MAX_ECHOED_PATH = 512

/**
 * The https:// URL the client meant: the host name of its Host header (or the address it
 * connected to), the port it connected to, and the path of its request line without the query
 * (which may carry values that do not belong in an error message). Only characters that are
 * safe to show are taken from the request.
 */
function httpsUrl(chunk: Buffer, socket: Socket): string {
  const head = chunk.subarray(requestLineAt(chunk), 8192).toString('latin1')
  const target = /^[A-Za-z]+ (\S+) HTTP\//.exec(head)?.[1] ?? '/'
  // An absolute-form target (`GET http://host:9443/manager/... HTTP/1.1`, as proxies send) keeps its path.
  const pathPart = target.replace(ABSOLUTE_FORM_ORIGIN, '').split(/[?#]/, 1)[0]
  const path = pathPart.length <= MAX_ECHOED_PATH && PATH.test(pathPart) ? pathPart : '/'
  const hostHeader = /\r\nhost:[ \t]*([^\r\n]*)/i.exec(head)?.[1]?.trim() ?? ''
  const hostName = hostHeader.replace(/:\d{1,5}$/, '')
  const local = socket.localAddress ?? '127.0.0.1'
  const host = hostName.length > 0 && hostName.length <= 255 && HOST_NAME.test(hostName) ? hostName : local.includes(':') ? `[${local}]` : local
  const port = socket.localPort === 443 || socket.localPort === undefined ? '' : `:${socket.localPort}`
  return `https://${host}${port}${path}`
}
