/**
 * One structured log line per request, written when the answer is complete: operation, method,
 * path, status and response time. It replaces fastify's own pair of "incoming request" /
 * "request completed" lines (build the app with `disableRequestLogging: true`). The path leaves
 * the query string out: agent lists can be long.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { operationOf } from './operation.js'
import { METRICS_PATH } from './plugin.js'

async function requestLogImpl(app: FastifyInstance): Promise<void> {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const query = request.url.indexOf('?')
    request.log.info(
      {
        operation: operationOf(request, METRICS_PATH),
        method: request.method,
        path: query < 0 ? request.url : request.url.slice(0, query),
        status: reply.statusCode,
        responseTimeMs: Math.round(reply.elapsedTime * 1000) / 1000
      },
      'request completed'
    )
    done()
  })
}

/** Root-level (skip-override) so it sees every route. */
export const requestLogPlugin = Object.assign(requestLogImpl, { [Symbol.for('skip-override')]: true })
