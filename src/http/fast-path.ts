/**
 * The fast path: answers agentinfo by name before fastify routes the request, with the kept
 * answer (answer-cache.ts) or one it builds (and keeps, if asked for again) the way the route
 * does (keepByName), and hands every other request to fastify.
 *
 * Why: agentinfo by name is what inventory clients and pollers send most, and building the
 * answer costs a few microseconds (keepByName, item-bytes.ts) while fastify's chain of hooks around it
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
import type { Journal } from '../journal/journal.js'
import { answerSeries, observeAnswer, type ApiMetrics } from '../metrics/api-metrics.js'
import { MAX_KEPT_AGENTS, type AnswerCache, type BytesAnswer } from './answer-cache.js'
import { FastPathJournal } from './fast-path-journal.js'
import type { RouteKit } from './route-kit.js'
import type { AuthCheck } from '../protocol/auth.js'
import { connectionOverLimit, headError } from './limits.js'
import { JSON_TYPE, XML_TYPE, negotiate, type Format } from '../protocol/negotiation.js'
import { keepByName } from './routes/agentinfo.js'
import type { UnsentAnswers } from './unsent-answers.js'

/**
 * Every hook fastify runs for GET agentinfo, by phase in fastify's order, and what the fast
 * path does in its place. test/http/fast-path-hooks.test.ts reads the route's hooks from
 * fastify and fails when they are not exactly these: a hook added to the route (or to every
 * route) is not answered for until it is listed here with what the fast path does about it.
 */
export const AGENTINFO_HOOKS = {
  onRequest: {
    journalStart: 'the journal entry is added after the answer (journal.addShared), with the facts the recorder takes',
    checkLimits: 'headError and connectionOverLimit first; a query longer than --max-query-length, or an Upgrade header, is left to fastify',
    countInFlight: 'not counted: the request is answered before anything else runs, so it is never in flight',
    checkRequest: 'negotiate() and the credential check, as the route\'s own first hook does; shut while the fleet is reset (open()), which the hook waits for'
  },
  preParsing: { answerUnrouted: 'nothing to do: it acts on requests no route takes, and the fast path answers agentinfo\'s' },
  preValidation: { strictRules: 'shut in strict mode (open())' },
  preHandler: { injectFault: 'shut while a fault rule is in force (open())' },
  onSend: {
    holdUnsentAnswer: 'unsent.hold() before the answer is written; an answer it refuses goes to fastify, whose hook answers the 503',
    journalAnswer: 'the answer\'s facts: the kept answer\'s, or a built one\'s own URL and text (FastPathJournal)',
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
  /** --max-list-items: a longer list of names is fastify's to refuse (validation.ts, checkListSizes) */
  maxListItems: number
  /** the facade's credential check */
  authCheck: AuthCheck
  journal: Journal
  /** virtual time (epoch ms), for the journal */
  now: () => number
  api: ApiMetrics
  /** the bound on answers clients have not read (kept lists are large: over TLS each connection holds a copy) */
  unsent: UnsentAnswers
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
  const { answers, authCheck, journal, now, open, unsent } = options
  const build = byNameBuilder(options)
  const recorder = new FastPathJournal(journal)
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
      headers.upgrade !== undefined ||
      (headers['content-length'] !== undefined && headers['content-length'] !== '0') ||
      headError(request) !== undefined ||
      !open()
    ) {
      return routing(request, response)
    }
    // Every kept answer is agentinfo's (routes/agentinfo.ts): any other request goes on as it came.
    const suffix = build.agentinfoSuffix(url)
    if (suffix === undefined) return routing(request, response)
    const format = negotiate(suffix === '' ? undefined : suffix, headers.accept, headers['content-type'])
    if (format === null) return routing(request, response)
    const socket = request.socket as Socket & { encrypted?: boolean }
    const encrypted = socket.encrypted === true
    // Before the kept answers are looked at: a request the route would refuse must not count as a
    // hit, drop a stale answer or note its URL as asked for (AnswerCache.get).
    if (connectionOverLimit(socket) !== undefined || !authCheck(headers)) return routing(request, response)
    const found = answers.get(url, format, encrypted, host)
    // Without a query it is no plain request by name: fastify answers it.
    if (found === undefined && !url.includes('?')) return routing(request, response)
    const built = found === undefined ? build.answer(url, format, encrypted, host) : undefined
    const kept = found ?? built
    if (kept === undefined) return routing(request, response)

    // Past --unsent-answers-max-bytes: fastify's route sends the same answer, and its hook refuses it in the envelope.
    if (unsent.hold(kept.body, 'GET', response, socket) !== undefined) return routing(request, response)
    const wallMs = Date.now()
    // As bytes: an answer built just now was written as bytes (keepByName), a kept one encoded when first sent again.
    const bytes = kept.body.length
    response.writeHead(200, { 'content-type': format === 'json' ? JSON_TYPE : XML_TYPE, 'content-length': bytes })
    found?.sendingTo?.(response)
    response.end(kept.body)
    answered++
    const seconds = (performance.now() - started) / 1000
    observeAnswer(series, seconds, bytes)
    if (recorder.enabled) recorder.record(kept, found === undefined, bytes, format, headers.accept, headers['content-type'], Math.round(seconds * 1000 * 100) / 100, wallMs, now())
  }
  return { handler, answered: () => answered }
}

