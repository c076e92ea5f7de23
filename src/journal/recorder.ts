/**
 * The request hooks of the journal: they gather each request's facts, check the strict-mode
 * rules (rejecting in --strict), read the answer, and add one journal entry per request.
 *
 * Registered at the root (skip-override), so the hooks see every route. Recorded: every request
 * to an operation route, and requests that matched no route (404/405: wrong paths and methods
 * are client mistakes too). Not recorded: `/__admin/*`, `/console/*`, `/metrics`, `/openapi.json`.
 *
 * Hook order matters: the operation's own onRequest hook (route level) runs after ours, so the
 * operation and format are read from preValidation on; the strict check runs in preValidation,
 * after authentication (a 401 stays a 401) and body parsing, before schema validation (so
 * the raw query is judged, not its coerced form).
 */
import { announcesBody } from '../lib/announced-body.js'
import type { ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { misnamedCredentials } from '../protocol/credential-problem.js'
import { apiError } from '../protocol/errors.js'
import { convertLenient } from '../protocol/lenient.js'
import '../protocol/request-context.js'
import { bytesFacts, hasStates, readAnswer, type AnswerFacts } from './answer.js'
import { callKey } from './call-key.js'
import { HEADER_CAP, URL_CAP, cut, itemsCharge, keptViolations, measureShape, requestCharge } from './journal-bounds.js'
import type { Journal, JournalEntry, JournalViolation, KeptBody, PartialError, Truncated } from './journal.js'
import { KEPT_BODY_BYTES, answerAsKept, bodyCharge, keepBytes, keepText, redactBody } from './kept-body.js'
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
  /** fault counts when the request arrived; NO_FAULTS while none were ever counted */
  faultsBefore: Readonly<Record<string, number>>
  /** the route's config and schema, read once (fastify builds `routeOptions` on every read) */
  config: { operation?: string } | undefined
  schema: FastifySchemaLike | undefined
  /** preValidation ran: the rules judge the request as it was then (no status) */
  validated: boolean
  /** the body as parsed, kept at preValidation: validation replaces it with its converted form */
  parsedBody?: unknown
  violations?: JournalViolation[]
  rejected: boolean
  answer?: AnswerFacts
  /** a small agentinfo / viewagentortemplate answer, read for its states when the entry is */
  body?: string
  /** the answer as onSend saw it, for its beginning (read when the request is recorded) */
  payload?: string | Uint8Array
  /** the beginning of a streamed answer and the bytes it sent (tapPipe) */
  streamed?: StreamedBody
}

interface StreamedBody {
  /** the first chunk's beginning */
  head?: KeptBody
  /** the first chunk's bytes */
  firstBytes: number
  /** the bytes of every chunk */
  bytes: number
}

type FastifySchemaLike = { querystring?: unknown; body?: unknown }

const NO_FAULTS: Readonly<Record<string, number>> = Object.freeze({})
/** Larger answers are read at once rather than kept until the journal is read. */
export const LAZY_ANSWER_CHARS = 16 * 1024

const OPERATION_PREFIX = '/restservice/'

/** Fault kinds a request met, as the faults plugin sets them (src/faults/plugin.ts). */
type MaybeFault = { faultInjected?: unknown }

function schemaProperties(schema: unknown): SchemaProperties {
  const properties = (schema as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {}
  return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, value.type ?? 'unknown']))
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

function isRecorded(request: FastifyRequest, config: { operation?: string; url?: string } | undefined): boolean {
  if (request.url.startsWith('/__admin') || request.url.startsWith('/console')) return false
  // Operation routes, and no route at all (404/405); never /metrics, /openapi.json and the like.
  return config?.operation !== undefined || config?.url === undefined
}

function hasKeys(record: Readonly<Record<string, number>>): boolean {
  for (const _ in record) return true
  return false
}

/** The query and body property types of a route schema, worked out once per schema. */
const propertiesCache = new WeakMap<object, { query: SchemaProperties; body?: SchemaProperties }>()

function propertiesOf(schema: FastifySchemaLike | undefined): { query: SchemaProperties; body?: SchemaProperties } {
  let properties = schema === undefined ? undefined : propertiesCache.get(schema)
  if (properties === undefined) {
    properties = {
      query: schemaProperties(schema?.querystring),
      ...(schema?.body === undefined ? {} : { body: schemaProperties(schema.body) })
    }
    if (schema !== undefined) propertiesCache.set(schema, properties)
  }
  return properties
}

