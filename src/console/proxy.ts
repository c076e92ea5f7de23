/**
 * The console's buttons run the real operations: `/console/api/admin/<path>` forwards to
 * `/__admin/<path>` with the admin credentials, and `/console/api/rest/<operation>` to
 * `<app-path>/restservice/<operation>` with the REST credentials (JSON unless the request asks
 * for another type). Method, query, body and content type are passed on, and the answer comes
 * back as the operation gave it: status, content type and body, so every message and error the
 * console shows is the operation's own. Requests go through the whole app (`inject`), hooks
 * included: a REST call made from the console is in the request journal like any client's
 * (it says `User-Agent: fleetsim-console`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, InjectOptions } from 'fastify'
import { apiError } from '../protocol/errors.js'
import { CONSOLE_PREFIX } from './paths.js'
import type { ConsoleContext } from './page.js'

export const CONSOLE_USER_AGENT = 'fleetsim-console'
const ADMIN_FROM = `${CONSOLE_PREFIX}/api/admin/`
const REST_FROM = `${CONSOLE_PREFIX}/api/rest/`

type Forwarded = Pick<InjectOptions, 'method' | 'url' | 'headers' | 'payload'>

/** `.` or `..`, written plainly or percent-encoded (`%2e`, `.%2E`, ...), as a URL parser reads them. */
function isDotSegment(segment: string): boolean {
  const plain = segment.replace(/%2e/gi, '.')
  return plain === '.' || plain === '..'
}

/**
 * The request to run for a console request: its URL after `from` (as sent, still encoded, query
 * included) put after `to`; same method, body and content type.
 */
function forwarded(request: FastifyRequest, from: string, to: string, headers: Record<string, string>): Forwarded {
  const rest = request.url.slice(from.length)
  // The forwarded URL is parsed as a URL, which resolves `..` and `%2e%2e` segments: one of them
  // took /console/api/rest/ to /__admin/ with the REST credentials, or admin's to the operations.
  // A backslash too, plain or encoded: the URL parser reads it as a slash (`..\..\__admin\clock`).
  if (rest.split('?')[0].split(/\/|\\|%5c/i).some(isDotSegment)) throw apiError('E_CONSOLE_PATH_OUTSIDE', { path: request.url.split('?')[0], target: to })
  const { 'content-type': contentType, host } = request.headers
  return {
    method: request.method as Forwarded['method'],
    url: to + rest,
    // The Host the console was reached at: the operation's links name it (without, `localhost:80`).
    headers: { 'user-agent': CONSOLE_USER_AGENT, ...(contentType === undefined ? {} : { 'content-type': contentType }), ...(host === undefined ? {} : { host }), ...headers },
    ...(Buffer.isBuffer(request.body) && request.body.length > 0 ? { payload: request.body } : {})
  }
}

/** Headers of the target's answer that describe its connection or framing, not the answer: the console's own reply sets them. */
const NOT_PASSED_BACK = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date'])

/** The target's answer to `from`, forwarded as `request`, as the console's: its status, body and headers (`Allow` on a 405, `Retry-After`, ...). */
async function answer(context: ConsoleContext, from: FastifyRequest, request: Forwarded, reply: FastifyReply): Promise<FastifyReply> {
  const response = await context.inject(request, { encrypted: from.protocol === 'https' })
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !NOT_PASSED_BACK.has(name.toLowerCase())) reply.header(name, value)
  }
  return reply.code(response.statusCode).send(response.rawPayload)
}

/** Registers the two forwarding routes on a scope whose prefix is /console/api. */
export function proxyRoutes(scope: FastifyInstance, context: ConsoleContext): void {
  // The body is passed on untouched, whatever its type: the operation parses it.
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  scope.all('/admin/*', async (request, reply) => {
    const { admin } = context.credentials
    return answer(context, request, forwarded(request, ADMIN_FROM, '/__admin/', { rest_user: admin.user, rest_password: admin.password }), reply)
  })

  scope.all('/rest/*', async (request, reply) => {
    const { rest } = context.credentials
    const accept = request.headers.accept
    const headers = { rest_user: rest.user, rest_password: rest.password, accept: accept === undefined || accept === '*/*' ? 'application/json' : accept }
    return answer(context, request, forwarded(request, REST_FROM, `${context.appPath}/restservice/`, headers), reply)
  })
}
