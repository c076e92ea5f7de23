/** The `operation` label and log field of a request: bounded, never a URL. */
import type { FastifyRequest } from 'fastify'
import '../protocol/request-context.js'
import { isOperation } from '../protocol/operations.js'
import { OTHER_OPERATIONS } from './api-metrics.js'

/** The admin API's requests (src/journal/plugin.ts). */
const ADMIN = 'admin'

export function operationOf(request: FastifyRequest, metricsPath: string): string {
  // Set by the operation's own onRequest hook, before the handler runs; by the not-found
  // handler to the segment the client wrote, which is taken only when it is a spec operation's
  // name, else the route's label below stands: as a label, every name a client made up would be
  // a series of its own (a megabyte each, if it liked), and /metrics would grow without bound.
  const named = request.operation
  if (named && (isOperation(named) || named === ADMIN)) return named
  const configured = request.routeOptions.config?.operation
  if (configured) return configured
  // A 405 (`POST /metrics`) is labelled as its path's requests are: only a path no route serves is not_found.
  const route = request.routeOptions.url ?? request.servedPath ?? undefined
  if (route === undefined) return OTHER_OPERATIONS.notFound
  if (route === metricsPath) return OTHER_OPERATIONS.metrics
  if (route === '/openapi.json' || route === '/openapi.yaml') return OTHER_OPERATIONS.openapi
  return OTHER_OPERATIONS.other
}