/** The request's facts from what was captured of it (`raw`), with `status` for post-hoc rules. */
export function factsFrom(raw: RawFacts, status?: number): RequestFacts {
  const { rawQuery, pathName, suffix } = pathParts(raw.url)
  const properties = propertiesOf(raw.schema)
  return {
    method: raw.method,
    operation: raw.operation,
    routed: raw.routed,
    ...(status === undefined ? {} : { status }),
    pathName,
    ...(suffix === undefined ? {} : { suffix }),
    rawQuery,
    ...(raw.accept === undefined ? {} : { accept: raw.accept }),
    ...(raw.contentType === undefined ? {} : { contentType: raw.contentType }),
    hasBody: raw.hasBody,
    body: raw.body,
    ...(raw.misnamedCredentials === undefined ? {} : { misnamedCredentials: raw.misnamedCredentials }),
    queryProperties: properties.query,
    ...(properties.body === undefined ? {} : { bodyProperties: properties.body }),
    ...(raw.hasBody && raw.schema?.body !== undefined ? { conversions: convertLenient(raw.body, raw.schema.body as Parameters<typeof convertLenient>[1]).conversions } : {})
  }
}

function misnamedOf(request: FastifyRequest): { misnamedCredentials?: string } {
  const misnamed = misnamedCredentials(request.headers)
  return misnamed === undefined ? {} : { misnamedCredentials: misnamed }
}

