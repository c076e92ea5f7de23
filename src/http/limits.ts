/**
 * Request limits the app enforces itself, so that past them the client gets a catalogue error
 * in its format rather than a bare status from Node's parser:
 * - the query string length (`maxQueryLength`, 414), checked before anything else reads it;
 * - the request head: at most MAX_HEADER_FIELDS header fields (431; Node keeps one more than
 *   that, see src/server.ts, where it used to drop the fields past its own limit in silence), an
 *   HTTP/1.1 request must carry a Host header, no request may carry two (400), and the version
 *   must be HTTP/1.0 or 1.1 (505; llhttp refuses most others itself, but reads HTTP/0.9 and
 *   HTTP/2.0 request lines, see client-errors.ts);
 * - requests on a connection the server marked as beyond `--max-connections` (503, with
 *   `Retry-After` and `Connection: close`, so the connection goes away after the answer).
 *
 * The body size (413) is fastify's `bodyLimit` and the list size (400) the validator's; the
 * timeouts and the connection count are the server's (src/server.ts, docs/limits.md).
 */
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { apiError, shown, type ApiError } from '../protocol/errors.js'
import { describeUnrouted } from './unrouted.js'
import '../protocol/request-context.js'

/**
 * The most header fields a request may have: Node's own default (its maxHeadersCount), past
 * which it dropped the rest without a word (REST_USER and REST_PASSWORD among them, so the
 * client got a 401). The server keeps one field more (src/server.ts), so a request over the
 * limit can be told from one at it; Node keeps no count beyond that.
 */
export const MAX_HEADER_FIELDS = 1000

/** Set on a socket the server accepted beyond its connection limit (see markConnections). */
export const OVER_LIMIT: unique symbol = Symbol('fleetsim.overConnectionLimit')

type MarkedSocket = Socket & { [OVER_LIMIT]?: number }

/** The --max-connections limit a connection is over (see markConnections), or undefined. */
export function connectionOverLimit(socket: Socket | null): number | undefined {
  return (socket as MarkedSocket | null)?.[OVER_LIMIT]
}

export interface LimitOptions {
  maxQueryLength: number
}

export function registerLimits(app: FastifyInstance, options: LimitOptions): void {
  const { maxQueryLength } = options
  app.addHook('onRequest', function checkLimits(request, reply, done) {
    const url = request.url
    const question = url.indexOf('?')
    const queryLength = question === -1 ? 0 : url.length - question - 1
    const connectionLimit = connectionOverLimit(request.raw.socket)
    const head = headError(request.raw)
    if (queryLength <= maxQueryLength && connectionLimit === undefined && head === undefined) {
      done()
      return
    }
    // App-level hooks run before the route's own, so name the operation and pick the format
    // here for the error envelope.
    describeUnrouted(request)
    if (connectionLimit !== undefined) {
      reply.header('retry-after', '1').header('connection', 'close')
      done(apiError('E_TOO_MANY_CONNECTIONS', { limit: connectionLimit }))
      return
    }
    if (head !== undefined) {
      // A client that speaks another HTTP version will not read this connection's next answer
      // either; and with a Transfer-Encoding not read here, where the body ends is not known (RFC
      // 9112 6.3): Node closes the connection after the answer, which now says so.
      if (head.code === 'E_HTTP_VERSION' || request.headers['transfer-encoding'] !== undefined) reply.header('connection', 'close')
      done(head)
      return
    }
    done(apiError('E_QUERY_TOO_LONG', { length: queryLength, limit: maxQueryLength }))
  })
}

/**
 * What is wrong with the request line and headers the parser read, or undefined: more than
 * MAX_HEADER_FIELDS header fields, a version other than 1.0 and 1.1, a missing Host on HTTP/1.1
 * (Node's own check of this answers a bare 400, so the servers leave it to the app:
 * requireHostHeader false), or two Host headers (Node keeps the first in `headers`; which one a
 * proxy in front used is anyone's guess).
 */
