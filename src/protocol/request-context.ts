/**
 * What the facade keeps on each request and route. `request.operation` (the spec's operation
 * name, e.g. `agentinfo`) is set before anything else runs, so any later hook (metrics, fault
 * injection, logging) can observe every request by operation. `request.bodyText` is set by the
 * body parsers, so the journal can show what was sent even when it did not parse.
 */
import type { Format } from './negotiation.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** the operation answered, e.g. `agentinfo`; '' outside the REST operations */
    operation: string
    /** the response format chosen for this request */
    format: Format
    /**
     * the request body's text as the body parsers received it, before parsing ('' when none
     * was read); the journal keeps its beginning (src/journal/kept-body.ts)
     */
    bodyText: string
    /**
     * for an answer that streams an agent list written as bytes (src/http/list-bytes.ts, alone
     * or shared by several requests, src/http/shared-list.ts): the agent states it showed, noted
     * as it was written; the journal asks once it is sent
     */
    streamedStates: (() => readonly string[]) | null
    /**
     * for a request no route of its method matched on a path other methods are served on (a 405,
     * `POST /metrics`): that path, so the metrics label it as that path's requests, not not_found
     */
    servedPath: string | null
  }
  interface FastifyContextConfig {
    /** the spec's operation name */
    operation?: string
    /** set on the `.json` / `.xml` suffix routes */
    format?: Format
    /** the body types a route takes where they are not JSON or XML, for its 415 (the console's login form) */
    bodyTypes?: string
  }
}

export {}
