/**
 * Requests Node's HTTP parser cannot read (bad bytes in the request line or headers, a head
 * larger than the limit, a client too slow to send its headers or request) never reach the
 * app. This `clientError` handler still answers them with the error envelope before closing the
 * connection, instead of Node's bare status line. The headers were not read, so the format is
 * the default one, XML (docs/protocol.md, negotiation).
 */
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { apiError, type ApiError } from './errors.js'
import { XML_TYPE } from './negotiation.js'
import { xmlDocument } from './xml-writer.js'

export function handleClientError(error: Error & { code?: string }, socket: Duplex & { bytesWritten?: number }): void {
  // Only a connection nothing was written to yet can take an answer; a reset one takes nothing.
  if (error.code === 'ECONNRESET' || !socket.writable || (socket.bytesWritten ?? 0) > 0) {
    socket.destroy()
    return
  }
  const apiErr = catalogueErrorOf(error)
  const status = apiErr.statusCode
  const body = xmlDocument({ servicename: '', errors: [{ status, message: apiErr.message, code: apiErr.code }] })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: ${XML_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  )
}

function catalogueErrorOf(error: Error & { code?: string }): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return apiError('E_HEADERS_TOO_LARGE')
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return apiError('E_REQUEST_TIMEOUT')
    default:
      return apiError('E_BAD_REQUEST', { detail: `the HTTP request is malformed (${error.code ?? error.message})` })
  }
}
