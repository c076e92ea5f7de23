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
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { domainToASCII } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { apiError, shown, type ApiError } from '../protocol/errors.js'
import { describeUnrouted } from './unrouted.js'
import { hostFromTarget } from './origin-form.js'
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

/**
 * A request asking to switch protocols (`Connection: upgrade` and `Upgrade`: a WebSocket, h2c).
 * fleetsim answers it as any other (RFC 9110 7.8 lets a server ignore Upgrade), but Node's parser
 * reads nothing more of its connection after it: requests pipelined behind it would wait unanswered
 * until the connection timed out. Its answer closes the connection instead, which tells the client
 * to send them again on another.
 */
function upgradeAsked(headers: IncomingHttpHeaders): boolean {
  return headers.upgrade !== undefined && /(?:^|,)\s*upgrade\s*(?:,|$)/i.test(headers.connection ?? '')
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
      if (upgradeAsked(request.headers)) reply.header('connection', 'close')
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
 * requireHostHeader false), two Host headers or Content-Types that differ (repeatedHeader), a
 * Host that cannot go into links (hostError), a target with a `#`, a transfer coding not read.
 */
export function headError(request: IncomingMessage): ApiError | undefined {
  if (request.rawHeaders.length > MAX_HEADER_FIELDS * 2) return apiError('E_HEADERS_TOO_LARGE', { fields: MAX_HEADER_FIELDS })
  const version = request.httpVersion
  if (version !== '1.1' && version !== '1.0') return apiError('E_HTTP_VERSION', { version: `HTTP/${version}` })
  if (request.headers.host === undefined) {
    return version === '1.1' ? apiError('E_BAD_REQUEST', { detail: 'an HTTP/1.1 request needs a Host header' }) : undefined
  }
  const twice = repeatedHeader(request.rawHeaders)
  if (twice !== undefined) return twice
  const badHost = hostError(request, request.headers.host)
  if (badHost !== undefined) return badHost
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
const HOST_PARTS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::([0-9]*))?$/
const MAX_PORT = 65_535

/**
 * A Host refused (RFC 9112 3.2), as it is copied into every answer's links: one that is not
 * `host[:port]`, one with a port and no host (RFC 9110 4.2.1: an http URI has a host; links would
 * read `http://:80/…`), and one whose port is 0 or past 65535 (RFC 3986 lets a port be any digits).
 */
function hostError(request: IncomingMessage, host: string): ApiError | undefined {
  const parts = HOST_PARTS.exec(host)
  if (parts === null && PAST_ASCII.test(host)) return hostPastAscii(request, host)
  if (parts === null) return apiError('E_BAD_REQUEST', { detail: `${hostNamed(request)} ${shown(host)} is not a host name or address with an optional port` })
  const [, name, port] = parts
  if (port === undefined || port === '') return undefined
  if (name === '') return apiError('E_BAD_REQUEST', { detail: `${hostNamed(request)} ${shown(host)} has a port and no host: send host[:port], such as 127.0.0.1:9443` })
  if (Number(port) >= 1 && Number(port) <= MAX_PORT) return undefined
  const said = port.length <= 12 ? port : `${port.slice(0, 12)}… (${port.length} digits)`
  return apiError('E_BAD_REQUEST', { detail: `${hostNamed(request)} ${shown(host)} has port ${said}: a port is 1 to ${MAX_PORT}` })
}

const PAST_ASCII = /[\u0080-\uffff]/

/**
 * A Host holding bytes past ASCII, as a client that sends an international name as it is writes
 * it: Node reads a header one character a byte, so the message showed the UTF-8 as Latin-1
 * (`bÃ¼cher`). It shows the name as the UTF-8 sent and the ASCII form (IDNA) to send instead.
 */
function hostPastAscii(request: IncomingMessage, host: string): ApiError {
  const text = Buffer.from(host, 'latin1').toString('utf8')
  const port = /:[0-9]*$/.exec(text)?.[0] ?? ''
  const ascii = domainToASCII(text.slice(0, text.length - port.length))
  const send = ascii === '' ? 'a name past ASCII in its ASCII form (IDNA, xn--…)' : `its ASCII form (IDNA), ${ascii}${port}`
  return apiError('E_BAD_REQUEST', { detail: `${hostNamed(request)} ${shown(text)} holds characters past ASCII, which a host name does not: send ${send}` })
}

/** What a refused Host is called: the authority of an absolute-form target replaced the header (origin-form.ts). */
function hostNamed(request: IncomingMessage): string {
  return hostFromTarget.has(request) ? 'the authority of the request target' : 'the Host header'
}

/**
 * Two Host headers (Node keeps the first in `headers`; which one a proxy in front used is anyone's
 * guess), or Content-Type headers that differ (Node keeps the first: a body read by a type the
 * client may not have meant; RFC 9110 5.3, a field of one value). The same type twice (curl given
 * it twice) is one. One pass over the raw headers, nothing made unless refused: this runs on
 * every request.
 */
function repeatedHeader(rawHeaders: readonly string[]): ApiError | undefined {
  let hosts = 0
  let type: string | undefined
  let typesDiffer = false
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++
    else if (isContentType(name)) {
      const value = rawHeaders[index + 1]
      if (type === undefined) type = value
      else if (value !== type && sameType(value) !== sameType(type)) typesDiffer = true
    }
  }
  if (hosts > 1) return apiError('E_DUPLICATE_HOST', { count: hosts })
  if (!typesDiffer) return undefined
  const types: string[] = []
  for (let index = 0; index < rawHeaders.length; index += 2) if (isContentType(rawHeaders[index])) types.push(shown(rawHeaders[index + 1]))
  return apiError('E_BAD_REQUEST', { detail: `the request has Content-Type headers that differ (${types.join(', ')}): send exactly one` })
}

const isContentType = (name: string) => name.length === 12 && name.toLowerCase() === 'content-type'
/** A Content-Type as compared: case and white space aside. */
const sameType = (value: string) => value.replace(/\s+/g, '').toLowerCase()

/**
 * Counts the open connections of a server (`event`: 'connection' for HTTP, 'secureConnection'
 * for HTTPS, whose requests arrive on the TLS socket) and marks those beyond `max`, unless
 * `reclaimIdle` closes a connection idle between requests to make room (connections.ts): their
 * requests get E_TOO_MANY_CONNECTIONS. Before, clients that each kept a connection open after
 * one request (a pool, a health checker from a few addresses) held every place until the
 * keep-alive timeout, and a client that asked again within it held them for good. Beyond twice
 * the limit new connections are refused outright (Node's `maxConnections` closes them at accept).
 */
export function markConnections(
  server: { on(event: string, listener: (socket: Socket) => void): unknown; maxConnections: number },
  event: 'connection' | 'secureConnection',
  max: number,
  reclaimIdle: () => boolean
): void {
  let open = 0
  server.maxConnections = max * 2
  server.on(event, (socket) => {
    open++
    if (open > max && !reclaimIdle()) (socket as MarkedSocket)[OVER_LIMIT] = max
    socket.once('close', () => open--)
  })
}