export function registerRecorder(app: FastifyInstance, options: RecorderOptions): void {
  const { journal, strict } = options
  const pending = new WeakMap<FastifyRequest, Pending>()
  const rawOf = (request: FastifyRequest, state: Pending): RawFacts => ({
    method: request.method,
    url: request.url,
    operation: request.operation || state.config?.operation || '',
    routed: state.config?.operation !== undefined,
    schema: state.schema,
    accept: request.headers.accept,
    contentType: request.headers['content-type'],
    hasBody: announcesBody(request.headers),
    body: state.validated ? state.parsedBody : request.body,
    ...misnamedOf(request)
  })

  app.addHook('onRequest', function journalStart(request: FastifyRequest, _reply: FastifyReply, done: () => void) {
    if (journal.enabled || strict) {
      const routeOptions = request.routeOptions
      const config = routeOptions.config as { operation?: string; url?: string } | undefined
      if (isRecorded(request, config)) {
        let faultsBefore = NO_FAULTS
        if (journal.enabled) {
          const counts = options.faultCounts?.()
          if (counts !== undefined && hasKeys(counts)) faultsBefore = { ...counts }
        }
        pending.set(request, {
          wallMs: Date.now(),
          virtualMs: journal.enabled ? options.now() : 0,
          faultsBefore,
          config,
          schema: routeOptions.schema as FastifySchemaLike | undefined,
          validated: false,
          rejected: false
        })
      }
    }
    done()
  })

  app.addHook('preValidation', function strictRules(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) {
    const state = pending.get(request)
    if (state === undefined || state.config?.operation === undefined) return done()
    state.validated = true
    state.parsedBody = request.body
    // Lenient: the rules are checked when the entry is read (or at once if the request has a body).
    if (!strict) return done()
    state.violations = checkRequest(factsFrom(rawOf(request, state)))
    const broken = state.violations.find((v) => RULES_BY_ID.get(v.rule)?.strictOnly === true)
    if (broken === undefined) return done()
    state.rejected = true
    const code = RULES_BY_ID.get(broken.rule)?.code
    // Only the strict codes take a `detail`; strict-only rules always have one.
    done(apiError(code as 'E_STRICT_UNKNOWN_PARAMETER', { detail: broken.detail }))
  })

  app.addHook('onSend', function journalAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload?: unknown) => void) {
    const state = pending.get(request)
    if (state !== undefined && typeof payload === 'string') {
      const status = reply.statusCode
      if (status === 200 && journal.enabled && payload.length <= LAZY_ANSWER_CHARS && hasStates(request.operation)) state.body = payload
      else state.answer = readAnswer(request.operation, status, request.format, payload)
    } else if (state !== undefined && payload instanceof Uint8Array) {
      // A kept answer sent again: its facts were read once from its text (keptFacts).
      state.answer = bytesFacts(payload)
    }
    const faulted = (request as unknown as MaybeFault).faultInjected !== undefined
    if (state !== undefined && journal.enabled && journal.bodyBytes > 0) {
      if (typeof payload === 'string' || payload instanceof Uint8Array) state.payload = payload
      // A streamed answer, or one a fault may still turn into a stream (slow and truncated
      // bodies, src/faults/plugin.ts, whose onSend runs after this one): what is piped to the client.
      if (isStream(payload) || faulted) tapPipe(reply.raw, state, journal.bodyBytes)
    }
    // A truncated body ends with the connection cut: the response never finishes, and fastify
    // runs no onResponse hook. Such a call is recorded when its response closes.
    if (state !== undefined && journal.enabled && faulted) {
      reply.raw.once('close', () => {
        if (pending.get(request) !== state) return
        pending.delete(request)
        record(request, reply, state)
      })
    }
    done(null, payload)
  })

  app.addHook('onResponse', function journalEntry(request: FastifyRequest, reply: FastifyReply, done: () => void) {
    const state = pending.get(request)
    if (state !== undefined && journal.enabled) {
      pending.delete(request)
      record(request, reply, state)
    }
    done()
  })

  /**
   * Captures what the entry needs from the request now; the rest (dates, query, rules, call
   * key) is worked out when the journal is read. A body and per-agent failures are read now:
   * a handler may still change the body object, and a failed agent may be deleted later.
   */
  const record = (request: FastifyRequest, reply: FastifyReply, state: Pending): void => {
    const full = rawOf(request, state)
    const status = reply.statusCode
    const format = request.format
    const durationMs = Math.round(reply.elapsedTime * 100) / 100
    const { wallMs, virtualMs, rejected } = state
    const body = state.body
    const answer = state.answer ?? streamedAnswer(request, status)
    const { raw, truncated } = keptRaw(full)
    // The rules and the call key read the request as it came, so they are worked out now when
    // the kept facts lost something (a body is not kept; long text is cut).
    const readNow = full.hasBody || truncated !== undefined
    let found = state.violations
    // Requests rejected before preValidation (401, 404, 405, 415) are checked with their status.
    if (found === undefined && readNow) found = checkRequest(factsFrom(full, state.validated ? undefined : status))
    const { violations, truncated: cutTo } = found === undefined ? { violations: undefined, truncated } : keptViolations(found, truncated)
    const measured = full.hasBody ? measureShape(request.body) : undefined
    const bodyFacts = measured === undefined ? undefined : { contentType: raw.contentType ?? null, bytes: Number(request.headers['content-length'] ?? 0), shape: measured.shape }
    const key = readNow ? callKey(full.method, full.operation, pathParts(full.url).rawQuery, full.body) : undefined
    const cap = journal.bodyBytes
    const requestBody = cap > 0 && request.bodyText !== '' ? redactBody(keepText(request.bodyText, cap, contentLength(request.headers['content-length']))) : undefined
    const sent = cap > 0 ? answerBody(state, reply, cap) : undefined
    const responseBody = sent === undefined ? undefined : answerAsKept(sent, full.url, requestBody)
    const fault = faultOf(request, raw.operation, answer ?? EMPTY_ANSWER, state.faultsBefore, options.faultCounts?.())
    const partialErrors =
      answer === undefined || answer.partial.length === 0
        ? []
        : answer.partial.map((p) => {
            const uuid = options.uuidOf(p.agent)
            return uuid === undefined ? p : { ...p, uuid }
          })
    const answered: AnsweredRequest = {
      raw,
      status,
      format,
      durationMs,
      wallMs,
      virtualMs,
      rejected,
      validated: state.validated,
      ...(body === undefined ? {} : { body }),
      ...(answer === undefined ? {} : { answer }),
      ...(violations === undefined ? {} : { violations }),
      ...(bodyFacts === undefined ? {} : { bodyFacts }),
      ...(key === undefined ? {} : { key }),
      ...(fault === undefined ? {} : { fault }),
      ...(cutTo === undefined ? {} : { truncated: cutTo }),
      ...(requestBody === undefined ? {} : { requestBody }),
      ...(responseBody === undefined ? {} : { responseBody }),
      partialErrors
    }
    // What the entry will hold, from lengths at hand: the kept text, the answer kept until
    // the entry is read, and what was read at once.
    const bytes =
      requestCharge(raw.url, raw.accept, raw.contentType) +
      (body?.length ?? 0) +
      bodyCharge(requestBody) +
      // An answer kept whole is the very string kept for its states (`body`), charged above.
      (responseBody !== undefined && responseBody.text === body ? KEPT_BODY_BYTES : bodyCharge(responseBody)) +
      (measured?.bytes ?? 0) +
      (violations === undefined ? 0 : itemsCharge(violations)) +
      (partialErrors.length === 0 ? 0 : itemsCharge(partialErrors))
    // The entry is built from these facts when the journal is first read.
    journal.addLazy(answered, entryOf, bytes)
  }
}

