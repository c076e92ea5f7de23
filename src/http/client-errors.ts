/**
 * Requests Node's HTTP parser cannot read (bad bytes in the request line or headers, a head
 * larger than the limit, an HTTP version it does not know, a client too slow to send its
 * headers or request) never reach the app. This `clientError` handler still answers them with
 * the error envelope instead of Node's bare status line, after the answers to the requests
 * before them on the connection (afterAnswersBefore), then closes the connection. The
 * headers were not read, so the format is the default one, XML (docs/protocol.md, negotiation).
 * An HTTP/2 client with prior knowledge (its connection preface, `PRI * HTTP/2.0`) reads no
 * HTTP/1.1 answer: it gets HTTP/2's GOAWAY with HTTP_1_1_REQUIRED instead (http2-refusal.ts).
 * A request after a load balancer's PROXY protocol header gets E_PROXY_PROTOCOL (proxy-protocol.ts).
 *
 * CONNECT requests never reach the app either: Node hands them to the server's 'connect'
 * listeners and, without one, closes the connection without a word. `connectHandler` answers
 * them (fleetsim is no proxy).
 *
 * Every other client error (a TLS handshake that failed or timed out, a reset) is a connection
 * HTTP never spoke on: it is destroyed at once. Answering it would write HTTP into a TLS
 * session that never began, which never flushes, so the socket would stay open forever.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { apiError, type ApiError } from '../protocol/errors.js'
import type { Format } from '../protocol/negotiation.js'
import { acceptedFormat, errorDocument } from './error-document.js'
import { http2Refusal } from './http2-refusal.js'
import { proxyHeader, proxyProtocolError, startsWithProxySignature } from './proxy-protocol.js'
import { lingerThenDestroy } from './lingering-close.js'

/**
 * A last answer gets this long to leave before its connection is cut anyway: it is a few
 * hundred bytes, so only a peer that reads nothing at all holds it up.
 */
const LAST_ANSWER_MS = 1000

export function handleClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex & { bytesWritten?: number }): void {
  // The parser stays in error and reports every later read again: the first report is answered.
  if (answering.has(socket)) return
  // Only a connection HTTP reads from can take an answer.
  if (!fromHttpParser(error) || !socket.writable) {
    socket.destroy()
    return
  }
  // An HTTP/2 client with prior knowledge reads frames: it is told in HTTP/2's own terms, before anything else was written.
  if (error.code === 'HPE_PAUSED_H2_UPGRADE') {
    if ((socket.bytesWritten ?? 0) > 0) return void socket.destroy()
    answerAndClose(socket, http2Refusal(apiError('E_HTTP_VERSION', { version: 'HTTP/2.0', preface: true })))
    return
  }
  const answer = rawErrorAnswer(catalogueErrorOf(error, socket))
  answering.add(socket)
  afterAnswersBefore(socket, () => answerAndClose(socket, answer))
}

/** Connections whose malformed or late request is being answered. */
const answering = new WeakSet<Duplex>()

/**
 * Requests Node read on a connection after its error was reported: after a timeout (Node goes on
 * reading; llhttp stops at a parse error), the head it timed out may still come in whole. Such a
 * request is never run (it was refused): the error's answer takes its place (afterAnswersBefore).
 */
const cameAfterError = new WeakSet<IncomingMessage>()

/**
 * Whether `request` came on a connection whose error is being answered; if so it is kept from
 * the app (the request listener calls this first: pipelined.ts) and answered with that error.
 */
export function refusedAfterClientError(request: IncomingMessage): boolean {
  if (!answering.has(request.socket)) return false
  cameAfterError.add(request)
  return true
}

/**
 * Calls `answer` once the answers to the requests before the one in error have left, so that a
 * malformed request pipelined after good ones gets its 400 after their answers, in its place.
 *
 * Node gives a connection's answers its socket one after another: the one being written is
 * `socket._httpMessage` (undocumented; Node's own clientError default reads it to decide the
 * same question). When it finishes, Node's own 'finish' listener, added before this one, has
 * already handed the socket to the next. An answer whose request is not yet complete is the one
 * in error (a malformed chunked body, a body later than --request-timeout): it is replaced by
 * the error answer where none of it was sent, and otherwise its connection is cut, as nothing
 * can be said in the middle of an answer. So is one whose request came after the error
 * (refusedAfterClientError), which never ran. A connection that closes first needs no answer.
 */
