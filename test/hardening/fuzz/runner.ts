/**
 * Runs generated requests (requests.ts) one after another against one app through `inject`,
 * and checks after each one:
 * - the answer is 2xx or 4xx (never 5xx, never a failed inject), in the error/result envelope,
 *   as JSON or XML; on an operation's own route, in the negotiated format;
 * - no agent appeared or vanished except through a successful addagent or deleteagent (or the
 *   rejoin of an agent deleted without revoking its certificate), and a successful delete
 *   removed only agents the request named;
 * - no prototype was polluted;
 * and every CHECK_EVERY requests (and at the end) the fleet invariants: counts by state equal
 * a scan, names and UUIDs are unique and look up to their agent, every agent, template and
 * label name follows the naming rule (src/http/names.ts), labels and template assignments
 * refer only to existing agents.
 *
 * The app is the facade with the admin API (src/admin), as `fleetsim serve` has it, so
 * scenario uploads are fuzzed too.
 *
 * The fleet's clock is paused; operations that wait for agents to reconnect are driven by
 * advancing it a second at a time (no sleeping).
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import fc from 'fast-check'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../../src/app.js'
import { createFleet, type FleetEngine } from '../../../src/fleet/fleet.js'
import { findNameProblem } from '../../../src/http/names.js'
import { negotiate, type Format } from '../../../src/protocol/negotiation.js'
import { OPERATIONS, isOperation } from '../../../src/protocol/operations.js'
import { createManager, type Manager } from '../../../src/manager/manager.js'
import { APP_PATH, CA, START } from '../../http/helpers.js'
import { openingRequests } from './hostile.js'
import { requestArbitrary, type FuzzRequest } from './requests.js'

export interface FuzzOptions {
  runs: number
  seed: number
  /** agents at the start; default 200 */
  agents?: number
  /** called every 1000 requests */
  progress?: (done: number, report: FuzzReport) => void
}

export interface FuzzReport {
  requests: number
  serverErrors: number
  /** injects that failed or never answered */
  dropped: number
  byStatus: Record<string, number>
  byOperation: Record<string, number>
  /** requests per generator family (requests.ts, hostile.ts) */
  byFamily: Record<string, number>
  /** wall-clock milliseconds spent on each family's requests, to see what a family costs the run */
  msByFamily: Record<string, number>
  added: number
  deleted: number
  invariantChecks: number
  /** the first problems found, each with the request that caused it */
  problems: string[]
  durationMs: number
}