/**
 * What the journal keeps of a request's facts: the URL and headers cut to their caps
 * (journal-bounds.ts), and no body (its shape, rules and call key are read when it is
 * answered), with what was cut.
 */
export function keptRaw(full: RawFacts): { raw: RawFacts; truncated?: Truncated } {
  const url = cut(full.url, URL_CAP, 'bytes')
  const accept = full.accept === undefined ? undefined : cut(full.accept, HEADER_CAP, 'bytes')
  const contentType = full.contentType === undefined ? undefined : cut(full.contentType, HEADER_CAP, 'bytes')
  if (url === full.url && accept === full.accept && contentType === full.contentType) return { raw: full.hasBody ? { ...full, body: undefined } : full }
  const raw = { ...full, url, accept, contentType, body: full.hasBody ? undefined : full.body }
  const truncated: Truncated = {
    ...(url === full.url ? {} : { url: full.url.length }),
    ...(accept === full.accept ? {} : { accept: full.accept?.length }),
    ...(contentType === full.contentType ? {} : { contentType: full.contentType?.length })
  }
  return { raw, truncated }
}

/**
 * What the journal keeps of an answered request until its entry is read: the raw facts, and
 * what had to be read at once (see record). Dates, query, rules and call key come later.
 */
export interface AnsweredRequest {
  raw: RawFacts
  status: number
  format: 'json' | 'xml'
  /** wall ms from arrival to the answer sent */
  durationMs: number
  wallMs: number
  virtualMs: number
  rejected: boolean
  /** the request reached preValidation: the rules judge it as it was then (no status) */
  validated: boolean
  /** a small agentinfo / viewagentortemplate answer, read for its states when the entry is */
  body?: string
  answer?: AnswerFacts
  violations?: JournalViolation[]
  bodyFacts?: JournalEntry['body']
  key?: string
  fault?: string
  /** what of the request was cut (keptRaw) */
  truncated?: Truncated
  /** the beginnings of the request's and the answer's bodies (kept-body.ts) */
  requestBody?: KeptBody
  responseBody?: KeptBody
  partialErrors: PartialError[]
}

/** The journal entry of an answered request (built when the journal is read). */
export function entryOf(answered: AnsweredRequest, id: number): JournalEntry {
  const { raw, status, format, body, bodyFacts, fault, key, requestBody, responseBody } = answered
  const answer = answered.answer ?? (body === undefined ? EMPTY_ANSWER : readAnswer(raw.operation, status, format, body))
  const facts = factsFrom(raw, status)
  const { path } = pathParts(raw.url)
  // Violations not found yet are those of a request kept whole (see record).
  const { violations, truncated } =
    answered.violations === undefined
      ? keptViolations(checkRequest(answered.validated ? factsFrom(raw) : facts), answered.truncated)
      : { violations: answered.violations, truncated: answered.truncated }
  return {
    id,
    time: new Date(answered.wallMs).toISOString(),
    wallMs: answered.wallMs,
    virtualTime: new Date(answered.virtualMs).toISOString(),
    operation: raw.operation,
    method: raw.method,
    path,
    query: recordedQuery(facts.rawQuery),
    ...(bodyFacts === undefined ? {} : { body: bodyFacts }),
    ...(requestBody === undefined ? {} : { requestBody }),
    ...(responseBody === undefined ? {} : { responseBody }),
    ...(facts.suffix === undefined ? {} : { suffix: facts.suffix }),
    ...(facts.accept === undefined ? {} : { accept: facts.accept }),
    ...(facts.contentType === undefined ? {} : { contentType: facts.contentType }),
    format,
    status,
    durationMs: answered.durationMs,
    errorCodes: answer.errorCodes,
    partialErrors: answered.partialErrors,
    agentStates: answer.states,
    violations,
    rejected: answered.rejected,
    ...(fault === undefined ? {} : { fault }),
    callKey: key ?? callKey(raw.method, raw.operation, facts.rawQuery, raw.body),
    ...(truncated === undefined ? {} : { truncated })
  }
}