function afterAnswersBefore(socket: Duplex, answer: () => void): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
  if (inFlight === null || inFlight === undefined || cameAfterError.has(inFlight.req)) return answer()
  if (!inFlight.req.complete) return inFlight.headersSent ? void socket.destroy() : answer()
  inFlight.once('finish', () => {
    if (!socket.destroyed) afterAnswersBefore(socket, answer)
  })
}

/**
 * The methods fleetsim serves, for the Allow header of a 405 to CONNECT and of the answer to
 * `OPTIONS *` (origin-form.ts): each serves some path, and OPTIONS the server itself.
 */
export const SERVER_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS'

/**
 * CONNECT asks the server for a tunnel to another host, as a proxy gives (a client whose proxy
 * setting names fleetsim, or a proxy client pointed at it). fleetsim is no proxy: the request
 * gets 405 E_CONNECT_NOT_ALLOWED, with Allow naming the methods it serves, in the envelope of
 * the format its accept asks for (XML without one), and the connection is closed.
 */
export function connectHandler(appPath: string): (request: IncomingMessage, socket: Duplex) => void {
  return (request, socket) => {
    // Read (and drop) whatever the client sends on, so closing sends FIN, not a reset.
    socket.on('error', () => undefined)
    socket.resume()
    const format = acceptedFormat(request.headers)
    const error = apiError('E_CONNECT_NOT_ALLOWED', { target: request.url ?? '', appPath })
    answerAndClose(socket, rawErrorAnswer(error, { format, headers: { Allow: SERVER_METHODS } }))
  }
}

/**
 * A whole HTTP/1.1 answer carrying `error` in the envelope, with Connection: close: in XML
 * unless `format` says JSON (the head of such requests was not read), with `headers` besides.
 */
