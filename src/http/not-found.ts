/**
 * Requests that match no route: a known operation with another method gets 405 (with an
 * `Allow` header), anything else 404, both in the error envelope. Neither checks credentials:
 * they reveal only what the public spec and /openapi.json already say.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { apiError } from '../protocol/errors.js'
import { negotiate } from '../protocol/negotiation.js'
import { OPERATIONS, isOperation } from '../protocol/operations.js'
import { sendEnvelope } from './reply.js'
import '../protocol/request-context.js'

export function createNotFoundHandler(appPath: string) {
  const prefix = `${appPath}/restservice/`
  return function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const path = request.url.split('?')[0]
    const rest = path.startsWith(prefix) ? path.slice(prefix.length) : undefined
    let name = rest?.split('/')[0] ?? ''
    const suffix = name.endsWith('.json') ? 'json' : name.endsWith('.xml') ? 'xml' : undefined
    if (suffix !== undefined && isOperation(name.slice(0, name.lastIndexOf('.'))) && OPERATIONS[name.slice(0, name.lastIndexOf('.')) as keyof typeof OPERATIONS].suffix) {
      name = name.slice(0, name.lastIndexOf('.'))
    }
    request.format = negotiate(suffix, request.headers.accept, request.headers['content-type']) ?? 'xml'
    request.operation = name
    // A path under a known operation with the operation's own method (`…/appinfo/extra`) is a
    // wrong path, not a wrong method: a 405 there would tell a GET to use GET.
    const allowed = isOperation(name) ? OPERATIONS[name].method : undefined
    const wrongMethod = allowed !== undefined && allowed !== request.method && !(allowed === 'GET' && request.method === 'HEAD')
    const error = wrongMethod
      ? apiError('E_METHOD_NOT_ALLOWED', { operation: name, method: request.method, allowed })
      : apiError('E_UNKNOWN_OPERATION', { path })
    if (wrongMethod) reply.header('allow', allowed === 'GET' ? 'GET, HEAD' : allowed)
    const status = error.statusCode
    return sendEnvelope(request, reply, { servicename: name, errors: [{ status, message: error.message, code: error.code }] }, status)
  }
}