/**
 * Builds the answer to a plain agentinfo-by-name request the way the route does (keepByName),
 * where fastify's route would answer it with exactly that and nothing else: the path is one of
 * agentinfo's, the query is `agentname=<names>` and at most `agentwithmodules=true|false`, each
 * once, nothing to decode, no more names than --max-list-items, every name an agent's, and few
 * enough agents to keep the answer.
 * Anything else (an unknown agent, a lenient spelling the journal reports, an encoded name) is
 * left to fastify, which answers and records it in full.
 */
interface ByNameBuilder {
  /**
   * Whether the URL's path is one of agentinfo's, and which: the suffix of `agentinfo.json` or
   * `agentinfo.xml` (as the suffix routes have it), '' for `agentinfo`; undefined for any other path.
   */
  agentinfoSuffix(url: string): Format | '' | undefined
  /** the answer to `url`, one of agentinfo's (agentinfoSuffix), or undefined where fastify's would differ */
  answer(url: string, format: Format, encrypted: boolean, host: string): BytesAnswer | undefined
}

function byNameBuilder(options: FastPathOptions): ByNameBuilder {
  const { kit, appPath, maxQueryLength, maxListItems } = options
  const operation = `${appPath}/restservice/agentinfo`
  const fleet = kit.manager.fleet
  // Read in place, without a string cut from the URL per request: the path is the URL up to its first `?`.
  const agentinfoSuffix = (url: string): Format | '' | undefined => {
    if (!url.startsWith(operation)) return undefined
    const mark = url.indexOf('?', operation.length)
    const suffix = (mark === -1 ? url.length : mark) - operation.length
    if (suffix === 0) return ''
    if (suffix === 5 && url.startsWith('.json', operation.length)) return 'json'
    if (suffix === 4 && url.startsWith('.xml', operation.length)) return 'xml'
    return undefined
  }
  const answer = (url: string, format: Format, encrypted: boolean, host: string): BytesAnswer | undefined => {
    const mark = url.indexOf('?')
    if (mark === -1 || url.length - mark - 1 > maxQueryLength) return undefined
    let names: string | undefined
    let withModules: boolean | undefined
    // The query's `&`-separated pairs, read in place: `key=value`, or `key` alone (an empty value).
    for (let start = mark + 1; start <= url.length; ) {
      const ampersand = url.indexOf('&', start)
      const end = ampersand === -1 ? url.length : ampersand
      const equals = url.indexOf('=', start)
      const keyEnd = equals === -1 || equals > end ? end : equals
      const valueStart = keyEnd === end ? end : keyEnd + 1
      if (isKey(url, start, keyEnd, 'agentname') && names === undefined && valueStart < end && !encodedWithin(url, valueStart, end)) names = url.slice(valueStart, end)
      else if (isKey(url, start, keyEnd, 'agentwithmodules') && withModules === undefined && isKey(url, valueStart, end, 'true')) withModules = true
      else if (isKey(url, start, keyEnd, 'agentwithmodules') && withModules === undefined && isKey(url, valueStart, end, 'false')) withModules = false
      else return undefined
      start = end + 1
    }
    if (names === undefined) return undefined
    const indices: number[] = []
    // Counted as validation counts a list's items: every name but empty ones, repeated ones too.
    let listed = 0
    for (const part of names.split(',')) {
      const name = part.trim()
      if (name === '') continue
      if (++listed > maxListItems) return undefined
      const index = fleet.findByName(name)
      if (index === undefined) return undefined
      if (!indices.includes(index)) indices.push(index)
      if (indices.length > MAX_KEPT_AGENTS) return undefined
    }
    if (indices.length === 0) return undefined
    const protocol = encrypted ? 'https' : 'http'
    return keepByName(kit, { url, format, encrypted, host }, kit.links.baseOf(protocol, host), indices, withModules === true)
  }
  return { agentinfoSuffix, answer }
}

/** Whether `text` from `start` to `end` is `word`. */
function isKey(text: string, start: number, end: number, word: string): boolean {
  return end - start === word.length && text.startsWith(word, start)
}

/** Whether `text` from `start` to `end` holds a `%` or a `+`: a value that decodes to something else, left to fastify. */
function encodedWithin(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const code = text.charCodeAt(k)
    if (code === 0x25 || code === 0x2b) return true
  }
  return false
}
