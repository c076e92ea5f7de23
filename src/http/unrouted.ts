/**
 * Requests that fail before any operation's route hook has run (a bad percent-encoding in the
 * path, a limit of limits.ts, a body the not-found route cannot parse) still get the error
 * envelope in the client's format. This names the operation from the path and negotiates the
 * format from the headers alone; the route hook, when it runs, does the same with the suffix.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { apiError, echoedName, type ApiError } from '../protocol/errors.js'
import { JSON_TYPE, XML_TYPE, negotiate } from '../protocol/negotiation.js'
import { xmlDocument } from './xml-writer.js'
import '../protocol/request-context.js'

/** Sets `request.operation` (the last path segment, without a `.json`/`.xml` suffix) and `request.format`. */
export function describeUnrouted(request: FastifyRequest): void {
  const url = request.url
  const question = url.indexOf('?')
  const path = question === -1 ? url : url.slice(0, question)
  const last = path.slice(path.lastIndexOf('/') + 1)
  const suffix = last.endsWith('.json') ? 'json' : last.endsWith('.xml') ? 'xml' : undefined
  request.operation = echoedName(suffix === undefined ? last : last.slice(0, last.lastIndexOf('.')))
  request.format = negotiate(suffix, headerText(request.headers.accept), headerText(request.headers['content-type'])) ?? 'xml'
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

/**
 * fastify's `frameworkErrors`: errors of the router itself, before any route or hook. These
 * requests have no route context, so the envelope is rendered here as text.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  describeUnrouted(request)
  // The admin API and the console answer in their own envelope, JSON, servicename their name.
  const own = OWN_ENVELOPES.find(({ prefix }) => request.url === prefix || request.url.startsWith(`${prefix}/`))
  const apiErr: ApiError =
    error.code === 'FST_ERR_BAD_URL'
      ? apiError('E_BAD_REQUEST', { detail: 'the path is not valid percent-encoded UTF-8; encode it with encodeURIComponent' })
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? apiError('E_BAD_REQUEST', {
            detail:
              own === undefined
                ? `a path segment is longer than ${MAX_PARAM_LENGTH} characters; use the ?name= form of the operation`
                : `a path segment is longer than ${MAX_PARAM_LENGTH} characters, longer than any name this server has; check the path`
          })
        : apiError('E_BAD_REQUEST', { detail: error.message })
  const status = apiErr.statusCode
  const envelope = { servicename: own?.servicename ?? request.operation, errors: [{ status, message: apiErr.message, code: apiErr.code }] }
  const json = own !== undefined || request.format === 'json'
  void reply
    .code(status)
    .type(json ? JSON_TYPE : XML_TYPE)
    .send(json ? JSON.stringify(envelope) : xmlDocument(envelope))
}

/** Paths whose errors have an envelope of their own (src/admin/plugin.ts, src/console/plugin.ts). */
const OWN_ENVELOPES = [
  { prefix: '/__admin', servicename: 'admin' },
  { prefix: '/console', servicename: 'console' }
]

/** Longest path parameter (viewagentortemplate/<name>); fastify's default is 100. */
export const MAX_PARAM_LENGTH = 1024
