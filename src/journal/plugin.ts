/**
 * The traffic plugin: the request journal and strict checking (recorder.ts); and journalRoutes,
 * the admin endpoints that read them:
 *
 * - `GET /__admin/requests?operation=&status=&since=&after=&limit=`: journal entries, oldest
 *   first, with what the journal holds (`stored`, `bytes`), its bounds (`capacity`, `maxBytes`)
 *   and `lastId`, the cursor a live reader sends back as `after` to get only newer entries
 * - `GET /__admin/requests/<id>`: one entry, by its id
 * - `DELETE /__admin/requests`: clears the journal (and so the report)
 * - `GET /__admin/report`: the client report, JSON; HTML with `Accept: text/html` or `?format=html`
 *
 * The endpoints take the facade's REST_USER / REST_PASSWORD headers. They answer JSON whatever
 * the accept header says, except the HTML report. Other `/__admin/*` endpoints (clock,
 * scenario, faults) live in src/admin; this plugin owns only these paths.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AuthCheck, Credentials } from '../protocol/auth.js'
import { apiError, sent } from '../protocol/errors.js'
import { credentialProblem } from '../protocol/credential-problem.js'
import { OPERATION_NAMES, isOperation } from '../protocol/operations.js'
import { suggest } from '../lib/suggest.js'
import '../protocol/request-context.js'
import { JOURNAL_DEFAULTS, Journal, type JournalFilter } from './journal.js'
import { registerRecorder } from './recorder.js'
import { buildReport, type ClientReport } from './report.js'
import { renderHtml } from './report-html.js'

/** Entries `GET /__admin/requests` returns without `limit`. */
export const DEFAULT_REQUESTS_LIMIT = 1000

export interface ClientTrafficOptions {
  /** journal entries kept (0: no journal); default 10,000 */
  journalSize?: number
  /** bytes the journal's entries may hold together; default 32 MiB */
  journalMaxBytes?: number
  /** bytes of each request and answer body an entry keeps (0: none); default 4 KiB */
  journalBodyBytes?: number
  /** reject requests that break a strict-only rule with 400; default false */
  strict?: boolean
  /** credentials of the journal and report endpoints (the admin ones); default: the facade's */
  auth?: Credentials
}

/** What one app records of its clients and how strictly it judges them: the request journal, strict mode and the client report. */
export interface ClientTraffic {
  readonly journal: Journal
  readonly strict: boolean
  readonly auth?: Credentials
  report(): ClientReport
}

export function createClientTraffic(options: ClientTrafficOptions = {}): ClientTraffic {
  const journal = new Journal(
    options.journalSize ?? JOURNAL_DEFAULTS.size,
    options.journalMaxBytes ?? JOURNAL_DEFAULTS.maxBytes,
    options.journalBodyBytes ?? JOURNAL_DEFAULTS.bodyBytes
  )
  const strict = options.strict ?? false
  return {
    journal,
    strict,
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    report: () => buildReport(journal.entries(), { capacity: journal.capacity, dropped: journal.dropped, strict })
  }
}

export interface TrafficPluginOptions {
  traffic: ClientTraffic
  /** virtual time, epoch ms */
  now: () => number
  uuidOf: (name: string) => string | undefined
  faultCounts?: () => Readonly<Record<string, number>>
}

/**
 * The operations of `?operation=`, each one of the interface's: a name that is none (a typo,
 * a path) would match no entry, and an empty answer would read as "no such requests".
 */
function operationNames(text: string): string[] {
  const names = text.split(',').map((o) => o.trim()).filter((o) => o !== '')
  for (const name of names) {
    if (isOperation(name)) continue
    const near = suggest(name.toLowerCase(), OPERATION_NAMES)
    const hint = near === undefined ? '' : ` (did you mean "${near}"?)`
    throw apiError('E_INVALID_VALUE', { where: 'query parameter', name: 'operation', rule: `must name operations of the interface, comma-delimited, as GET /openapi.json lists them: ${sent(name)} is none${hint}`, got: sent(text) })
  }
  return names
}

function parseFilter(query: Record<string, string | string[] | undefined>): JournalFilter {
  const one = (name: string): string | undefined => {
    const value = query[name]
    return Array.isArray(value) ? value.join(',') : value
  }
  const filter: JournalFilter = { limit: DEFAULT_REQUESTS_LIMIT }
  const operation = one('operation')
  if (operation !== undefined && operation !== '') filter.operations = operationNames(operation)
  const status = one('status')
  if (status !== undefined && status !== '') {
    if (!/^([1-5]xx|\d{3})$/i.test(status)) throw apiError('E_INVALID_VALUE', { where: 'query parameter', name: 'status', rule: 'must be a status like 503 or a class like 5xx', got: JSON.stringify(status) })
    filter.status = status
  }
  const since = one('since')
  if (since !== undefined && since !== '') {
    const ms = /^\d+$/.test(since) ? Number(since) : Date.parse(since)
    if (Number.isNaN(ms)) throw apiError('E_INVALID_VALUE', { where: 'query parameter', name: 'since', rule: 'must be an ISO 8601 date-time or epoch milliseconds', got: JSON.stringify(since) })
    filter.since = ms
  }
  const after = one('after')
  if (after !== undefined && after !== '') {
    if (!/^\d+$/.test(after)) throw apiError('E_INVALID_VALUE', { where: 'query parameter', name: 'after', rule: 'must be an entry id (a whole number, the lastId of an earlier answer)', got: JSON.stringify(after) })
    filter.after = Number(after)
  }
  const limit = one('limit')
  if (limit !== undefined && limit !== '') {
    if (!/^\d+$/.test(limit) || Number(limit) < 1) throw apiError('E_INVALID_VALUE', { where: 'query parameter', name: 'limit', rule: 'must be a positive integer', got: JSON.stringify(limit) })
    filter.limit = Number(limit)
  }
  return filter
}

