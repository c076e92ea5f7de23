/**
 * What one journal entry holds: the request as the journal keeps it (journal-bounds.ts says
 * how much of it), the answer's facts and the rules it broke. Types only, shared by the ring
 * (journal.ts) and the bounds (journal-bounds.ts).
 */

/** The shape of a request body: types and keys, never values. */
export type BodyShape = string | { [key: string]: BodyShape } | [BodyShape?]

export interface JournalViolation {
  /** stable rule id, e.g. `list-repeated` (see rules.ts) */
  rule: string
  /** what exactly was wrong in this request */
  detail: string
}

/** One failed agent of a multi-agent answer's `errors`. */
export interface PartialError {
  agent: string
  /** the agent's UUID when the simulator still knows the name */
  uuid?: string
  message: string
}

export interface JournalEntry {
  /** increases by one per request, from 1; survives clearing */
  id: number
  /** wall time the request arrived, ISO 8601 */
  time: string
  /** wall time in epoch ms (for gaps between requests) */
  wallMs: number
  /** the fleet's virtual time when the request arrived, ISO 8601 */
  virtualTime: string
  /** the spec's operation name, or '' when the path names none */
  operation: string
  method: string
  /** path without the query string */
  path: string
  /** query parameters as received: every value of every key, in order */
  query: Record<string, string[]>
  body?: { contentType: string | null; bytes: number; shape: BodyShape }
  /**
   * The request body as received, its first --journal-body-bytes bytes (kept-body.ts): absent
   * when the request had none, when it was not read (413, 415) and with --journal-body-bytes 0.
   */
  requestBody?: KeptBody
  /** The answer's body, its first --journal-body-bytes bytes: absent when it had none and with --journal-body-bytes 0. */
  responseBody?: KeptBody
  /** `.json` / `.xml` suffix of the operation name, if any */
  suffix?: 'json' | 'xml'
  accept?: string
  contentType?: string
  /** format of the answer */
  format: 'json' | 'xml'
  status: number
  /** wall ms from arrival to the answer sent */
  durationMs: number
  /** catalogue codes of a request error */
  errorCodes: string[]
  /** per-agent failures reported in `errors` of a 200 answer */
  partialErrors: PartialError[]
  /** agent states in the answer (agentinfo, viewagentortemplate) */
  agentStates: string[]
  violations: JournalViolation[]
  /** true when --strict rejected the request for a violation */
  rejected: boolean
  /** the fault injected into this answer, e.g. `error` or `latency` */
  fault?: string
  /** digest of method, operation, query and body: equal keys are the same call again */
  callKey: string
  /**
   * Set when something was cut to its cap (journal-bounds.ts): the length the URL and headers
   * had (bytes), and the count of violations found. The cut text ends with `...[truncated: N bytes]`.
   */
  truncated?: Truncated
}

/**
 * The beginning of a body as the journal keeps it: cut on a UTF-8 character boundary, values
 * of fields named like credentials replaced by `[redacted]`.
 */
export interface KeptBody {
  /** the body's first bytes as text: all of it unless `truncated` */
  text: string
  /** the length of the whole body in bytes (of a streamed answer: the bytes sent) */
  bytes: number
  /** `text` is only the beginning of the body */
  truncated: boolean
}

/** What of a request was cut, with the length (or count) it had. */
export interface Truncated {
  url?: number
  accept?: number
  contentType?: number
  violations?: number
}
