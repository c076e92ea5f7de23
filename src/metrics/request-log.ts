/**
 * One structured log line per request, written when the answer is complete:
 *
 *   {"reqId":"req-7","operation":"agentinfo","method":"GET","path":"/manager/mvc/restservice/agentinfo","status":200,"responseTimeMs":3.2} request completed
 *
 * It is a fastify LogController (pass `logController: new RequestLogController()` to Fastify):
 * fastify's own pair of "incoming request" / "request completed" lines and its "route not
 * found" line become this one line. The path leaves the query string out (agent lists can be
 * long, and names are not for logs at info).
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { operationOf } from './operation.js'
import { METRICS_PATH } from './plugin.js'

/** The request line's messages (src/metrics/terminal-log.ts turns them into a short line on a terminal). */
export const REQUEST_COMPLETED = 'request completed'
export const REQUEST_ERRORED = 'request errored'

/** The path's characters a line shows at most: one request of a 1 MB path wrote a 1 MB line. */
export const LOGGED_PATH_CHARS = 2048

export function requestFields(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  const query = request.url.indexOf('?')
  const path = query < 0 ? request.url : request.url.slice(0, query)
  return {
    operation: operationOf(request, METRICS_PATH),
    method: request.method,
    path: path.length > LOGGED_PATH_CHARS ? `${path.slice(0, LOGGED_PATH_CHARS)}… (${path.length} characters)` : path,
    status: reply.statusCode,
    responseTimeMs: Math.round(reply.elapsedTime * 1000) / 1000
  }
}

export class RequestLogController extends LogController {
  override incomingRequest(): void {
    // Nothing on arrival: the one line is written on completion.
  }

  override routeNotFound(): void {
    // The completion line says it: operation "not_found", status 404.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    if (error) reply.log.error({ ...requestFields(request, reply), err: error }, REQUEST_ERRORED)
    else reply.log.info(requestFields(request, reply), REQUEST_COMPLETED)
  }
}
