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
    const error = isOperation(name)
      ? apiError('E_METHOD_NOT_ALLOWED', { operation: name, method: request.method, allowed: OPERATIONS[name].method })
      : apiError('E_UNKNOWN_OPERATION', { path })
    if (isOperation(name)) reply.header('allow', OPERATIONS[name].method === 'GET' ? 'GET, HEAD' : OPERATIONS[name].method)
    const status = error.statusCode
    return sendEnvelope(request, reply, { servicename: name, errors: [{ status, message: error.message, code: error.code }] }, status)
  }
}
