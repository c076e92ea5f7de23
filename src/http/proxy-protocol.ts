/**
 * The PROXY protocol: a load balancer with it switched on (HAProxy's `send-proxy` or
 * `send-proxy-v2`, an AWS NLB target group's `proxy_protocol_v2.enabled`, …) sends, before the
 * client's first byte, a header with the client's address: a text line in version 1
 * (`PROXY TCP4 192.0.2.1 198.51.100.1 51234 443\r\n`), a binary block in version 2 (a 12-byte
 * signature, 4 bytes of version, command, family and length, then the addresses).
 *
 * fleetsim does not read it. Without this module such a connection was judged by its first
 * bytes as if they were the client's: plain HTTP on the HTTPS port (version 1 is letters), TLS
 * that failed at once (version 2), a bad request on the HTTP port. Now it is told plainly:
 * 400 `E_PROXY_PROTOCOL`, saying to turn the PROXY protocol off in the load balancer.
 * - On the HTTPS port (tls-probe.ts) the header is taken off and the client's own bytes judged:
 *   plain HTTP gets the 400 at once; TLS goes on, and every request on that connection gets the
 *   400 over TLS (`refuseProxiedRequests`), the one place the client behind the balancer can
 *   read it (connections.ts carries the mark from the TCP socket to the TLS one).
 * - On the HTTP port Node's parser refuses the header (client-errors.ts), and the client-error
 *   handler answers the 400 as the raw answer it sends to every request it cannot read.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { apiError, type ApiError } from '../protocol/errors.js'
import { sendErrorAndClose } from './error-document.js'

export type ProxyVersion = 1 | 2

/** What the first bytes of a connection hold. */
export type ProxyHeader =
  /** a whole header, of `length` bytes */
  | { version: ProxyVersion; length: number }
  /** the beginning of one: more bytes are needed to know its end */
  | { version: ProxyVersion; length: 'partial' }
  /** the beginning of one whose end never came where it must (a version 1 line over 107 bytes) */
  | { version: ProxyVersion; length: 'malformed' }

const V1_PREFIX = Buffer.from('PROXY ', 'latin1')
/** Version 1's longest line, CRLF included (the specification's bound). */
const V1_MAX_BYTES = 107
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a])
/** Signature, version and command, family, and the 16-bit length of what follows. */
const V2_FIXED_BYTES = 16

/** Whether `bytes` begin with all of `prefix`, or are shorter and begin as it does. */
function beginsAs(bytes: Buffer, prefix: Buffer): 'whole' | 'partial' | false {
  const compared = Math.min(bytes.length, prefix.length)
  if (bytes.subarray(0, compared).compare(prefix, 0, compared) !== 0) return false
  return compared === prefix.length ? 'whole' : 'partial'
}

/** The PROXY protocol header `bytes` (a connection's first) begin with, or undefined when they do not. */
export function proxyHeader(bytes: Buffer): ProxyHeader | undefined {
  const v1 = beginsAs(bytes, V1_PREFIX)
  if (v1 !== false) {
    if (v1 === 'partial') return { version: 1, length: 'partial' }
    const end = bytes.subarray(0, V1_MAX_BYTES).indexOf('\r\n')
    if (end !== -1) return { version: 1, length: end + 2 }
    return { version: 1, length: bytes.length < V1_MAX_BYTES ? 'partial' : 'malformed' }
  }
  const v2 = beginsAs(bytes, V2_SIGNATURE)
  if (v2 === false) return undefined
  if (v2 === 'partial' || bytes.length < V2_FIXED_BYTES) return { version: 2, length: 'partial' }
  const length = V2_FIXED_BYTES + bytes.readUInt16BE(14)
  return { version: 2, length: bytes.length >= length ? length : 'partial' }
}

/** Whether `bytes` begin with the whole of a PROXY protocol header's signature (`PROXY ` or version 2's 12 bytes), however much of the rest came. */
export function startsWithProxySignature(bytes: Buffer): boolean {
  return beginsAs(bytes, V1_PREFIX) === 'whole' || beginsAs(bytes, V2_SIGNATURE) === 'whole'
}

/**
 * The 400 for a connection that began with a PROXY protocol header, from the socket that
 * carried it (its peer is the load balancer); `httpsUrl` when what followed the header was plain
 * HTTP on the HTTPS port.
 */
export function proxyProtocolError(version: ProxyVersion, socket: { remoteAddress?: string }, httpsUrl?: string): ApiError {
  const from = socket.remoteAddress
  return apiError('E_PROXY_PROTOCOL', { version, ...(from === undefined ? {} : { from }), ...(httpsUrl === undefined ? {} : { httpsUrl }) })
}

/** Set on a TLS socket whose TCP connection began with a PROXY protocol header: its version. */
const PROXIED: unique symbol = Symbol('fleetsim.proxyProtocol')
type MarkedSocket = Socket & { [PROXIED]?: ProxyVersion }

export function markProxied(socket: Socket, version: ProxyVersion): void {
  ;(socket as MarkedSocket)[PROXIED] = version
}

/**
 * The request listener to serve with: `handler`, except on a connection marked by markProxied,
 * whose requests get 400 E_PROXY_PROTOCOL (in the format their accept asks for, XML without
 * one) with Connection: close.
 */
export function refuseProxiedRequests(handler: RequestListener): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const version = (request.socket as MarkedSocket)[PROXIED]
    if (version === undefined) return handler(request, response)
    sendErrorAndClose(request.headers, response, proxyProtocolError(version, request.socket))
  }
}