export const FUZZ_LIMITS = { bodyLimit: 64 * 1024, maxListItems: 1000, maxQueryLength: 8 * 1024 }
const USER = 'fuzz'
const PASSWORD = 'fuzz-secret'
const CHUNK = 250
const CHECK_EVERY = 100
const MAX_PROBLEMS = 20
/** Wall-clock bound of one request; the slowest legitimate one (a 200,000-deep body) takes well under it. */
const REQUEST_TIMEOUT_MS = 15_000

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const began = performance.now()
  const fleet = await createFleet({ agents: options.agents ?? 200, seed: options.seed >>> 0, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
  const manager = createManager(fleet, CA)
  const { app } = await buildApp({ fleet, manager, ca: CA, processMetrics: false }, { user: USER, password: PASSWORD, ...FUZZ_LIMITS })
  const report: FuzzReport = { requests: 0, serverErrors: 0, dropped: 0, byStatus: {}, byOperation: {}, byFamily: {}, msByFamily: {}, added: 0, deleted: 0, invariantChecks: 0, problems: [], durationMs: 0 }
  const problem = (text: string) => {
    if (report.problems.length < MAX_PROBLEMS) report.problems.push(text)
  }
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).length
  const deletedEver = new Set<string>()

  try {
    const everyone = [...fleet.indices()]
    const pool = {
      appPath: APP_PATH,
      user: USER,
      password: PASSWORD,
      caFingerprint: CA.fingerprint,
      names: everyone.map((i) => fleet.name(i)),
      uuids: everyone.map((i) => fleet.uuid(i))
    }
    const arbitrary = requestArbitrary(pool)
    // The reported attacks first, in their order (hostile.ts), then the draw.
    const opening = openingRequests(pool).slice(0, options.runs)
    for (let chunk = 0; report.requests < options.runs; chunk++) {
      const fixed = chunk === 0 ? opening : []
      const drawn = Math.min(CHUNK, options.runs - report.requests) - fixed.length
      const batch = [...fixed, ...(drawn > 0 ? fc.sample(arbitrary, { seed: (options.seed + chunk) | 0, numRuns: drawn }) : [])]
      for (const request of batch) {
        const before = liveUuids(fleet)
        const sent = performance.now()
        const answer = await send(app, fleet, request)
        report.msByFamily[request.family] = Math.round((report.msByFamily[request.family] ?? 0) + performance.now() - sent)
        report.requests++
        const label = request.operation || '(other path)'
        report.byOperation[label] = (report.byOperation[label] ?? 0) + 1
        report.byFamily[request.family] = (report.byFamily[request.family] ?? 0) + 1
        if (answer instanceof Error) {
          report.dropped++
          problem(`no answer (${answer.message}) to ${describe(request)}`)
          continue
        }
        report.byStatus[answer.statusCode] = (report.byStatus[answer.statusCode] ?? 0) + 1
        if (answer.statusCode >= 500) report.serverErrors++
        const envelopeProblem = checkAnswer(request, answer)
        if (envelopeProblem !== undefined) problem(`${envelopeProblem}: ${describe(request)} → ${answer.statusCode} ${answer.body.slice(0, 300)}`)
        const lifeProblem = checkLife(request, answer, before, liveUuids(fleet), deletedEver, report)
        if (lifeProblem !== undefined) problem(`${lifeProblem}: ${describe(request)} → ${answer.statusCode} ${answer.body.slice(0, 300)}`)
        if (Object.getOwnPropertyNames(Object.prototype).length !== prototypeKeys || ({} as Record<string, unknown>).polluted !== undefined) {
          problem(`Object.prototype changed after ${describe(request)}`)
        }
        if (report.requests % CHECK_EVERY === 0) {
          for (const text of checkFleet(fleet, manager)) problem(`${text} (after request ${report.requests}: ${describe(request)})`)
          report.invariantChecks++
        }
        if (report.requests % 1000 === 0) options.progress?.(report.requests, report)
      }
    }
    for (const text of checkFleet(fleet, manager)) problem(`${text} (at the end)`)
    report.invariantChecks++
  } finally {
    await app.close()
    await fleet.close()
  }
  report.durationMs = Math.round(performance.now() - began)
  return report
}

/** Sends one request; drives the paused clock while an operation waits for agents. */
async function send(app: FastifyInstance, fleet: FleetEngine, request: FuzzRequest): Promise<LightMyRequestResponse | Error> {
  let done = false
  const pending = app
    .inject({ method: request.method as 'GET', url: request.url, headers: request.headers, ...(request.payload === undefined ? {} : { payload: request.payload }) })
    .then(
      (response) => response,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error)))
    )
    .finally(() => {
      done = true
    })
  for (let turn = 0; turn < 20 && !done; turn++) await nextTurn()
  for (let second = 0; second < 60 && !done; second++) {
    await fleet.advance(1)
    await nextTurn()
  }
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS)
  })
  const result = await Promise.race([pending, timeout])
  clearTimeout(timer)
  return result
}

function liveUuids(fleet: FleetEngine): Set<string> {
  const uuids = new Set<string>()
  for (const i of fleet.indices()) uuids.add(fleet.uuid(i))
  return uuids
}

