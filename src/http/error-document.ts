/**
 * The error envelope of an answer made outside fastify (client-errors.ts, tls-probe.ts,
 * proxy-protocol.ts, http2-refusal.ts): `{servicename: "", errors: [{status, message, code}]}`,
 * as the app's error handler writes it, in XML (the default format, for requests whose headers
 * were not read) or JSON.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import type { ApiError } from '../protocol/errors.js'
import { JSON_TYPE, XML_TYPE, negotiate, type Format } from '../protocol/negotiation.js'
import { xmlDocument } from './xml-writer.js'

export function errorDocument(error: ApiError, format: Format = 'xml'): { type: string; body: string } {
  const status = error.statusCode
  const envelope = { servicename: '', errors: [{ status, message: error.message, code: error.code }] }
  return format === 'json' ? { type: JSON_TYPE, body: JSON.stringify(envelope) } : { type: XML_TYPE, body: xmlDocument(envelope) }
}

/** The format a request's accept asks for, as the routes negotiate it without a suffix or a body; XML without one. */
export function acceptedFormat(headers: IncomingHttpHeaders): Format {
  return negotiate(undefined, headers.accept, undefined) ?? 'xml'
}

/** Answers `error` in the envelope of the format the request's accept asks for (acceptedFormat), and closes the connection. */
export function sendErrorAndClose(headers: IncomingHttpHeaders, response: ServerResponse, error: ApiError): void {
  const { type, body } = errorDocument(error, acceptedFormat(headers))
  response.writeHead(error.statusCode, { connection: 'close', 'content-type': type, 'content-length': Buffer.byteLength(body) })
  response.end(body)
}
