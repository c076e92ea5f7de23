/**
 * Request body parsers: JSON and XML only (anything else is 415). An empty body parses to
 * nothing, so operations without a body accept clients that send a Content-Type on every
 * request; operations with a body then report the missing body. XML text is converted to the
 * route's body schema types (coerce.ts); JSON is taken as typed.
 */
import type { FastifyBodyParser, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { coerce } from './coerce.js'
import { apiError } from '../protocol/errors.js'
import { parseXmlBody } from './xml-reader.js'
import { bodyText, refuseUnreadBodies } from './body-text.js'
import { MAX_BODY_DEPTH, tooDeepAt } from './body-depth.js'
import { lingerWhenClosed } from './lingering-close.js'

// Fastify tests a RegExp on the whole header as it normalises it (`application/vnd.x+json;
// charset="utf-8"`), parameters included: a type with parameters ends at its `;`.
const JSON_TYPES: Array<string | RegExp> = ['application/json', /^application\/[\w.-]+\+json(?:;|$)/]
const XML_TYPES: Array<string | RegExp> = ['application/xml', 'text/xml', /^application\/[\w.-]+\+xml(?:;|$)/]

/** Errors of the parsers below: each was given the whole body (`parseAs: 'buffer'`). */
const afterWholeBody = new WeakSet<Error>()

/**
 * What becomes of the connection after an error answer. Fastify closes it after any body it
 * could not parse, as the rest of it may still be on the way: after a parser's refusal of a body
 * it was given whole, the requests pipelined behind it are intact, so the connection is kept and
 * they are answered. An answer sent before the body came in whole (413 by its Content-Length)
 * closes the connection lingering, so that the rest of the body does not make the close a reset
 * that loses the answer (lingering-close.ts). Every error handler calls it (the REST
 * operations', the admin API's, the console's).
 */
export function connectionAfterError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof Error && afterWholeBody.has(error)) reply.removeHeader('connection')
  else if (!request.raw.complete) lingerWhenClosed(request.raw.socket)
}

/** `parser`, its refusals noted as refusals of a whole body (connectionAfterError). */
function whole(parser: FastifyBodyParser<Buffer>): FastifyBodyParser<Buffer> {
  return function (this: FastifyInstance, request, bytes, done) {
    parser.call(this, request, bytes, (error, body) => {
      if (error instanceof Error) afterWholeBody.add(error)
      done(error, body)
    })
  }
}

export function registerContentParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  for (const type of JSON_TYPES) app.addContentTypeParser(type, { parseAs: 'buffer' }, whole(asText(parseJson)))
  for (const type of XML_TYPES) app.addContentTypeParser(type, { parseAs: 'buffer' }, whole(asText(parseXml)))
  // A charset these parsers do not read is refused before the body is read.
  refuseUnreadBodies(app, [...JSON_TYPES, ...XML_TYPES])
}

/**
 * A scope that reads JSON bodies only (the admin API: JSON in, JSON out). An XML body would come
 * in as text fields, which no number or boolean field takes (`<speed>2</speed>` was refused as
 * the text "2"): it is refused with 415 E_UNSUPPORTED_MEDIA_TYPE, which says to send JSON. An
 * XML type with no body is no body, as elsewhere: a client that sends its Content-Type with
 * every request still resets the fleet.
 */
export function readJsonOnly(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers()
  for (const type of JSON_TYPES) scope.addContentTypeParser(type, { parseAs: 'buffer' }, whole(asText(parseJson)))
  for (const type of XML_TYPES) scope.addContentTypeParser(type, { parseAs: 'buffer' }, whole(refuseXmlBody))
  refuseUnreadBodies(scope, JSON_TYPES)
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, bodyTypes: 'application/json' }
  })
}

/** An XML body where JSON is read: nothing when empty, else 415 saying to send JSON. */
const refuseXmlBody: FastifyBodyParser<Buffer> = (request, bytes, done) => {
  if (bytes.toString('latin1').trim() === '') return done(null, undefined)
  request.bodyText = bytes.toString('utf8')
  done(apiError('E_UNSUPPORTED_MEDIA_TYPE', { contentType: request.headers['content-type'] ?? '', expected: 'application/json' }), undefined)
}

/** A parser of text, given the body's bytes read in its charset (body-text.ts). */
function asText(parse: FastifyBodyParser<string>): FastifyBodyParser<Buffer> {
  return function (this: FastifyInstance, request, bytes, done) {
    let text: string
    try {
      text = bodyText(bytes, request.headers['content-type'])
    } catch (error) {
      // The journal shows what came, as far as it reads.
      request.bodyText = bytes.toString('utf8')
      done(error as Error, undefined)
      return
    }
    parse.call(this, request, text, done)
  }
}

/** U+FEFF at the start of a text: a byte order mark. */
const BYTE_ORDER_MARK = 0xfeff

const parseJson: FastifyBodyParser<string> = (request, text, done) => {
  // As received, for the journal (src/journal/kept-body.ts), even when it does not parse.
  request.bodyText = text
  if (text.trim() === '') {
    done(null, undefined)
    return
  }
  const deep = tooDeepAt(text)
  if (deep !== undefined) {
    done(apiError('E_BODY_TOO_DEEP', { most: MAX_BODY_DEPTH, at: deep + 1, what: 'arrays and objects' }), undefined)
    return
  }
  try {
    // JSON.parse keeps a `__proto__` key as a plain own property; bodies are never merged
    // into other objects, so no prototype can be reached through them. A byte order mark is
    // skipped, as RFC 8259 allows and as the XML parser does: Windows PowerShell 5 writes one
    // before a file saved as UTF-8, and JSON.parse refused the body for it.
    done(null, JSON.parse(text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text))
  } catch (error) {
    done(apiError('E_MALFORMED_JSON', { detail: (error as Error).message }), undefined)
  }
}

const parseXml: FastifyBodyParser<string> = (request, text, done) => {
  request.bodyText = text
  try {
    const parsed = parseXmlBody(text)
    const schema = request.routeOptions.schema?.body as Parameters<typeof coerce>[1] | undefined
    done(null, parsed === undefined || schema === undefined ? parsed : coerce(parsed, schema, 'xml'))
  } catch (error) {
    done(error as Error, undefined)
  }
}