function describe(request: FuzzRequest): string {
  const payload = request.payload === undefined ? '' : ` body ${JSON.stringify(String(request.payload).slice(0, 200))}${String(request.payload).length > 200 ? '…' : ''}`
  const url = request.url.length > 200 ? `${request.url.slice(0, 200)}…` : request.url
  return `${request.method} ${url} headers ${JSON.stringify(request.headers).slice(0, 200)}${payload}`
}

/** The operation route the request hit, with its suffix format, or undefined for other paths. */
function routeOf(request: FuzzRequest): { suffix: Format | undefined } | undefined {
  const path = request.url.split('?')[0]
  const last = path.slice(path.lastIndexOf('/') + 1)
  const rest = `${APP_PATH}/restservice/`
  if (request.operation === '' || !isOperation(request.operation)) return undefined
  if (request.operation === 'viewagentortemplate' && path.startsWith(`${rest}viewagentortemplate/`)) return { suffix: undefined }
  if (path !== `${rest}${last}`) return undefined
  if (last === request.operation) return { suffix: undefined }
  const suffix = last.endsWith('.json') ? 'json' : 'xml'
  return OPERATIONS[request.operation].suffix && last === `${request.operation}.${suffix}` ? { suffix } : undefined
}

function checkAnswer(request: FuzzRequest, answer: LightMyRequestResponse): string | undefined {
  const status = answer.statusCode
  if (status >= 500) return `server error ${status}`
  if (status < 200 || status >= 500 || (status >= 300 && status < 400)) return `unexpected status ${status}`
  // inject keeps the body of a HEAD answer that Node's server would drop on the wire.
  if (request.method === 'HEAD') return undefined
  if (status === 204) return answer.body === '' ? undefined : 'a body on a 204'
  const type = String(answer.headers['content-type'] ?? '')
  const format: Format | undefined = type.startsWith('application/json') ? 'json' : type.startsWith('application/xml') ? 'xml' : undefined
  if (format === undefined) return `content-type ${JSON.stringify(type)} is neither JSON nor XML`
  const route = routeOf(request)
  if (route !== undefined && status !== 404 && status !== 405) {
    const accept = request.headers.accept
    const contentType = request.headers['content-type']
    const expected = negotiate(route.suffix, typeof accept === 'string' ? accept : undefined, typeof contentType === 'string' ? contentType : undefined) ?? 'xml'
    if (expected !== format) return `answered ${format}, negotiated ${expected}`
  }
  if (format === 'json') {
    let body: { servicename?: unknown; errors?: Array<{ status?: unknown; message?: unknown; code?: unknown }> }
    try {
      body = JSON.parse(answer.body) as typeof body
    } catch {
      return 'JSON answer that does not parse'
    }
    if (typeof body !== 'object' || body === null || typeof body.servicename !== 'string') return 'JSON answer without servicename'
    if (status >= 400) {
      if (!Array.isArray(body.errors) || body.errors.length === 0) return 'error answer without errors'
      for (const error of body.errors) {
        if (error.status !== status || typeof error.message !== 'string' || typeof error.code !== 'string' || !error.code.startsWith('E_')) return 'malformed error item'
      }
    }
    return undefined
  }
  if (!answer.body.startsWith('<?xml') || !/<result servicename="[^"]*"/.test(answer.body)) return 'XML answer without the result root'
  if (status >= 400 && !/<errors><status>\d+<\/status><message>[^<]*<\/message><code>E_[A-Z_]+<\/code><\/errors>/.test(answer.body)) return 'XML error answer without an error item'
  return undefined
}

