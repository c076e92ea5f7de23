import type { IncomingHttpHeaders } from 'node:http'

/**
 * Whether a request's head says a body follows: a Transfer-Encoding, or a Content-Length other
 * than 0 (as Node's parser reads it: `00` is none).
 */
export function announcesBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length']
  return headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0)
}
