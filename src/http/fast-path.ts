/**
 * The fast path: sends a repeated agentinfo-by-name request its kept answer (answer-cache.ts)
 * before fastify routes it, and hands every other request to fastify.
 *
 * Why: a client polling agents asks for the same few answers again and again, and once the
 * answer was kept, most of what a request still cost was fastify's chain of hooks (limits,
 * journal, faults, metrics, validation) in the bench's profile (bench/README.md). Here it
 * costs a lookup, the journal entry and the metrics.
 *
 * A request is answered here only where fastify would send exactly these bytes and do nothing
 * more, so everything else goes to fastify:
 * - GET without a body, HTTP/1.0 or 1.1 with one Host header, on a connection within --max-connections;
 * - credentials that pass, and a format that negotiates as fastify's route would;
 * - the fast path is open (`open`): not in strict mode (its rules run in preValidation), no fault
 *   rule (faults act in preHandler), and no request lines in the log (level above info);
 * - a kept answer for this format, host, path and query that is still true.
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
import type { AnswerCache, KeptAnswer } from './answer-cache.js'
import type { AuthCheck } from '../protocol/auth.js'
import { connectionOverLimit, headError } from './limits.js'
import { JSON_TYPE, XML_TYPE, negotiate, type Format } from '../protocol/negotiation.js'
import { AGENTINFO_SCHEMA } from './routes/agentinfo.js'

export interface FastPathOptions {
  answers: AnswerCache
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
    const kept = answers.get(url, format, socket.encrypted === true, host)
    if (kept === undefined || connectionOverLimit(socket) !== undefined || !authCheck(headers)) return routing(request, response)

    const wallMs = Date.now()
    response.writeHead(200, { 'content-type': format === 'json' ? JSON_TYPE : XML_TYPE, 'content-length': kept.body.length })
    response.end(kept.body)
    answered++
    const seconds = (performance.now() - started) / 1000
    observeAnswer(series, seconds, kept.body.length)
    if (journal.enabled) journal.addShared(journalFacts(kept, format, headers.accept, headers['content-type'], journal.bodyBytes), Math.round(seconds * 1000 * 100) / 100, wallMs, now())
  }
  return { handler, answered: () => answered }
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

  constructor(
    readonly kept: KeptAnswer,
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
    // The kept answer stays alive while an entry holds these facts, whatever the cache does.
    this.bytes =
      kept.text.length + kept.body.length + kept.url.length + (accept?.length ?? 0) + (contentType?.length ?? 0) + (this.whole === undefined ? 0 : itemsCharge(this.whole.violations))
    this.responseBody = bodyBytes > 0 ? answerAsKept(keepText(kept.text, bodyBytes, kept.body.length), kept.url, undefined) : undefined
    // Each built entry is charged the answer's beginning: built entries keep it after these
    // facts are released with their last holder.
    this.entryBytes = requestCharge(raw.url, raw.accept, raw.contentType) + bodyCharge(this.responseBody)
  }

  entry(own: OwnNumbers): JournalEntry {
    const { kept, format, answerFacts, raw, truncated, whole, responseBody } = this
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
        ...(answerFacts === undefined ? { body: kept.text } : { answer: answerFacts }),
        ...(whole === undefined ? {} : { violations: whole.violations, key: whole.key }),
        ...(truncated === undefined ? {} : { truncated }),
        ...(responseBody === undefined ? {} : { responseBody }),
        partialErrors: []
      },
      own.id
    )
  }
}

function journalFacts(kept: KeptAnswer, format: Format, accept: string | undefined, contentType: string | undefined, bodyBytes: number): FastPathAnswer {
  const known = kept.journalFacts
  if (known instanceof FastPathAnswer && known.accept === accept && known.contentType === contentType && known.format === format) return known
  // As the recorder does: a large answer is read now rather than kept until the entry is.
  const small = kept.text.length <= LAZY_ANSWER_CHARS
  const shared = new FastPathAnswer(kept, format, accept, contentType, small ? undefined : readAnswer(OPERATION, 200, format, kept.text), bodyBytes)
  kept.journalFacts = shared
  return shared
}
