/**
 * The front door: sends a repeated agentinfo-by-name request its kept answer (answer-cache.ts)
 * before fastify routes it, and hands every other request to fastify.
 *
 * Why: a client polling agents asks for the same few answers again and again, and once the
 * answer was kept, most of what a request still cost was fastify's chain of hooks (limits,
 * journal, faults, metrics, validation) in the bench's profile (bench/README.md). Here it
 * costs a lookup, the journal entry and the metrics.
 *
 * A request is answered here only where fastify would send exactly these bytes and do nothing
 * more, so everything else goes to fastify:
 * - GET without a body, with a Host header, on a connection within --max-connections;
 * - credentials that pass, and a format that negotiates as fastify's route would;
 * - the door is open (`open`): not in strict mode (its rules run in preValidation), no fault
 *   rule (faults act in preHandler), and no request lines in the log (level above info);
 * - a kept answer for this format, host, path and query that is still true.
 * What fastify's hooks would record is recorded: a journal entry and the API metrics (the
 * in-flight gauge is not touched: the request is answered before anything else runs).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { readAnswer, type AnswerFacts } from '../harness/answer.js'
import { LAZY_ANSWER_CHARS, entryOf } from '../harness/recorder.js'
import type { Journal, JournalEntry } from '../harness/journal.js'
import { answerLabels, observeAnswer, type ApiMetrics } from '../metrics/api-metrics.js'
import { answerKey, type AnswerCache, type KeptAnswer } from './answer-cache.js'
import type { AuthCheck } from './auth.js'
import { connectionOverLimit } from './limits.js'
import { JSON_TYPE, XML_TYPE, negotiate, type Format } from './negotiation.js'
import { AGENTINFO_SCHEMA } from './routes/agentinfo.js'

export interface FrontDoorOptions {
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
const DOOR_LABELS = answerLabels(OPERATION, 'GET', 200)

export function frontDoor(options: FrontDoorOptions, routing: RequestListener): RequestListener {
  const { answers, authCheck, journal, now, api, open } = options
  return (request: IncomingMessage, response: ServerResponse) => {
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
      !open()
    ) {
      return routing(request, response)
    }
    const format = negotiate(suffixOf(url), headers.accept, headers['content-type'])
    if (format === null) return routing(request, response)
    const socket = request.socket as Socket & { encrypted?: boolean }
    const kept = answers.get(answerKey(format, socket.encrypted === true, host, url))
    if (kept === undefined || connectionOverLimit(socket) !== undefined || !authCheck(headers)) return routing(request, response)

    const wallMs = Date.now()
    response.writeHead(200, { 'content-type': format === 'json' ? JSON_TYPE : XML_TYPE, 'content-length': kept.body.length })
    response.end(kept.body)
    const seconds = (performance.now() - started) / 1000
    observeAnswer(api, DOOR_LABELS, seconds, kept.body.length)
    if (journal.enabled) {
      // As the recorder does: a large answer is read now rather than kept until the entry is.
      const small = kept.text.length <= LAZY_ANSWER_CHARS
      const entry: DoorAnswer = {
        kept,
        accept: interned(headers.accept),
        contentType: interned(headers['content-type']),
        format,
        facts: small ? undefined : readAnswer(OPERATION, 200, format, kept.text),
        durationMs: Math.round(seconds * 1000 * 100) / 100,
        wallMs,
        virtualMs: now()
      }
      journal.addLazy(entry, entryOfDoorAnswer)
    }
  }
}

/**
 * Header values as one shared string each: the journal holds thousands of entries, and a
 * value the parser made for one request would live as long as its entry.
 */
const internedValues = new Map<string, string>()

function interned(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const known = internedValues.get(value)
  if (known !== undefined) return known
  // Header values come from clients; the bound keeps a hostile client from growing the map.
  if (internedValues.size < 256) internedValues.set(value, value)
  return value
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
 * What the journal keeps of a request the door answered: one small object per request that
 * shares the kept answer (its text and path) and the header values with every other entry.
 * It becomes the entry fastify's hooks would have made (src/harness/recorder.ts) when the
 * journal is read.
 */
interface DoorAnswer {
  kept: KeptAnswer
  accept: string | undefined
  contentType: string | undefined
  format: Format
  /** a large answer's facts, read at once; a small one is read from `kept` when the entry is built */
  facts: AnswerFacts | undefined
  durationMs: number
  wallMs: number
  virtualMs: number
}

function entryOfDoorAnswer(answer: DoorAnswer, id: number): JournalEntry {
  const { kept, accept, contentType, format, facts } = answer
  return entryOf(
    {
      raw: { method: 'GET', url: kept.url, operation: OPERATION, routed: true, schema: AGENTINFO_SCHEMA, accept, contentType, hasBody: false, body: undefined },
      status: 200,
      format,
      durationMs: answer.durationMs,
      wallMs: answer.wallMs,
      virtualMs: answer.virtualMs,
      rejected: false,
      validated: true,
      ...(facts === undefined ? { body: kept.text } : { answer: facts }),
      partialErrors: []
    },
    id
  )
}
