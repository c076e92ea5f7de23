/**
 * A request body's bytes read as text in the charset its Content-Type declares: UTF-8 when it
 * declares none (JSON has no other), ISO-8859-1 when it says so. Bytes that are not valid in it
 * are refused rather than read as U+FFFD: an XML body declared ISO-8859-1 made the agent
 * `caf\uFFFD` out of `café`, and nothing said so.
 */
import { announcesBody } from '../lib/announced-body.js'
import { isUtf8 } from 'node:buffer'
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify'
import { apiError, type ApiError } from '../protocol/errors.js'
import { firstBadUtf8Byte } from '../lib/utf8.js'

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
  const unread = charsetError(contentType)
  if (unread !== undefined) throw unread
  if (!isUtf8(bytes)) throw apiError('E_BODY_ENCODING', { at: firstBadUtf8Byte(bytes) })
  return bytes.toString('utf8')
}

/** E_UNSUPPORTED_CHARSET when the Content-Type declares a charset bodyText does not read, else undefined. */
export function charsetError(contentType: string | undefined): ApiError | undefined {
  const charset = charsetOf(contentType)
  if (charset === undefined || LATIN1.has(charset) || UTF8.has(charset)) return undefined
  return apiError('E_UNSUPPORTED_CHARSET', { charset, supported: READ_CHARSETS })
}

/**
 * E_UNSUPPORTED_CONTENT_ENCODING when the body comes in a content coding (gzip, deflate, br, ...):
 * nothing here decodes one, and read as it is a compressed body is bytes of no charset, or worse,
 * a plain body labelled `br` taken for what it says it is not. `identity` is none.
 */
export function codingError(contentEncoding: string | undefined): ApiError | undefined {
  if (contentEncoding === undefined) return undefined
  const codings = contentEncoding.split(',').map((coding) => coding.trim().toLowerCase())
  if (codings.every((coding) => coding === '' || coding === 'identity')) return undefined
  return apiError('E_UNSUPPORTED_CONTENT_ENCODING', { encoding: contentEncoding })
}

/** Methods whose routes take a body: only they get the check of charset and content coding (a GET route runs no hook for it). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** The checks refuseUnreadBodies made, to tell them from a route's other preParsing hooks. */
const BODY_CHECKS = new WeakSet<object>()

/**
 * Refuses a body whose Content-Type (one of `types`, those the scope's parsers read with
 * bodyText) declares a charset bodyText does not read, or that comes in a content coding
 * (codingError), before the body is read (preParsing),
 * rather than once it is all in: a client that sent `Expect: 100-continue` is told without
 * sending it (expect-continue.ts). Other types are left to the parser lookup (415
 * E_UNSUPPORTED_MEDIA_TYPE); a request without a body to a method fastify parses none for
 * never gets here with one. Added to the routes of the scope that take a body, as they are
 * added (call it before them): the GET routes, agentinfo's above all, run no hook for it.
 */
export function refuseUnreadBodies(scope: FastifyInstance, types: ReadonlyArray<string | RegExp>): void {
  const refuseUnreadBody = (request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload, done: (error: Error | null, payload?: RequestPayload) => void) => {
    const contentType = request.headers['content-type']
    const error = contentType !== undefined && announcesBody(request.headers) && isOneOf(contentType, types) ? (codingError(request.headers['content-encoding']) ?? charsetError(contentType)) : undefined
    done(error ?? null, payload)
  }
  BODY_CHECKS.add(refuseUnreadBody)
  scope.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (!methods.some((method) => BODY_METHODS.has(method))) return
    const own = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing]
    // A scope's onRoute hooks run after its parents': a route of a scope with parsers of its own
    // (the admin scenario's) gets its scope's check in place of the app's, not both, as its
    // scope's types are the ones read there.
    route.preParsing = [...own.filter((hook) => !BODY_CHECKS.has(hook)), refuseUnreadBody]
  })
}

/** Whether the media type of `contentType` is one of `types`, as fastify matches its parsers (a string: the type itself; a RegExp: tested on it). */
function isOneOf(contentType: string, types: ReadonlyArray<string | RegExp>): boolean {
  const media = contentType.split(';', 1)[0].trim().toLowerCase()
  return types.some((type) => (typeof type === 'string' ? type === media : type.test(media)))
}
