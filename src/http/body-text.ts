/**
 * A request body's bytes read as text in the charset its Content-Type declares: UTF-8 when it
 * declares none (JSON has no other), ISO-8859-1 when it says so. Bytes that are not valid in it
 * are refused rather than read as U+FFFD: an XML body declared ISO-8859-1 made the agent
 * `caf\uFFFD` out of `café`, and nothing said so.
 */
import { isUtf8 } from 'node:buffer'
import { apiError } from '../protocol/errors.js'

const UTF8 = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii'])
const LATIN1 = new Set(['iso-8859-1', 'latin1', 'l1', 'iso8859-1', 'iso_8859-1'])
/** What the message offers instead of a charset it does not read. */
export const READ_CHARSETS = ['utf-8', 'iso-8859-1']

/** The `charset` parameter of a Content-Type, lower case and unquoted; undefined when there is none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '')
  return match === null ? undefined : match[2].toLowerCase()
}

export function bodyText(bytes: Buffer, contentType: string | undefined): string {
  const charset = charsetOf(contentType)
  if (charset !== undefined && LATIN1.has(charset)) return bytes.toString('latin1')
  if (charset !== undefined && !UTF8.has(charset)) throw apiError('E_UNSUPPORTED_CHARSET', { charset, supported: READ_CHARSETS })
  if (!isUtf8(bytes)) throw apiError('E_BODY_ENCODING', { at: firstBadByte(bytes) })
  return bytes.toString('utf8')
}

/**
 * Where the first byte that breaks UTF-8's structure is: a continuation byte without a lead, or
 * a lead without its continuations. Undefined when the structure holds and the fault is finer
 * (an overlong form, a surrogate): isUtf8 found it, the message then gives no position.
 */
function firstBadByte(bytes: Buffer): number | undefined {
  for (let at = 0; at < bytes.length; ) {
    const lead = bytes[at]
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0
    if (length === 0) return at
    for (let k = 1; k < length; k++) if (at + k >= bytes.length || (bytes[at + k] & 0xc0) !== 0x80) return at
    at += length
  }
  return undefined
}
