/**
 * The fast path: answers agentinfo by name before fastify routes the request, with the kept
 * answer (answer-cache.ts) or one it builds and keeps the way the route does (keepByName), and
 * hands every other request to fastify.
 *
 * Why: agentinfo by name is what inventory clients and pollers send most, and building the
 * answer costs a few microseconds (item-writer.ts) while fastify's chain of hooks around it
 * (limits, journal, faults, metrics, validation) cost several times the bare route's whole
 * answer (bench/README.md, "What made each path fast"). Here it costs a lookup or the build,
 * the journal entry and the metrics.
 *
 * A request is answered here only where fastify would send exactly these bytes and do nothing
 * more, so everything else goes to fastify:
 * - GET without a body, HTTP/1.0 or 1.1 with one Host header, on a connection within --max-connections;
 * - credentials that pass, and a format that negotiates as fastify's route would;
 * - the fast path is open (`open`): not in strict mode (its rules run in preValidation), no fault
 *   rule (faults act in preHandler), and no request lines in the log (level above info);
 * - a kept answer for this format, host, path and query that is still true, or a plain request
 *   the route would answer with the answer built here (byNameBuilder says which).
 * What fastify's hooks would record is recorded: a journal entry and the API metrics (the
 * in-flight gauge is not touched: the request is answered before anything else runs).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { readAnswer, type AnswerFacts } from '../journal/answer.js'
import { callKey } from '../journal/call-key.js'
import { itemsCharge, keptViolations, requestCharge } from '../journal/journal-bounds.js'
import { SharedFacts, type Journal, type JournalEntry, type JournalViolation, type KeptBody, type OwnNumbers, type Truncated } from '../journal/journal.js'
import { answerAsKept, bodyCharge, keepText } from '../journal/kept-body.js'
import { LAZY_ANSWER_CHARS, entryOf, factsFrom, keptRaw, type RawFacts } from '../journal/recorder.js'
import { checkRequest } from '../journal/rules.js'
import { answerSeries, observeAnswer, type ApiMetrics } from '../metrics/api-metrics.js'
import { MAX_KEPT_AGENTS, type AnswerCache, type KeptAnswer } from './answer-cache.js'
import type { RouteKit } from './route-kit.js'
import type { AuthCheck } from '../protocol/auth.js'
import { connectionOverLimit, headError } from './limits.js'
import { JSON_TYPE, XML_TYPE, negotiate, type Format } from '../protocol/negotiation.js'
import { AGENTINFO_SCHEMA, keepByName } from './routes/agentinfo.js'

/**
 * Every hook fastify runs for GET agentinfo, by phase in fastify's order, and what the fast
 * path does in its place. test/http/fast-path-hooks.test.ts reads the route's hooks from
 * fastify and fails when they are not exactly these: a hook added to the route (or to every
 * route) is not answered for until it is listed here with what the fast path does about it.
 */
export const AGENTINFO_HOOKS = {
  onRequest: {
    journalStart: 'the journal entry is added after the answer (journal.addShared), with the facts the recorder takes',
    checkLimits: 'headError and connectionOverLimit first; a query longer than --max-query-length is left to fastify',
    countInFlight: 'not counted: the request is answered before anything else runs, so it is never in flight',
    checkRequest: 'negotiate() and the credential check, as the route\'s own first hook does'
  },
  preValidation: { strictRules: 'shut in strict mode (open())' },
  preHandler: { injectFault: 'shut while a fault rule is in force (open())' },
  onSend: {
    journalAnswer: 'the answer\'s facts are the kept answer\'s (FastPathAnswer)',
    shapeFaultyAnswer: 'shut while a fault rule is in force (open())',
    measureAnswer: 'observeAnswer() with the body\'s length'
  },
  onResponse: { journalEntry: 'journal.addShared()', observeRequest: 'observeAnswer()' }
} as const

export interface FastPathOptions {
  answers: AnswerCache
  /** what agentinfo by name is built from, as the route builds it (routes/agentinfo.ts) */
  kit: Pick<RouteKit, 'answers' | 'fragments' | 'manager' | 'links'>
  /** the app path (`/manager/mvc`): agentinfo is at `<appPath>/restservice/agentinfo` */
  appPath: string
  /** --max-query-length: a longer query is fastify's to refuse */
  maxQueryLength: number
  /** the facade's credential check */
  authCheck: AuthCheck
  journal: Journal
  /** virtual time (epoch ms), for the journal */
  now: () => number
  api: ApiMetrics
  /** whether a request may skip fastify's hooks now (see above) */
  open: () => boolean
}

const OPERATION = 'agentinfo'