function checkLife(
  request: FuzzRequest,
  answer: LightMyRequestResponse,
  before: Set<string>,
  after: Set<string>,
  deletedEver: Set<string>,
  report: FuzzReport
): string | undefined {
  const removed = [...before].filter((uuid) => !after.has(uuid))
  const added = [...after].filter((uuid) => !before.has(uuid))
  const newcomers = added.filter((uuid) => !deletedEver.has(uuid))
  const ok = answer.statusCode >= 200 && answer.statusCode < 300
  const isOperationRoute = routeOf(request) !== undefined
  for (const uuid of removed) deletedEver.add(uuid)
  report.added += newcomers.length
  report.deleted += removed.length
  if (removed.length > 0) {
    if (!(isOperationRoute && request.operation === 'deleteagent' && ok)) return `${removed.length} agents vanished`
    let query = request.url.slice(request.url.indexOf('?') + 1).toLowerCase()
    try {
      query = decodeURIComponent(query)
    } catch {
      // a malformed escape: compare the raw text
    }
    const unnamed = removed.filter((uuid) => !query.includes(uuid))
    if (unnamed.length > 0) return `deleteagent removed agents it did not name: ${unnamed.join(', ')}`
  } else if (isOperationRoute && request.operation === 'deleteagent' && ok) {
    return 'deleteagent answered success but removed nothing'
  }
  const addedByRequest = isOperationRoute && request.operation === 'addagent' && ok
  if (newcomers.length !== (addedByRequest ? 1 : 0)) return `${newcomers.length} agents appeared`
  return undefined
}

/** Fleet-wide invariants; each broken one is one line. */
export function checkFleet(fleet: FleetEngine, manager: Manager): string[] {
  const problems: string[] = []
  const counts = Object.values(fleet.counts().byState)
  const scanned = fleet.scanCounts()
  if (JSON.stringify(counts) !== JSON.stringify(scanned)) problems.push(`counts ${JSON.stringify(counts)} differ from a scan ${JSON.stringify(scanned)}`)
  if (counts.reduce((a, b) => a + b, 0) !== fleet.size()) problems.push(`counts add up to ${counts.reduce((a, b) => a + b, 0)}, size is ${fleet.size()}`)
  const names = new Map<string, number>()
  const uuids = new Map<string, number>()
  const live = new Set<number>()
  for (const i of fleet.indices()) {
    live.add(i)
    const name = fleet.name(i)
    const uuid = fleet.uuid(i)
    if (names.has(name)) problems.push(`agents ${names.get(name)} and ${i} share the name ${JSON.stringify(name)}`)
    if (uuids.has(uuid)) problems.push(`agents ${uuids.get(uuid)} and ${i} share the UUID ${uuid}`)
    names.set(name, i)
    uuids.set(uuid, i)
    if (fleet.findByName(name) !== i) problems.push(`name ${JSON.stringify(name)} looks up to ${fleet.findByName(name)}, not ${i}`)
    if (findNameProblem(name) !== undefined) problems.push(`agent ${i} has the name ${JSON.stringify(name)}, which agentinfo?agentname= cannot address`)
    if (fleet.findByUuid(uuid) !== i) problems.push(`UUID ${uuid} looks up to ${fleet.findByUuid(uuid)}, not ${i}`)
  }
  if (live.size !== fleet.size()) problems.push(`${live.size} agents listed, size is ${fleet.size()}`)
  for (const label of manager.labels.all()) {
    if (findNameProblem(label.name) !== undefined) problems.push(`label ${JSON.stringify(label.name)} has a name removecustomlabel?labelNames= cannot address`)
    for (const index of label.agents.keys()) if (!live.has(index)) problems.push(`label ${JSON.stringify(label.name)} is assigned to agent ${index}, which does not exist`)
  }
  for (const template of manager.templates.all()) {
    if (names.has(template.name)) problems.push(`template ${JSON.stringify(template.name)} shares its name with an agent`)
    if (findNameProblem(template.name) !== undefined) problems.push(`template ${JSON.stringify(template.name)} breaks the naming rule`)
  }
  const capacity = Math.max(...live, 0) + 1000
  for (let i = 0; i < capacity; i++) {
    if (!live.has(i) && manager.templates.assignmentOf(i) !== undefined) problems.push(`agent ${i} does not exist but has a template assignment`)
  }
  return problems.slice(0, 10)
}
