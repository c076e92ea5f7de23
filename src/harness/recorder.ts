/**
 * The request hooks of the harness: they gather each request's facts, check the strict-mode
 * rules (rejecting in --strict), read the answer, and add one journal entry per request.
 *
 * Registered at the root (skip-override), so the hooks see every route. Recorded: every request
 * to an operation route, and requests that matched no route (404/405: wrong paths and methods
 * are client mistakes too). Not recorded: `/__admin/*`, `/metrics`, `/openapi.json`.
 *
 * Hook order matters: the operation's own onRequest hook (route level) runs after ours, so the
 * operation and format are read from preValidation on; the strict check runs in preValidation,
 * after authentication (a 401 stays a 401) and body parsing, before schema validation (so
 * the raw query is judged, not its coerced form).
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { apiError } from '../http/errors.js'
import '../http/request-context.js'
import { readAnswer, type AnswerFacts } from './answer.js'
import { shapeOf, type Journal, type JournalEntry, type JournalViolation } from './journal.js'
import { CREDENTIAL_KEY, RULES_BY_ID, checkRequest, parseQuery, type RequestFacts, type SchemaProperties } from './rules.js'

export interface RecorderOptions {
  journal: Journal
  strict: boolean
  /** virtual time, epoch ms */
  now: () => number
  /** the UUID of an agent by name, for partial failures (undefined when unknown) */
  uuidOf: (name: string) => string | undefined
  /** injected faults counted by `${kind} ${operation}` (engine.stats.faultsInjected) */
  faultCounts?: () => Readonly<Record<string, number>>
}

interface Pending {
  wallMs: number
  virtualMs: number
  faultsBefore: Record<string, number>
  violations?: JournalViolation[]
  rejected: boolean
  answer?: AnswerFacts
}

const OPERATION_PREFIX = '/restservice/'

/** Fault kinds a request met, when the faults plugin tells us (it may set `request.faultInjected`). */
type MaybeFault = { faultInjected?: unknown }

function schemaProperties(schema: unknown): SchemaProperties {
  const properties = (schema as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {}
  return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, value.type ?? 'unknown']))
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

function pathParts(url: string): { path: string; rawQuery: string; pathName: string; suffix?: 'json' | 'xml' } {
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  const rawQuery = q === -1 ? '' : url.slice(q + 1)
  const at = path.indexOf(OPERATION_PREFIX)
  const pathName = at === -1 ? '' : path.slice(at + OPERATION_PREFIX.length).split('/')[0]
  const suffix = pathName.endsWith('.json') ? 'json' : pathName.endsWith('.xml') ? 'xml' : undefined
  return suffix === undefined ? { path, rawQuery, pathName } : { path, rawQuery, pathName, suffix }
}

function isRecorded(request: FastifyRequest): boolean {
  if (request.url.startsWith('/__admin')) return false
  // Operation routes, and no route at all (404/405); never /metrics, /openapi.json and the like.
  return request.routeOptions.config?.operation !== undefined || request.routeOptions.url === undefined
}

