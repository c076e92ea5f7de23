/**
 * What the journal keeps of a request's or an answer's body: its first `--journal-body-bytes`
 * bytes as text, cut on a UTF-8 character boundary, with the length the body had and whether
 * it was cut, and the values of fields that look like credentials replaced.
 *
 * Why a bounded beginning: a client author reading the journal wants to see what was sent and
 * answered, but a body may be a megabyte (a request within --body-limit, a list of a million
 * agents), and the journal is bounded in bytes (journal-bounds.ts). The text kept is charged
 * to the entry (bodyCharge), so --journal-max-bytes still holds.
 *
 * Cost: never more than the cap is encoded or copied. A text short enough to fit whatever its
 * characters is kept as it is (no copy); a longer one has its first `cap` characters encoded
 * (at least `cap` bytes, since no character takes less than one) and cut there.
 *
 * Credentials: a request body is searched for fields named like credentials (a few µs a KiB:
 * case-blind names are slow to match, but bodies come with writes, not with the polling that
 * makes the hot path). An answer is searched only when its request sent such a name, in its
 * query or body (sentCredentials): fleetsim's answers have no such fields of their own, and
 * repeat a request's credentials only where they echo it (the self link repeats the query).
 */
import type { KeptBody } from './entry.js'
import { CREDENTIAL_KEY, CREDENTIAL_KEYS, isCredentialKey, parseQuery } from './rules.js'

export type { KeptBody }

export { DEFAULT_BODY_BYTES, MAX_BODY_BYTES } from './journal-bounds.js'

/** What a KeptBody holds besides its text (the object and its two numbers). */
export const KEPT_BODY_BYTES = 64

/** A UTF-16 code unit takes at most this many UTF-8 bytes (a surrogate pair: 4 for 2). */
const MAX_BYTES_PER_UNIT = 3

/**
 * The first `cap` bytes of `text` (cap > 0). `bytes`, when the caller knows it (a
 * Content-Length), saves measuring a long text; a text of at most `cap` characters is measured.
 */
export function keepText(text: string, cap: number, bytes?: number): KeptBody {
  if (text.length * MAX_BYTES_PER_UNIT <= cap) return { text, bytes: bytes ?? Buffer.byteLength(text), truncated: false }
  // At most 3 × cap bytes encoded, whatever the length of the text.
  const head = Buffer.from(text.length > cap ? text.slice(0, cap) : text)
  if (text.length <= cap && head.length <= cap) return { text, bytes: head.length, truncated: false }
  return { text: decodeHead(head, cap), bytes: bytes ?? Buffer.byteLength(text), truncated: true }
}

/**
 * The first `cap` bytes of a chunk of bytes (the first chunk of a streamed answer), as text;
 * `bytes` is the length of the whole body. Copies at most `cap` bytes: the chunk is not kept.
 */
export function keepBytes(chunk: Uint8Array, cap: number, bytes: number): KeptBody {
  const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  const text = decodeHead(buffer, cap)
  return { text, bytes, truncated: bytes > Math.min(cap, buffer.length) }
}

/**
 * The text of the first `cap` bytes of `buffer`, without a character cut in two: a cut that
 * would fall inside a character's bytes moves back to before the character.
 */
function decodeHead(buffer: Buffer, cap: number): string {
  let end = Math.min(cap, buffer.length)
  // UTF-8 continuation bytes are 10xxxxxx; the byte at `end` is the first one left out.
  if (end < buffer.length) while (end > 0 && (buffer[end] & 0xc0) === 0x80) end--
  return buffer.toString('utf8', 0, end)
}

/**
 * What an entry is charged for a kept body: the object, and its text at one byte a character
 * while every character fits in one (V8 keeps such a string in one byte a character), else two.
 */
export function bodyCharge(body: KeptBody | undefined): number {
  if (body === undefined) return 0
  return KEPT_BODY_BYTES + (TWO_BYTE.test(body.text) ? 2 * body.text.length : body.text.length)
}

const TWO_BYTE = /[\u0100-\uffff]/

/** The value written after a secret's key. */
export const REDACTED = '[redacted]'

// The names whose values the journal never keeps: the query's credential keys (rules.ts). A
// value cut with its body is redacted too, up to the end of the text.
const JSON_SECRET = new RegExp(`("(?:${CREDENTIAL_KEYS})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"?|[-+\\w.]+)`, 'gi')
const XML_SECRET = new RegExp(`(<(?:${CREDENTIAL_KEYS})(?:\\s[^>]*)?>)([^<]*)`, 'gi')
// Answers link to themselves with the query as sent (`…/appinfo?REST_PASSWORD=…`), so a
// credential a client put in the query comes back in the body (`&amp;` in XML), its key written
// as the client wrote it (`REST%5FPASSWORD`, `password[]`): each parameter's key is decoded to tell.
// A key is at most 256 characters and holds no `?`: a body of `?` or `&` without `=` costs a bounded
// look from each one, not one to the end of the text (quadratic in the body's length).
const URL_PARAMETER = /((?:&amp;|[?&])([^=&?"'<>\s\\]{1,256})=)([^&"'<>\s\\]*)/g

/** `text` with the values of JSON fields, XML elements and URL parameters named like credentials replaced. */
export function redactSecrets(text: string): string {
  return text
    .replace(JSON_SECRET, `$1"${REDACTED}"`)
    .replace(XML_SECRET, `$1${REDACTED}`)
    .replace(URL_PARAMETER, (whole: string, head: string, key: string) => (isCredentialKey(key) ? `${head}${REDACTED}` : whole))
}

/** A kept body with the values named like credentials replaced (redactSecrets). */
export function redactBody(body: KeptBody): KeptBody {
  const text = redactSecrets(body.text)
  return text === body.text ? body : { ...body, text }
}

/**
 * Whether a request sent something named like a credential that its answer may repeat: a
 * query parameter (`url`: the request's path and query), or a body field (kept redacted).
 */
export function sentCredentials(url: string, requestBody: KeptBody | undefined): boolean {
  const mark = url.indexOf('?')
  return (mark !== -1 && queryNamesCredential(url, mark)) || (requestBody !== undefined && requestBody.text.includes(REDACTED))
}

/** Keys written as they are (`REST_PASSWORD`, `password[]`): matched where they stand, as no query need be parsed for them. */
const CREDENTIAL_PARAMETER = new RegExp(`[?&](?:${CREDENTIAL_KEYS})(?:\\[\\])?=`, 'i')

/**
 * Whether the query after `mark` has a key named like a credential. Read per recorded request,
 * with queries of 10,000 UUIDs among them: parsed only when it holds an escape (`REST%5FPASSWORD`),
 * which only decoding tells.
 */
function queryNamesCredential(url: string, mark: number): boolean {
  if (!url.includes('%', mark)) return CREDENTIAL_PARAMETER.test(url)
  for (const key of parseQuery(url.slice(mark + 1)).keys()) if (CREDENTIAL_KEY.test(key)) return true
  return false
}

/** The beginning of an answer as the journal keeps it: redacted when its request sent credentials. */
export function answerAsKept(answer: KeptBody, url: string, requestBody: KeptBody | undefined): KeptBody {
  return sentCredentials(url, requestBody) ? redactBody(answer) : answer
}
