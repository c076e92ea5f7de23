/**
 * What the journal keeps of the requests the fast path answers (fast-path.ts), so that reading
 * the journal gives the entries fastify's hooks would have made (src/journal/recorder.ts),
 * while a request answered here adds no object of its own that the journal holds:
 * - an answer sent again (kept) shares its facts with every request it was sent to
 *   (FastPathAnswer, kept on the answer);
 * - an answer built for one request shares its shape (format and headers) with every request
 *   that came with the same headers (BuiltShape), and the journal keeps its own URL in a column
 *   and its text as bytes (OwnText).
 *
 * Why it matters: an object per request lives as long as the journal keeps it (10,000 requests
 * by default), so every young-generation GC copies it, then the old generation collects it. For
 * a client asking for 2,000 agents in turn, this and keeping answers only when asked for again
 * (AnswerCache.keepAskedAgain) took the server's CPU per answer from 65-66 to 45-51 µs (JSON)
 * (bench/README.md, "Where the three workloads stand").
 */
import { keptFacts, type AnswerFacts } from '../journal/answer.js'
import { callKey } from '../journal/call-key.js'
import { HEADER_CAP, URL_CAP, itemsCharge, keptViolations, requestCharge } from '../journal/journal-bounds.js'
import { SharedFacts, type Journal, type JournalEntry, type JournalViolation, type KeptBody, type OwnNumbers, type OwnText, type Truncated } from '../journal/journal.js'
import { answerAsKept, bodyCharge, keepBytes, keepText, KEPT_BODY_BYTES } from '../journal/kept-body.js'
import { LAZY_ANSWER_CHARS, entryOf, factsFrom, keptRaw, type AnsweredRequest, type RawFacts } from '../journal/recorder.js'
import { checkRequest } from '../journal/rules.js'
import type { Format } from '../protocol/negotiation.js'
import type { KeptAnswer } from './answer-cache.js'
import { AGENTINFO_SCHEMA } from './routes/agentinfo.js'

const OPERATION = 'agentinfo'

/** The request fastify's recorder would have seen: a GET of agentinfo, routed, without a body. */
function rawFacts(url: string, accept: string | undefined, contentType: string | undefined): RawFacts {
  return { method: 'GET', url, operation: OPERATION, routed: true, schema: AGENTINFO_SCHEMA, accept, contentType, hasBody: false, body: undefined }
}

/** The entry of a request the fast path answered with 200, from what it keeps of it (`answered`). */
function answeredEntry(raw: RawFacts, format: Format, own: OwnNumbers, answered: Pick<AnsweredRequest, 'body' | 'answer' | 'violations' | 'key' | 'truncated' | 'responseBody'>): JournalEntry {
  const numbers = { durationMs: own.durationMs, wallMs: own.wallMs, virtualMs: own.virtualMs }
  return entryOf({ raw, status: 200, format, ...numbers, rejected: false, validated: true, ...answered, partialErrors: [] }, own.id)
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
    const full = rawFacts(kept.url, accept, contentType)
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
    // A large answer's beginning is read from its bytes: a list kept as bytes has its text decoded only if asked for (ListAnswer).
    const head = bodyBytes === 0 ? undefined : this.text === undefined ? keepBytes(kept.body, bodyBytes, answerBytes) : keepText(kept.text, bodyBytes, answerBytes)
    this.responseBody = head === undefined ? undefined : answerAsKept(head, kept.url, undefined)
    // Each built entry is charged the answer's beginning: built entries keep it after these
    // facts are released with their last holder.
    this.entryBytes = requestCharge(raw.url, raw.accept, raw.contentType) + bodyCharge(this.responseBody)
  }

  entry(own: OwnNumbers): JournalEntry {
    const { text, format, answerFacts, raw, truncated, whole, responseBody } = this
    return answeredEntry(raw, format, own, {
      ...(answerFacts === undefined ? { body: text } : { answer: answerFacts }),
      ...(whole === undefined ? {} : { violations: whole.violations, key: whole.key }),
      ...(truncated === undefined ? {} : { truncated }),
      ...(responseBody === undefined ? {} : { responseBody })
    })
  }
}