export function headError(request: IncomingMessage): ApiError | undefined {
  if (request.rawHeaders.length > MAX_HEADER_FIELDS * 2) return apiError('E_HEADERS_TOO_LARGE', { fields: MAX_HEADER_FIELDS })
  const version = request.httpVersion
  if (version !== '1.1' && version !== '1.0') return apiError('E_HTTP_VERSION', { version: `HTTP/${version}` })
  if (request.headers.host === undefined) {
    return version === '1.1' ? apiError('E_BAD_REQUEST', { detail: 'an HTTP/1.1 request needs a Host header' }) : undefined
  }
  const hosts = headerCount(request.rawHeaders, 'host')
  if (hosts > 1) return apiError('E_DUPLICATE_HOST', { count: hosts })
  // Node keeps the first of two Content-Types: a body read by one the client may not have meant is
  // refused instead (RFC 9110 5.3: a field of one value). The same type twice (curl given it twice) is one.
  const types = contentTypesDiffer(request.rawHeaders)
  if (types !== undefined) return apiError('E_BAD_REQUEST', { detail: `the request has Content-Type headers that differ (${types}): send exactly one` })
  // RFC 9112 3.2: a Host that is not `host[:port]` is refused. It is copied into every answer's links.
  if (!HOST.test(request.headers.host)) return apiError('E_BAD_REQUEST', { detail: `the Host header ${shown(request.headers.host)} is not a host name or address with an optional port` })
  // RFC 9110 4.2.1: an http URI has a host; the Host is copied into links, which would read `http://:80/…`.
  if (request.headers.host.startsWith(':')) {
    return apiError('E_BAD_REQUEST', { detail: `the Host header ${shown(request.headers.host)} has a port and no host: send host[:port], such as 127.0.0.1:9443` })
  }
  // RFC 3986 lets a port be any digits; a TCP port is 1 to 65535, and the Host is copied into links a client follows.
  const port = HOST_PORT.exec(request.headers.host)?.[1]
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= MAX_PORT)) {
    const said = port.length <= 12 ? port : `${port.slice(0, 12)}… (${port.length} digits)`
    return apiError('E_BAD_REQUEST', { detail: `the Host header ${shown(request.headers.host)} has port ${said}: a port is 1 to ${MAX_PORT}` })
  }
  // RFC 9112 3.2: a request target has no fragment. llhttp passes a `#` on, where it would be read
  // as part of the last value (`agentname=web#2` asked for "web#2"): the client sent a URL's fragment,
  // or meant a `#` in a value and did not percent-encode it.
  if (request.url !== undefined && request.url.includes('#')) {
    return apiError('E_BAD_REQUEST', { detail: 'the request target holds "#": a URL\'s #fragment is not sent to a server, and a "#" within a value is sent percent-encoded, as %23' })
  }
  // llhttp frames `gzip, chunked` as chunked and hands the body over still gzipped: only chunked alone is read.
  const coding = request.headers['transfer-encoding']
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') {
    return apiError('E_BAD_REQUEST', { detail: `Transfer-Encoding ${shown(coding)} is not read here: send the body with Content-Length, or with Transfer-Encoding: chunked alone` })
  }
  return undefined
}

/** `uri-host [":" port]` (RFC 3986): an IP literal in brackets, or a name of unreserved, sub-delims and %-escapes; empty is Node's to judge. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::[0-9]*)?$/
/** The port of a Host HOST takes: the digits after its last colon, outside an IP literal's brackets. */
const HOST_PORT = /:([0-9]+)$/
const MAX_PORT = 65_535

/** The Content-Type headers' values, shown, if they are not all the same type (case and spaces aside); else undefined. */
function contentTypesDiffer(rawHeaders: readonly string[]): string | undefined {
  let first: string | undefined
  let differ = false
  // Nothing is made for a request of one Content-Type or none: this runs on every request.
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (!isContentType(rawHeaders[index])) continue
    const type = rawHeaders[index + 1].replace(/\s+/g, '').toLowerCase()
    if (first === undefined) first = type
    else if (type !== first) differ = true
  }
  if (!differ) return undefined
  const values: string[] = []
  for (let index = 0; index < rawHeaders.length; index += 2) if (isContentType(rawHeaders[index])) values.push(shown(rawHeaders[index + 1]))
  return values.join(', ')
}

const isContentType = (name: string) => name.length === 12 && name.toLowerCase() === 'content-type'

/** How many headers named `lowerName` (in lower case) the request carries. */
function headerCount(rawHeaders: readonly string[], lowerName: string): number {
  let count = 0
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) count++
  }
  return count
}

/**
 * Counts the open connections of a server (`event`: 'connection' for HTTP, 'secureConnection'
 * for HTTPS, whose requests arrive on the TLS socket) and marks those beyond `max`: their
 * requests get E_TOO_MANY_CONNECTIONS. Beyond twice the limit new connections are refused
 * outright (Node's `maxConnections` closes them at accept).
 */
export function markConnections(
  server: { on(event: string, listener: (socket: Socket) => void): unknown; maxConnections: number },
  event: 'connection' | 'secureConnection',
  max: number
): void {
  let open = 0
  server.maxConnections = max * 2
  server.on(event, (socket) => {
    open++
    if (open > max) (socket as MarkedSocket)[OVER_LIMIT] = max
    socket.once('close', () => open--)
  })
}