export function registerRecorder(app: FastifyInstance, options: RecorderOptions): void {
  const { journal, strict } = options
  const pending = new WeakMap<FastifyRequest, Pending>()
  const propertiesCache = new WeakMap<object, { query: SchemaProperties; body?: SchemaProperties }>()

  const factsOf = (request: FastifyRequest, status?: number): RequestFacts => {
    const { rawQuery, pathName, suffix } = pathParts(request.url)
    const routed = request.routeOptions.config?.operation !== undefined
    const schema = request.routeOptions.schema
    let properties = schema === undefined ? undefined : propertiesCache.get(schema)
    if (properties === undefined) {
      properties = {
        query: schemaProperties(schema?.querystring),
        ...(schema?.body === undefined ? {} : { body: schemaProperties(schema.body) })
      }
      if (schema !== undefined) propertiesCache.set(schema, properties)
    }
    const accept = request.headers.accept
    const contentType = request.headers['content-type']
    return {
      method: request.method,
      operation: request.operation || request.routeOptions.config?.operation || '',
      routed,
      ...(status === undefined ? {} : { status }),
      pathName,
      ...(suffix === undefined ? {} : { suffix }),
      rawQuery,
      ...(accept === undefined ? {} : { accept }),
      ...(contentType === undefined ? {} : { contentType }),
      hasBody: hasBody(request),
      body: request.body,
      queryProperties: properties.query,
      ...(properties.body === undefined ? {} : { bodyProperties: properties.body })
    }
  }

  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    if (journal.enabled && isRecorded(request)) {
      pending.set(request, { wallMs: Date.now(), virtualMs: options.now(), faultsBefore: { ...options.faultCounts?.() }, rejected: false })
    } else if (strict && isRecorded(request)) {
      pending.set(request, { wallMs: Date.now(), virtualMs: 0, faultsBefore: {}, rejected: false })
    }
    done()
  })

  app.addHook('preValidation', async (request: FastifyRequest) => {
    const state = pending.get(request)
    if (state === undefined || request.routeOptions.config?.operation === undefined) return
    state.violations = checkRequest(factsOf(request))
    if (!strict) return
    const broken = state.violations.find((v) => RULES_BY_ID.get(v.rule)?.strictOnly === true)
    if (broken === undefined) return
    state.rejected = true
    const code = RULES_BY_ID.get(broken.rule)?.code
    // Only the strict codes take a `detail`; strict-only rules always have one.
    throw apiError(code as 'E_STRICT_UNKNOWN_PARAMETER', { detail: broken.detail })
  })

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload?: unknown) => void) => {
    const state = pending.get(request)
    if (state !== undefined && typeof payload === 'string') {
      state.answer = readAnswer(request.operation, reply.statusCode, request.format, payload)
    }
    done(null, payload)
  })

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const state = pending.get(request)
    if (state !== undefined && journal.enabled) {
      pending.delete(request)
      journal.add(entryOf(request, reply, state))
    }
    done()
  })

  const entryOf = (request: FastifyRequest, reply: FastifyReply, state: Pending): Omit<JournalEntry, 'id'> => {
    const status = reply.statusCode
    const facts = factsOf(request, status)
    // Requests rejected before preValidation (401, 404, 405, 415) are checked now.
    const violations = state.violations ?? checkRequest(facts)
    const answer = state.answer ?? { errorCodes: [], partial: [], states: [] }
    const { path } = pathParts(request.url)
    const fault = faultOf(request, facts.operation, answer, state.faultsBefore, options.faultCounts?.())
    return {
      time: new Date(state.wallMs).toISOString(),
      wallMs: state.wallMs,
      virtualTime: new Date(state.virtualMs).toISOString(),
      operation: facts.operation,
      method: request.method,
      path,
      query: recordedQuery(facts.rawQuery),
      ...(facts.hasBody
        ? { body: { contentType: facts.contentType ?? null, bytes: Number(request.headers['content-length'] ?? 0), shape: shapeOf(request.body) } }
        : {}),
      ...(facts.suffix === undefined ? {} : { suffix: facts.suffix }),
      ...(facts.accept === undefined ? {} : { accept: facts.accept }),
      ...(facts.contentType === undefined ? {} : { contentType: facts.contentType }),
      format: request.format,
      status,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
      errorCodes: answer.errorCodes,
      partialErrors: answer.partial.map((p) => {
        const uuid = options.uuidOf(p.agent)
        return uuid === undefined ? p : { ...p, uuid }
      }),
      agentStates: answer.states,
      violations,
      rejected: state.rejected,
      ...(fault === undefined ? {} : { fault }),
      callKey: callKey(request.method, facts.operation, facts.rawQuery, request.body)
    }
  }
}

/** Query values as received, except anything that looks like a credential. */
function recordedQuery(rawQuery: string): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const [key, values] of parseQuery(rawQuery)) out[key] = CREDENTIAL_KEY.test(key) ? values.map(() => '[redacted]') : values
  return out
}

/** Equal for the same call made again: method, operation, parameters (any order) and body. */
export function callKey(method: string, operation: string, rawQuery: string, body: unknown): string {
  const params = [...parseQuery(rawQuery)].map(([k, v]) => `${k}=${v.join('\u0000')}`).sort()
  return createHash('sha1')
    .update(`${method} ${operation}\n${params.join('&')}\n${body === undefined ? '' : JSON.stringify(body)}`)
    .digest('hex')
    .slice(0, 16)
}

function faultOf(
  request: FastifyRequest,
  operation: string,
  answer: AnswerFacts,
  before: Record<string, number>,
  after: Readonly<Record<string, number>> | undefined
): string | undefined {
  const told = (request as unknown as MaybeFault).faultInjected
  if (typeof told === 'string' && told !== '') return told
  if (Array.isArray(told) && told.length > 0) return told.join('+')
  // Otherwise: the fault kinds counted for this operation while the request ran. Exact for one
  // request at a time; concurrent calls of one operation may share each other's faults.
  const kinds: string[] = []
  for (const [key, count] of Object.entries(after ?? {})) {
    const space = key.indexOf(' ')
    if (key.slice(space + 1) === operation && count > (before[key] ?? 0)) kinds.push(key.slice(0, space))
  }
  if (kinds.length === 0 && answer.errorCodes.includes('E_FAULT_INJECTED')) kinds.push('error')
  return kinds.length === 0 ? undefined : kinds.sort().join('+')
}
