/**
 * Requests that match no route: a known operation with another method gets 405 (with an
 * `Allow` header), anything else 404, both in the error envelope in the negotiated format.
 * Each 404 says what the path got wrong and what to call instead: an unknown operation gets the
 * nearest one (`did you mean agentinfo.json?`), a path outside `<app-path>/restservice/` the
 * application path the operations live under, and a part of fleetsim turned off by a flag
 * (`/console` with --no-console) the flag. Neither checks credentials: they reveal only what
 * the public spec, /openapi.json and the README already say.
 */
import { announcesBody } from '../lib/announced-body.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { suggest } from '../lib/suggest.js'
import { apiError, echoedName, type ApiError } from '../protocol/errors.js'
import { negotiate } from '../protocol/negotiation.js'
import { OPERATIONS, OPERATION_NAMES, isOperation, splitSuffix, withSuffix, type OperationName } from '../protocol/operations.js'
import { otherMethods } from './allowed-methods.js'
import { sendEnvelope } from './reply.js'
import '../protocol/request-context.js'

const SERVICE = '/restservice'

/** A part of fleetsim a flag turned off: the path it is served under and the flag. */
export interface SwitchedOff {
  path: string
  flag: string
}

export function createNotFoundHandler(appPath: string, switchedOff: readonly SwitchedOff[] = []) {
  const servicePath = `${appPath}${SERVICE}/`
  const offAt = (path: string) => switchedOff.find((part) => path === part.path || path.startsWith(`${part.path}/`))
  return function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const path = request.url.split('?')[0]
    const rest = path.startsWith(servicePath) ? path.slice(servicePath.length) : path === `${appPath}${SERVICE}` ? '' : undefined
    // The operation as written: the first segment after /restservice/, suffix included.
    const written = rest?.split('/')[0] ?? ''
    const { name, suffix } = splitSuffix(written)
    // Outside the service the suffix of the last segment says what the client wants to read.
    const formatSuffix = rest === undefined ? splitSuffix(path.slice(path.lastIndexOf('/') + 1)).suffix : suffix
    request.format = negotiate(formatSuffix, request.headers.accept, request.headers['content-type']) ?? 'xml'
    request.operation = echoedName(written)
    let error: ApiError
    const off = rest === undefined ? offAt(path) : undefined
    const allowed = rest === undefined ? otherMethods(request.server, request.method, path) : []
    if (allowed.length > 0) {
      request.servedPath = path
      reply.header('allow', allowed.join(', '))
      error = apiError('E_PATH_METHOD_NOT_ALLOWED', { path, method: request.method, allowed })
    } else if (off !== undefined) {
      error = apiError('E_UNKNOWN_PATH', { path, appPath, switchedOff: off.flag })
    } else if (rest === undefined) {
      error = apiError('E_UNKNOWN_PATH', { path, appPath, ...insteadOf(path, servicePath) })
    } else if (written === '') {
      error = apiError('E_UNKNOWN_OPERATION', { case: 'none', servicePath })
    } else {
      const operation = isOperation(written) ? written : isOperation(name) ? name : undefined
      if (operation === undefined) {
        const nearest = suggest(name, OPERATION_NAMES)
        error = apiError('E_UNKNOWN_OPERATION', { case: 'unknown', written, servicePath, ...(nearest === undefined ? {} : { nearest: withSuffix(nearest, suffix) }) })
      } else if (operation !== written && !OPERATIONS[operation].suffix) {
        request.operation = operation
        error = apiError('E_UNKNOWN_OPERATION', { case: 'suffix', operation, servicePath })
      } else if (!allows(operation, request.method)) {
        request.operation = operation
        reply.header('allow', OPERATIONS[operation].method === 'GET' ? 'GET, HEAD' : OPERATIONS[operation].method)
        error = apiError('E_METHOD_NOT_ALLOWED', { operation, method: request.method, allowed: OPERATIONS[operation].method })
      } else {
        // The right method, so the path goes on past the operation: `agentinfo/`, `stopagent/x`.
        request.operation = operation
        error = apiError('E_UNKNOWN_OPERATION', { case: 'subpath', operation, path, servicePath })
      }
    }
    const status = error.statusCode
    return sendEnvelope(request, reply, { servicename: request.operation, errors: [{ status, message: error.message, code: error.code }] }, status)
  }
}

function allows(operation: OperationName, method: string): boolean {
  const allowed = OPERATIONS[operation].method
  return method === allowed || (allowed === 'GET' && method === 'HEAD')
}

/**
 * The service path a path outside it probably meant: what follows its own `/restservice/`
 * (another application path), or its last segment when that names an operation (no
 * `/restservice/` at all).
 */
function insteadOf(path: string, servicePath: string): { instead?: string } {
  const at = path.indexOf(`${SERVICE}/`)
  const after = at === -1 ? '' : path.slice(at + SERVICE.length + 1)
  if (after !== '') return { instead: servicePath + after }
  const last = path.slice(path.lastIndexOf('/') + 1)
  return last !== '' && isOperation(splitSuffix(last).name) ? { instead: servicePath + last } : {}
}

/**
 * A request that no route takes is answered before its body is read: the answer its path's
 * not-found handler gives (405 with Allow for an operation, or 404), whatever the body holds.
 * - A body there answers nothing, and reading it cost the server the parse of any JSON or XML
 *   anyone sent, without credentials: bodies nested hundreds of thousands deep, sent a few at a
 *   time, held every other request while they were parsed.
 * - A malformed body hid the 404 or 405 behind a 400 about its syntax, and a Content-Type no
 *   route reads behind a 415: the client was told to fix a body no route would take.
 * - A QUERY request without Content-Type got fastify's 400 "must provide a Content-Type" (as RFC
 *   10008 (2) has a server fail it) before any handler ran, so a client that added the header was
 *   told 405 next.
 * The hook runs at preParsing, after every onRequest hook (the admin API's and the console's
 * credential checks answer first), and answers with the handler of the not-found route the path
 * fell to (the root's, the admin API's or the console's). The body is left unread: Node's server
 * reads it off the connection, unparsed, once the answer is sent, and the connection goes on. The
 * journal records such a request without its body.
 */
export function answerUnroutedBeforeBody(app: FastifyInstance): void {
  app.addHook('preParsing', function answerUnrouted(request, reply, payload, done) {
    if (!request.is404 || !(announcesBody(request.headers) || (request.method === 'QUERY' && request.headers['content-type'] === undefined))) return done(null, payload)
    // Answered here: the hook chain stops, and neither the body's parser nor fastify's check of the Content-Type runs.
    Promise.resolve(request.routeOptions.handler.call(request.server, request, reply)).catch((error: unknown) => reply.send(error))
  })
}