export function rawErrorAnswer(error: ApiError, options: { format?: Format; headers?: Record<string, string> } = {}): string {
  const status = error.statusCode
  const { type, body } = errorDocument(error, options.format)
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: ${type}\r\n`
  for (const [name, value] of Object.entries(options.headers ?? {})) head += `${name}: ${value}\r\n`
  return `${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

/**
 * Sends a last answer and closes the connection: end() sends it and then FIN; once it has left
 * the connection lingers (reading and dropping what the client still sends, lingering-close.ts),
 * and is destroyed after LAST_ANSWER_MS if it never leaves, whatever the peer does. Never left
 * half-open: the HTTP servers allow half-open connections, so end() alone would wait for the
 * client to close its side.
 */
export function answerAndClose(socket: Duplex, answer: string | Buffer): void {
  const timer = setTimeout(() => socket.destroy(), LAST_ANSWER_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
  socket.end(answer, () => {
    clearTimeout(timer)
    lingerThenDestroy(socket)
  })
}

/** llhttp's parse errors (HPE_*) and Node's request timeout come from a connection HTTP reads. */
function fromHttpParser(error: { code?: string }): boolean {
  return error.code !== undefined && (error.code.startsWith('HPE_') || error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
}

function catalogueErrorOf(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): ApiError {
  // A load balancer's PROXY protocol header before the request (proxy-protocol.ts): not a method llhttp knows.
  const proxied = Buffer.isBuffer(error.rawPacket) && startsWithProxySignature(error.rawPacket) ? proxyHeader(error.rawPacket) : undefined
  if (proxied !== undefined) return proxyProtocolError(proxied.version, socket as { remoteAddress?: string })
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return apiError('E_HEADERS_TOO_LARGE', {})
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return apiError('E_REQUEST_TIMEOUT')
    case 'HPE_INVALID_VERSION': {
      const version = versionOf(error.rawPacket)
      // llhttp says the same of a line ending in a bare LF, or with a space after the version:
      // there the version is fine and the line's end is what is wrong.
      if (version === undefined) return apiError('E_BAD_REQUEST', { detail: 'the request line must end with its HTTP version and CRLF, as in `GET /path HTTP/1.1\\r\\n`' })
      return apiError('E_HTTP_VERSION', { version })
    }
    case 'HPE_INVALID_URL':
      if (targetWithoutSlash(error.rawPacket)) {
        return apiError('E_BAD_REQUEST', {
          detail: 'the request target must start with `/` (`GET /manager/mvc/restservice/appinfo.json HTTP/1.1`) or be an absolute URL (`http://host:port/...`) (HPE_INVALID_URL)'
        })
      }
      return apiError('E_BAD_REQUEST', { detail: `${PARSER_ADVICE.HPE_INVALID_URL} (HPE_INVALID_URL)` })
    default: {
      // Over TLS a handshake is no longer what the parser could be reading.
      const overTls = (socket as Duplex & { encrypted?: boolean }).encrypted === true
      const advice = error.code === 'HPE_INVALID_METHOD' && overTls ? UNKNOWN_METHOD : error.code === undefined ? undefined : PARSER_ADVICE[error.code]
      return apiError('E_BAD_REQUEST', { detail: `${advice ?? 'the HTTP request is malformed'} (${error.code ?? error.message})` })
    }
  }
}

/**
 * What Node's HTTP parser (llhttp) refused, said so a client author can fix it: its codes alone
 * (`HPE_INVALID_URL`) named no character, header or line. The code stays in the message.
 */
const UNKNOWN_METHOD = 'the method is not one HTTP defines, in upper case (GET, POST, PUT, DELETE; methods are case-sensitive)'
const PARSER_ADVICE: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: `${UNKNOWN_METHOD}; a TLS handshake sent to a plain HTTP port reads so too: use the http:// URL there`,
  HPE_INVALID_URL:
    'the request target holds a character a URL cannot carry raw (a space, a tab, a control character, or one past ASCII such as in 東京-01): percent-encode it as UTF-8 (%E6%9D%B1…)',
  HPE_INVALID_CONSTANT: 'the request line is not `METHOD /path HTTP/1.1`: a space in the path must be percent-encoded as %20',
  HPE_INVALID_HEADER_TOKEN:
    'a header line is malformed: a name holds a space or a character names cannot, a value holds a control character, or a line is folded onto the next; write each header as `Name: value` on one line',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length is sent twice: send it once',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a number of bytes, or comes with a Transfer-Encoding: send one Content-Length, or Transfer-Encoding: chunked alone',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding does not end with chunked (once: chunked twice is not), or comes with a Content-Length: send Transfer-Encoding: chunked alone, or a Content-Length alone',
  HPE_INVALID_CHUNK_SIZE: 'a chunk of the chunked body does not start with its size in hexadecimal digits and CRLF',
  HPE_CR_EXPECTED: 'a line ends with a bare LF or CR: HTTP lines end with CRLF (\\r\\n)',
  HPE_LF_EXPECTED: 'a line ends with a bare CR: HTTP lines end with CRLF (\\r\\n)',
  HPE_STRICT: 'a line ends with a bare LF or CR (HTTP lines end with CRLF, \\r\\n), or a chunk of the body is longer than its size says'
}

/**
 * Whether the request line's target is empty or starts with neither `/`, a scheme nor `*` (`GET
 * manager/... HTTP/1.1`): llhttp calls that an invalid URL, as it does a raw space or byte past ASCII.
 */
function targetWithoutSlash(rawPacket: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket)) return false
  const line = rawPacket.subarray(0, 1024).toString('latin1').split('\n', 1)[0]
  const target = /^[A-Z]+ (\S*)/.exec(line)?.[1]
  return target !== undefined && (target === '' || !/^(\/|\*|[A-Za-z][A-Za-z0-9+.-]*:\/\/)/.test(target))
}

/**
 * The version part of the request line llhttp refused, for the message (`HTTP/1.2`); `unreadable`
 * where there is none to show; undefined where the version is 1.0 or 1.1 and so not the problem
 * (a bare LF or a space at the line's end).
 */
function versionOf(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return 'unreadable'
  const line = rawPacket.subarray(0, 1024).toString('latin1').split('\n', 1)[0]
  const found = / (HTTP\/[0-9A-Za-z.]{1,8})( *)(\r?)$/.exec(line)
  if (found === null) return 'unreadable'
  const [, version, spaces, cr] = found
  if ((version === 'HTTP/1.1' || version === 'HTTP/1.0') && (spaces !== '' || cr === '')) return undefined
  return version
}
