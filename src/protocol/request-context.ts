/**
 * What the facade keeps on each request and route. `request.operation` (the spec's operation
 * name, e.g. `agentinfo`) is set before anything else runs, so any later hook (metrics, fault
 * injection, logging) can observe every request by operation.
 */
import type { Format } from './negotiation.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** the operation answered, e.g. `agentinfo`; '' outside the REST operations */
    operation: string
    /** the response format chosen for this request */
    format: Format
  }
  interface FastifyContextConfig {
    /** the spec's operation name */
    operation?: string
    /** set on the `.json` / `.xml` suffix routes */
    format?: Format
  }
}

export {}
