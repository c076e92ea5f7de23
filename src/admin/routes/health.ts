/**
 * GET (and HEAD) /__admin/health: a health check for load balancers and orchestrators (their
 * HTTP checks send no credentials, and GET / is a 404). Open without credentials, never
 * faulted, not journalled; answers 200 with what a check wants and nothing of the fleet:
 * `{"status": "healthy", "message", "version", "uptimeInSeconds", "timestamp"}`, the shape
 * WireMock's endpoint of the same path has. It answers whenever the server answers: it checks
 * nothing deeper (the fleet recovers from a worker that dies by itself, docs/architecture.md).
 */
import type { FastifyInstance } from 'fastify'
import { adminSchema } from '../openapi.js'

export interface HealthOptions {
  /** fleetsim's version (package.json) */
  version: string
}

/** The answer's schema, for the OpenAPI document (and fastify's serializer). */
const HEALTH = {
  type: 'object',
  required: ['status', 'message', 'version', 'uptimeInSeconds', 'timestamp'],
  properties: {
    status: { type: 'string', enum: ['healthy'] },
    message: { type: 'string' },
    version: { type: 'string', description: "fleetsim's version" },
    uptimeInSeconds: { type: 'integer', description: 'whole seconds since the server was built (wall time, not virtual time)' },
    timestamp: { type: 'string', format: 'date-time', description: 'now, wall time' }
  }
} as const

export function healthRoutes(app: FastifyInstance, { version }: HealthOptions): void {
  const started = performance.now()
  const schema = { ...adminSchema('adminHealth', 'Health check, without credentials: 200 while the server answers', undefined, true), response: { 200: HEALTH } }
  // HEAD is fastify's, from this GET; the OpenAPI document shows it too (its operationId `adminHealth-head`).
  app.get('/health', { schema, config: { swagger: { exposeHeadRoute: true } } }, async (_request, reply) => {
    // A check must see the server's answer, never a cache's.
    reply.header('cache-control', 'no-store')
    return {
      status: 'healthy',
      message: 'fleetsim is ok',
      version,
      uptimeInSeconds: Math.floor((performance.now() - started) / 1000),
      timestamp: new Date().toISOString()
    }
  })
}
