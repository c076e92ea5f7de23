/**
 * What every route module needs: the manager state, the link builder, and the per-route
 * options that name the operation, fix the suffix format and check the credentials.
 *
 * The first hook of every operation is built per route with the operation and suffix in its
 * closure, so the hot path reads no route options: it sets `request.operation`, negotiates
 * the format and checks the credentials, in that order (so even a 401 is in the client's
 * format).
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { Manager } from '../manager/manager.js'
import type { AnswerCache } from './answer-cache.js'
import type { ItemFragments } from './kept-items.js'
import type { SlabPool } from './slab-pool.js'
import type { AuthCheck } from '../protocol/auth.js'
import { apiError } from '../protocol/errors.js'
import { credentialProblem } from '../protocol/credential-problem.js'
import type { Links } from './links.js'
import { negotiate, type Format } from '../protocol/negotiation.js'
import { OPERATIONS, type OperationName } from '../protocol/operations.js'
import '../protocol/request-context.js'

export interface RouteKit {
  manager: Manager
  links: Links
  /** `host:port` of the agent listener, for agentmanager's message */
  agentListener: string
  appVersion: string
  /** finished agentinfo-by-name answers, kept while still true (answer-cache.ts) */
  answers: AnswerCache
  /** agents' identity parts and last items of agentinfo, kept between answers (kept-items.ts) */
  fragments: ItemFragments
  /** memory of the lists made once for several requests, used again once they are sent (slab-pool.ts) */
  slabs: SlabPool
  /**
   * Runs a route's check-then-change section alone: no other such section of this app starts
   * until it settles. Every route that looks agents, templates or labels up and then changes
   * them runs that part through here, so e.g. two addagent calls with one name cannot both pass
   * the name check, and a label cannot be assigned to an agent a pending deleteagent removes.
   * Reads do not queue, and neither do waits for agents to reconnect (they take virtual seconds).
   * The manager's turns (Manager.serial), which a reset of the fleet takes too.
   */
  serial<T>(section: () => Promise<T> | T): Promise<T>
  /** url and options of each route of an operation: the plain name, and suffix variants */
  routes(operation: OperationName): Array<{ url: string; options: { onRequest: onRequestHookHandler; config: { operation: string; format?: Format } } }>
}

export function createRouteKit(parts: Omit<RouteKit, 'routes' | 'serial'> & { authCheck: AuthCheck }): RouteKit {
  const { authCheck, ...rest } = parts
  const serial = <T>(section: () => Promise<T> | T): Promise<T> => parts.manager.serial(section)
  const hook = (operation: string, suffix: Format | undefined): onRequestHookHandler =>
    function checkRequest(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) {
      request.operation = operation
      const accept = request.headers.accept
      const format = negotiate(suffix, accept, request.headers['content-type'])
      if (format === null) {
        done(apiError('E_NOT_ACCEPTABLE', { accept: accept ?? '' }))
        return
      }
      request.format = format
      if (!authCheck(request.headers)) {
        done(apiError('E_UNAUTHORIZED', { problem: credentialProblem(request.headers, request.url, request.raw.rawHeaders) }))
        return
      }
      // While the fleet is rebuilt (a reset, a scenario loaded) it has none, then some of its new
      // agents: the request waits, and sees the new fleet whole.
      const reset = parts.manager.fleet.resetting()
      if (reset !== undefined) return void reset.then(() => done())
      done()
    }
  return {
    ...rest,
    serial,
    routes(operation) {
      const variants: Array<[string, Format | undefined]> = [[`/${operation}`, undefined]]
      if (OPERATIONS[operation].suffix) variants.push([`/${operation}.json`, 'json'], [`/${operation}.xml`, 'xml'])
      return variants.map(([url, format]) => ({
        url,
        options: { onRequest: hook(operation, format), config: format === undefined ? { operation } : { operation, format } }
      }))
    }
  }
}
