/**
 * Every failure becomes the error envelope `{servicename, errors: [{status, message, code}]}`
 * in the negotiated format; `status` repeats the HTTP status. Catalogue errors pass through;
 * fastify's own request errors are mapped into the catalogue; anything else is a 500 (a bug,
 * logged), never for bad input.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { connectionAfterError } from './content-parsers.js'
import { ApiError, apiError } from '../protocol/errors.js'
import { sendEnvelope } from './reply.js'
import { describeUnrouted } from './unrouted.js'
import '../protocol/request-context.js'

export function toCatalogueError(error: FastifyError | ApiError | Error, request: FastifyRequest, bodyLimit: number): ApiError {
  if (error instanceof ApiError) return error.code === 'E_MISSING_BODY' && sentJsonNull(request) ? BODY_IS_NULL() : error
  const fastifyError = error as FastifyError
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiError('E_BODY_TOO_LARGE', { limit: bodyLimit })
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return apiError('E_UNSUPPORTED_MEDIA_TYPE', { contentType: request.headers['content-type'] ?? '', expected: request.routeOptions.config?.bodyTypes })
  }
  const status = fastifyError.statusCode
  if (status !== undefined && status >= 400 && status < 500) return apiError('E_BAD_REQUEST', { detail: fastifyError.message })
  return apiError('E_INTERNAL')
}

/**
 * Whether the body sent was JSON's `null`: fastify validates a request without a body as null, so
 * the validator says E_MISSING_BODY for both; the text received tells them apart. Said here, after
 * validation, rather than by the parser: `--strict`'s refusals (preValidation) come first, and the
 * journal keeps the body as the null it was.
 */
function sentJsonNull(request: FastifyRequest): boolean {
  // trim() drops a byte order mark too, as the parser skips one.
  return request.body === null && request.bodyText?.trim() === 'null'
}

const BODY_IS_NULL = () => apiError('E_WRONG_TYPE', { where: 'request body', name: '', expected: 'an object', got: 'null' })

/**
 * The 5xx a client causes, not the server's failure: its request line's version (505), its
 * connections past --max-connections (503; a flood of them was a flood of stack traces), answers
 * it asked for and did not read past --unsent-answers-max-bytes (503), a reset asked for (of the
 * admin API) while its list was made (503). The request's own log line says them.
 */
const CLIENT_CAUSED: ReadonlySet<string> = new Set(['E_HTTP_VERSION', 'E_TOO_MANY_CONNECTIONS', 'E_UNREAD_ANSWERS', 'E_FLEET_RESET'])

/** Whether an error answer is the server's own failure, for the error handlers' log (the facade's, the admin API's, the console's). */
export function isServerFailure(error: ApiError): boolean {
  return error.statusCode >= 500 && !CLIENT_CAUSED.has(error.code)
}

export function createErrorHandler(bodyLimit: number) {
  return function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    // A body the not-found route cannot parse fails before its handler names the operation
    // and picks the format; do both here so the envelope still follows the client's accept.
    if (request.is404 && request.operation === '') describeUnrouted(request)
    const apiErr = toCatalogueError(error, request, bodyLimit)
    connectionAfterError(error, request, reply)
    const status = apiErr.statusCode
    if (isServerFailure(apiErr)) request.log.error({ err: error, operation: request.operation }, 'request failed')
    const errors = [apiErr, ...apiErr.more].map((e) => ({ status, message: e.message, code: e.code }))
    return sendEnvelope(request, reply, { servicename: request.operation, errors }, status)
  }
}