export interface FastPath {
  /** the request listener: the fast path, then `routing` for everything it does not answer */
  readonly handler: RequestListener
  /** requests the fast path answered itself since it was made */
  answered(): number
}

export function fastPath(options: FastPathOptions, routing: RequestListener): FastPath {
  const { answers, authCheck, journal, now, open } = options
  const build = byNameBuilder(options)
  const series = answerSeries(options.api, OPERATION, 'GET', 200)
  let answered = 0
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now()
    const headers = request.headers
    const url = request.url ?? ''
    const host = headers.host
    if (
      request.method !== 'GET' ||
      host === undefined ||
      host === '' ||
      headers['transfer-encoding'] !== undefined ||
      (headers['content-length'] !== undefined && headers['content-length'] !== '0') ||
      headError(request) !== undefined ||
      !open()
    ) {
      return routing(request, response)
    }
    const format = negotiate(suffixOf(url), headers.accept, headers['content-type'])
    if (format === null) return routing(request, response)
    const socket = request.socket as Socket & { encrypted?: boolean }
    const encrypted = socket.encrypted === true
    const found = answers.get(url, format, encrypted, host)
    if ((found === undefined && !build.handles(url)) || connectionOverLimit(socket) !== undefined || !authCheck(headers)) return routing(request, response)
    const kept = found ?? build.answer(url, format, encrypted, host)
    if (kept === undefined) return routing(request, response)

    const wallMs = Date.now()
    // An answer built just now is written as text (encoded once, into the socket); a kept one
    // as the bytes encoded when it was first sent again.
    const bytes = found === undefined ? Buffer.byteLength(kept.text) : kept.body.length
    response.writeHead(200, { 'content-type': format === 'json' ? JSON_TYPE : XML_TYPE, 'content-length': bytes })
    response.end(found === undefined ? kept.text : kept.body)
    answered++
    const seconds = (performance.now() - started) / 1000
    observeAnswer(series, seconds, bytes)
    if (journal.enabled) journal.addShared(journalFacts(kept, bytes, format, headers.accept, headers['content-type'], journal.bodyBytes), Math.round(seconds * 1000 * 100) / 100, wallMs, now())
  }
  return { handler, answered: () => answered }
}

/**
 * Builds and keeps the answer to a plain agentinfo-by-name request the way the route does
 * (keepByName), where fastify's route would answer it with exactly that and nothing else:
 * the path is one of agentinfo's, the query is `agentname=<names>` and at most
 * `agentwithmodules=true|false`, each once, nothing to decode, every name an agent's, and few
 * enough agents to keep the answer. Anything else (an unknown agent, a lenient spelling the
 * journal reports, an encoded name) is left to fastify, which answers and records it in full.
 */
interface ByNameBuilder {
  /** whether the URL is agentinfo's with a query (a cheap look before the credentials are checked) */
  handles(url: string): boolean
  answer(url: string, format: Format, encrypted: boolean, host: string): KeptAnswer | undefined
}

function byNameBuilder(options: FastPathOptions): ByNameBuilder {
  const { kit, appPath, maxQueryLength } = options
  const operation = `${appPath}/restservice/agentinfo`
  const paths = new Set([operation, `${operation}.json`, `${operation}.xml`])
  const fleet = kit.manager.fleet
  const handles = (url: string) => {
    const mark = url.indexOf('?')
    return mark !== -1 && paths.has(url.slice(0, mark))
  }
  const answer = (url: string, format: Format, encrypted: boolean, host: string): KeptAnswer | undefined => {
    const mark = url.indexOf('?')
    if (!handles(url) || url.length - mark - 1 > maxQueryLength) return undefined
    let names: string | undefined
    let withModules: boolean | undefined
    for (const pair of url.slice(mark + 1).split('&')) {
      const equals = pair.indexOf('=')
      const key = equals === -1 ? pair : pair.slice(0, equals)
      const value = equals === -1 ? '' : pair.slice(equals + 1)
      if (key === 'agentname' && names === undefined && value !== '' && !/[%+]/.test(value)) names = value
      else if (key === 'agentwithmodules' && withModules === undefined && (value === 'true' || value === 'false')) withModules = value === 'true'
      else return undefined
    }
    if (names === undefined) return undefined
    const indices: number[] = []
    for (const part of names.split(',')) {
      const name = part.trim()
      if (name === '') continue
      const index = fleet.findByName(name)
      if (index === undefined) return undefined
      if (!indices.includes(index)) indices.push(index)
      if (indices.length > MAX_KEPT_AGENTS) return undefined
    }
    if (indices.length === 0) return undefined
    const protocol = encrypted ? 'https' : 'http'
    keepByName(kit, { url, format, encrypted, host }, kit.links.baseOf(protocol, host), indices, withModules === true)
    return options.answers.get(url, format, encrypted, host)
  }
  return { handles, answer }
}

