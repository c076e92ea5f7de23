/**
 * The methods a path is served with, for a 405 rather than a 404 when a request comes with
 * another: `POST /metrics`, `OPTIONS /console/login`. Asked of fastify's router, so a route
 * added anywhere counts, and HEAD with every GET route (fastify exposes them).
 */
import type { FastifyInstance } from 'fastify'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const

/**
 * The methods with a route at `url` (its path and query as sent), in METHODS' order, when
 * `method` is not one of them; empty otherwise. A route of the request's own method that found
 * nothing (a file not among those a static route serves) is a 404, not a 405.
 */
export function otherMethods(server: Pick<FastifyInstance, 'findRoute'>, method: string, url: string): string[] {
  const path = url.split('?')[0]
  const allowed: string[] = METHODS.filter((m) => server.findRoute({ method: m, url: path }) !== null)
  return allowed.includes(method) ? [] : allowed
}