function wantsHtml(request: FastifyRequest, format: string | undefined): boolean {
  if (format !== undefined) return format === 'html'
  const accept = request.headers.accept ?? ''
  return /\btext\/html\b/i.test(accept)
}

async function trafficPluginImpl(app: FastifyInstance, options: TrafficPluginOptions): Promise<void> {
  const { traffic } = options
  registerRecorder(app, {
    journal: traffic.journal,
    strict: traffic.strict,
    now: options.now,
    uuidOf: options.uuidOf,
    ...(options.faultCounts === undefined ? {} : { faultCounts: options.faultCounts })
  })
}

export const trafficPlugin = Object.assign(trafficPluginImpl, { [Symbol.for('skip-override')]: true })

/**
 * The journal's admin endpoints (above). Registered after the OpenAPI plugin (src/app.ts), which
 * documents only the routes added after it, while the recorder's hooks come before every route.
 */
export function journalRoutes(app: FastifyInstance, { traffic, authCheck }: { traffic: ClientTraffic; authCheck: AuthCheck }): void {
  // Errors of these endpoints are JSON (the facade's error handler answers in request.format), in
  // the admin API's envelope (servicename "admin", as the other /__admin endpoints' errors).
  const onRequest = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    request.format = 'json'
    request.operation = 'admin'
    done(authCheck(request.headers) ? undefined : apiError('E_UNAUTHORIZED', { problem: credentialProblem(request.headers, request.url, request.raw.rawHeaders) }))
  }
  // In the OpenAPI document as the other admin routes (src/admin/openapi.ts); `x-fleetsim-*` are
  // read by src/http/openapi.ts and validate nothing: parseFilter checks the query with its own messages.
  const route = (operationId: string, summary: string, extra: Record<string, unknown> = {}) => ({ onRequest, schema: { operationId, summary, tags: ['admin'], ...extra } })
  const listQuery = [
    { name: 'operation', description: 'operation names, comma-delimited (agentinfo,stopagent)' },
    { name: 'status', description: 'a status (503) or a class (5xx)' },
    { name: 'since', description: 'entries received at or after this time: ISO 8601 or epoch milliseconds' },
    { name: 'after', description: 'entries with an id above this one: the lastId of an earlier answer' },
    { name: 'limit', description: `entries at most (default ${DEFAULT_REQUESTS_LIMIT})` }
  ]

  app.get('/__admin/requests', route('adminListRequests', 'Journal entries, oldest first, with what the journal holds and lastId, the cursor for after', { 'x-fleetsim-query': listQuery }), async (request) => {
    const filter = parseFilter(request.query as Record<string, string | undefined>)
    const entries = traffic.journal.query(filter)
    const { journal } = traffic
    return { entries, returned: entries.length, lastId: journal.lastId, stored: journal.size, dropped: journal.dropped, capacity: journal.capacity, bytes: journal.bytes, maxBytes: journal.maxBytes }
  })

  app.get<{ Params: { id: string } }>('/__admin/requests/:id', route('adminGetRequest', 'One journal entry, by its id'), async (request) => {
    const { journal } = traffic
    const entry = /^\d{1,15}$/.test(request.params.id) ? journal.get(Number(request.params.id)) : undefined
    if (entry !== undefined) return entry
    const first = journal.lastId - journal.size + 1
    throw apiError('E_UNKNOWN_JOURNAL_ENTRY', { id: request.params.id, held: journal.size === 0 ? null : { first, last: journal.lastId } })
  })

  app.delete('/__admin/requests', route('adminClearRequests', 'Clear the journal (and so the client report)', { 'x-fleetsim-status': 204 }), async (_request, reply) => {
    traffic.journal.clear()
    return reply.code(204).send()
  })

  app.get('/__admin/report', route('adminGetReport', 'The client report: what the client did and did wrong (docs/harness.md); HTML with Accept: text/html or format=html', { 'x-fleetsim-query': [{ name: 'format', description: 'json (the default) or html' }], 'x-fleetsim-html': true }), async (request, reply) => {
    const format = (request.query as { format?: string }).format
    if (format !== undefined && format !== 'html' && format !== 'json') {
      throw apiError('E_NOT_IN_ENUM', { where: 'query parameter', name: 'format', allowed: ['json', 'html'], got: JSON.stringify(format) })
    }
    const report = traffic.report()
    if (wantsHtml(request, format)) return reply.type('text/html; charset=utf-8').send(renderHtml(report))
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(report))
  })
}