function keptAnswerFacts(kept: KeptAnswer, answerBytes: number, format: Format, accept: string | undefined, contentType: string | undefined, bodyBytes: number): FastPathAnswer {
  const known = kept.journalFacts
  if (known instanceof FastPathAnswer && known.accept === accept && known.contentType === contentType && known.format === format) return known
  // As the recorder does: a large answer is read now rather than kept until the entry is.
  const small = kept.size <= LAZY_ANSWER_CHARS
  const shared = new FastPathAnswer(kept, answerBytes, format, accept, contentType, small ? undefined : keptFacts(kept, OPERATION, format), bodyBytes)
  kept.journalFacts = shared
  return shared
}

/**
 * What requests answered with an answer built for each share: the format and the headers the
 * journal keeps. Each request's URL and answer text are its own (OwnText, in the journal's
 * columns), and its entry is made from them as FastPathAnswer makes one, when it is read.
 * Only for requests whose URL, headers and answer the journal keeps whole (BUILT_URL_CHARS,
 * BUILT_HEADER_CHARS, LAZY_ANSWER_CHARS); others get a FastPathAnswer of their own.
 */
class BuiltShape extends SharedFacts {
  readonly bytes: number
  /** each request is charged its OwnText's bytes */
  readonly entryBytes = 0

  constructor(
    readonly format: Format,
    readonly accept: string | undefined,
    readonly contentType: string | undefined,
    private readonly bodyBytes: number
  ) {
    super()
    this.bytes = (accept?.length ?? 0) + (contentType?.length ?? 0)
  }

  /**
   * A request's own URL and text, charged what its entry holds once read: the request's part
   * (requestCharge), the answer's beginning and the text the entry reads its states from (two
   * bytes a character: a string with one character past Latin-1 takes two for every one).
   */
  own(url: string, answer: Buffer): OwnText {
    // Charged by its bytes: at least its characters, and counted without decoding it.
    const length = answer.length
    const beginning = this.bodyBytes > 0 ? KEPT_BODY_BYTES + 2 * Math.min(length, this.bodyBytes) : 0
    return { url, answer, bytes: requestCharge(url, this.accept, this.contentType) + beginning + 2 * length }
  }

  entry(own: OwnNumbers): JournalEntry {
    const url = own.url as string
    const text = own.text as string
    // Kept whole: shapeOf takes only URLs and headers within the journal's caps.
    const { raw } = keptRaw(rawFacts(url, this.accept, this.contentType))
    return answeredEntry(raw, this.format, own, {
      body: text,
      ...(this.bodyBytes > 0 ? { responseBody: answerAsKept(keepText(text, this.bodyBytes), url, undefined) } : {})
    })
  }
}

/** URLs and headers this long are kept whole whatever their characters (three UTF-8 bytes each at most). */
const BUILT_URL_CHARS = Math.floor(URL_CAP / 3)
const BUILT_HEADER_CHARS = Math.floor(HEADER_CAP / 3)

/** Records the fast path's requests in the journal (see the top of this file). */
export class FastPathJournal {
  /** the shape of the last request answered with a built answer: clients send the same headers again and again */
  private shape: BuiltShape | undefined

  constructor(private readonly journal: Journal) {}

  get enabled(): boolean {
    return this.journal.enabled
  }

  /**
   * Records a request answered with `answer`, which was built for it (`built`) or kept; `bytes`
   * is its length as sent.
   */
  record(answer: KeptAnswer, built: boolean, bytes: number, format: Format, accept: string | undefined, contentType: string | undefined, durationMs: number, wallMs: number, virtualMs: number): void {
    const shape = built ? this.shapeOf(format, accept, contentType, answer) : undefined
    if (shape !== undefined) this.journal.addShared(shape, durationMs, wallMs, virtualMs, shape.own(answer.url, answer.body))
    else this.journal.addShared(keptAnswerFacts(answer, bytes, format, accept, contentType, this.journal.bodyBytes), durationMs, wallMs, virtualMs)
  }

  private shapeOf(format: Format, accept: string | undefined, contentType: string | undefined, answer: KeptAnswer): BuiltShape | undefined {
    // Its size, not its text's length: a built answer's text is not decoded (BytesAnswer).
    if (answer.url.length > BUILT_URL_CHARS || answer.size > LAZY_ANSWER_CHARS) return undefined
    const last = this.shape
    if (last !== undefined && last.format === format && last.accept === accept && last.contentType === contentType) return last
    if ((accept?.length ?? 0) > BUILT_HEADER_CHARS || (contentType?.length ?? 0) > BUILT_HEADER_CHARS) return undefined
    this.shape = new BuiltShape(format, accept, contentType, this.journal.bodyBytes)
    return this.shape
  }
}