/** The `.json` / `.xml` suffix of the operation in the path, as the suffix routes have it. */
function suffixOf(url: string): Format | undefined {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  if (path.endsWith('.json')) return 'json'
  if (path.endsWith('.xml')) return 'xml'
  return undefined
}

/**
 * What the journal keeps of the requests the fast path answered with one kept answer and the same
 * headers: shared by all of them (their timings are the journal's columns), and kept on the
 * answer for the next request. It becomes the entry fastify's hooks would have made
 * (src/journal/recorder.ts) when the journal is read. Its charges (SharedFacts) are worked
 * out once here, so a request adds a number the journal already has.
 */
class FastPathAnswer extends SharedFacts {
  readonly bytes: number
  readonly entryBytes: number
  /** the request as the journal keeps it (URL and headers cut to their caps) */
  private readonly raw: RawFacts
  private readonly truncated: Truncated | undefined
  /** the rules and call key of a request whose kept URL or headers were cut, read from the whole */
  private readonly whole: { violations: JournalViolation[]; key: string } | undefined
  /** the answer's beginning (--journal-body-bytes), shared by the entries built */
  private readonly responseBody: KeptBody | undefined
  /** a small answer's text, read when an entry is built; a large one is not held (a list is megabytes) */
  private readonly text: string | undefined

  constructor(
    kept: KeptAnswer,
    /** the answer's length in bytes (as sent: a built answer is not encoded apart for the journal) */
    answerBytes: number,
    readonly format: Format,
    readonly accept: string | undefined,
    readonly contentType: string | undefined,
    /** a large answer's facts, read at once; a small one is read from `kept` when an entry is built */
    readonly answerFacts: AnswerFacts | undefined,
    bodyBytes: number
  ) {
    super()
    const full: RawFacts = { method: 'GET', url: kept.url, operation: OPERATION, routed: true, schema: AGENTINFO_SCHEMA, accept, contentType, hasBody: false, body: undefined }
    const { raw, truncated } = keptRaw(full)
    this.raw = raw
    if (truncated === undefined) {
      this.truncated = undefined
      this.whole = undefined
    } else {
      const facts = factsFrom(full)
      const found = keptViolations(checkRequest(facts), truncated)
      this.truncated = found.truncated
      this.whole = { violations: found.violations, key: callKey('GET', OPERATION, facts.rawQuery, undefined) }
    }
    // A small kept answer stays alive while an entry holds these facts, whatever the cache does.
    this.text = answerFacts === undefined ? kept.text : undefined
    this.bytes =
      // The text, and its bytes once it is sent again (Kept.body).
      (this.text === undefined ? 0 : kept.text.length + answerBytes) +
      kept.url.length +
      (accept?.length ?? 0) +
      (contentType?.length ?? 0) +
      (this.whole === undefined ? 0 : itemsCharge(this.whole.violations))
    this.responseBody = bodyBytes > 0 ? answerAsKept(keepText(kept.text, bodyBytes, answerBytes), kept.url, undefined) : undefined
    // Each built entry is charged the answer's beginning: built entries keep it after these
    // facts are released with their last holder.
    this.entryBytes = requestCharge(raw.url, raw.accept, raw.contentType) + bodyCharge(this.responseBody)
  }

  entry(own: OwnNumbers): JournalEntry {
    const { text, format, answerFacts, raw, truncated, whole, responseBody } = this
    return entryOf(
      {
        raw,
        status: 200,
        format,
        durationMs: own.durationMs,
        wallMs: own.wallMs,
        virtualMs: own.virtualMs,
        rejected: false,
        validated: true,
        ...(answerFacts === undefined ? { body: text } : { answer: answerFacts }),
        ...(whole === undefined ? {} : { violations: whole.violations, key: whole.key }),
        ...(truncated === undefined ? {} : { truncated }),
        ...(responseBody === undefined ? {} : { responseBody }),
        partialErrors: []
      },
      own.id
    )
  }
}

function journalFacts(kept: KeptAnswer, answerBytes: number, format: Format, accept: string | undefined, contentType: string | undefined, bodyBytes: number): FastPathAnswer {
  const known = kept.journalFacts
  if (known instanceof FastPathAnswer && known.accept === accept && known.contentType === contentType && known.format === format) return known
  // As the recorder does: a large answer is read now rather than kept until the entry is.
  const small = kept.text.length <= LAZY_ANSWER_CHARS
  const shared = new FastPathAnswer(kept, answerBytes, format, accept, contentType, small ? undefined : readAnswer(OPERATION, 200, format, kept.text), bodyBytes)
  kept.journalFacts = shared
  return shared
}
