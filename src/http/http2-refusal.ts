/**
 * The refusal an HTTP/2 client with prior knowledge can read. Such a client (curl
 * --http2-prior-knowledge, gRPC, h2c load balancers) opens the connection with HTTP/2's preface,
 * `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, and from then on reads frames: an HTTP/1.1 status line is
 * garbage to it ("Error in the HTTP2 framing layer"). So fleetsim, which speaks HTTP/1.1 only,
 * answers in HTTP/2's own terms: the server's preface (an empty SETTINGS frame), then GOAWAY
 * with the error code HTTP_1_1_REQUIRED (RFC 9113, section 7: "the endpoint requires that
 * HTTP/1.1 be used instead of HTTP/2"), no stream processed, and as its debug data the error
 * envelope in XML, as every answer to a request the app never saw. Clients report the code
 * (curl -v: `received GOAWAY, error=13`), Node's and Go's HTTP/2 clients the debug data too.
 */
import type { ApiError } from '../protocol/errors.js'
import { errorDocument } from './error-document.js'

/** What every HTTP/2 connection with prior knowledge starts with (RFC 9113, section 3.4). */
export const HTTP2_PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'

const SETTINGS = 0x4
const GOAWAY = 0x7
/** RFC 9113, section 7. */
export const HTTP_1_1_REQUIRED = 0xd

/** Whether `bytes` begin like HTTP/2's preface (the request line is enough to tell). */
export function startsWithHttp2Preface(bytes: Buffer): boolean {
  return bytes.subarray(0, 16).toString('latin1').startsWith('PRI * HTTP/2.0')
}

/** The server's empty SETTINGS frame and a GOAWAY (HTTP_1_1_REQUIRED) carrying `error` in the XML envelope. */
export function http2Refusal(error: ApiError): Buffer {
  const envelope = Buffer.from(errorDocument(error).body, 'utf8')
  // GOAWAY's payload: the last stream processed (none), the error code, the debug data.
  const goaway = Buffer.alloc(8)
  goaway.writeUInt32BE(0, 0)
  goaway.writeUInt32BE(HTTP_1_1_REQUIRED, 4)
  return Buffer.concat([frame(SETTINGS, Buffer.alloc(0)), frame(GOAWAY, Buffer.concat([goaway, envelope]))])
}

/** One frame on stream 0, without flags: 24-bit length, type, flags, stream id, payload. */
function frame(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9)
  head.writeUIntBE(payload.length, 0, 3)
  head[3] = type
  head[4] = 0
  head.writeUInt32BE(0, 5)
  return Buffer.concat([head, payload])
}
