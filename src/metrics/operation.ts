/** The `operation` label and log field of a request: bounded, never a URL. */
import type { FastifyRequest } from 'fastify'
import '../protocol/request-context.js'
import { OTHER_OPERATIONS } from './api-metrics.js'

export function operationOf(request: FastifyRequest, metricsPath: string): string {
  // Set by the operation's own onRequest hook, before the handler runs.
  if (request.operation) return request.operation
  const configured = request.routeOptions.config?.operation
  if (configured) return configured
  const route = request.routeOptions.url
  if (route === undefined) return OTHER_OPERATIONS.notFound
  if (route === metricsPath) return OTHER_OPERATIONS.metrics
  if (route === '/openapi.json') return OTHER_OPERATIONS.openapi
  return OTHER_OPERATIONS.other
}