/** What the recorder keeps of a request to build its entry later. */
export interface RawFacts {
  method: string
  url: string
  operation: string
  routed: boolean
  schema: FastifySchemaLike | undefined
  accept: string | undefined
  contentType: string | undefined
  hasBody: boolean
  body: unknown
  /**
   * The credentials the request sent under names the manager does not read (misnamedCredentials),
   * said when it was recorded: a few words, where its header names (up to a thousand, of up to a
   * megabyte) would have been kept with the entry, outside --journal-max-bytes. The fast path's
   * requests, authenticated, have none.
   */
  misnamedCredentials?: string
}

const EMPTY_ANSWER: AnswerFacts = Object.freeze({ errorCodes: [], partial: [], states: [] }) as unknown as AnswerFacts

/** Query values as received, except anything that looks like a credential. */
function recordedQuery(rawQuery: string): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const [key, values] of parseQuery(rawQuery)) out[key] = CREDENTIAL_KEY.test(key) ? values.map(() => '[redacted]') : values
  return out
}

/** What a streamed agent list showed (request.streamedStates, noted as it was written), once sent. */
function streamedAnswer(request: FastifyRequest, status: number): AnswerFacts | undefined {
  if (request.streamedStates === null || status !== 200 || !hasStates(request.operation)) return undefined
  return { errorCodes: [], partial: [], states: [...request.streamedStates()] }
}

function isStream(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function'
}

function contentLength(header: string | number | string[] | undefined): number | undefined {
  const bytes = Number(header)
  return typeof header !== 'object' && header !== '' && Number.isSafeInteger(bytes) && bytes >= 0 ? bytes : undefined
}

/**
 * Keeps the beginning of the stream piped into the response: of its first chunk only (a
 * streamed list may be a million agents), and counts the bytes of the rest.
 *
 * Why at the pipe: the response's own pipe reads the stream, and the listener joins it there.
 * A 'data' listener added in onSend would set the stream flowing at once, and a later onSend
 * hook that waits (a stalled answer, src/faults/plugin.ts) would lose the chunks read before
 * fastify pipes the stream; `pipe` listens for data before it tells the response it is piped.
 */
function tapPipe(response: ServerResponse, state: Pending, cap: number): void {
  const streamed: StreamedBody = { firstBytes: 0, bytes: 0 }
  response.once('pipe', (source: Readable) => {
    state.streamed = streamed
    source.on('data', (chunk: Uint8Array | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength
      if (streamed.head === undefined) {
        streamed.head = typeof chunk === 'string' ? keepText(chunk, cap, bytes) : keepBytes(chunk, cap, bytes)
        streamed.firstBytes = bytes
      }
      streamed.bytes += bytes
    })
  })
}

/** The beginning of the answer the client got: the stream piped to it, else what onSend saw. */
function answerBody(state: Pending, reply: FastifyReply, cap: number): KeptBody | undefined {
  const streamed = state.streamed
  if (streamed?.head !== undefined) return { ...streamed.head, bytes: streamed.bytes, truncated: streamed.head.truncated || streamed.bytes > streamed.firstBytes }
  const payload = state.payload
  if (payload === undefined || payload.length === 0) return undefined
  if (typeof payload === 'string') return keepText(payload, cap, contentLength(reply.getHeader('content-length')))
  return keepBytes(payload, cap, payload.byteLength)
}

function faultOf(
  request: FastifyRequest,
  operation: string,
  answer: AnswerFacts,
  before: Readonly<Record<string, number>>,
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
