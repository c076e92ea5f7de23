/**
 * What the journal reads from an answer's body: error codes of request errors, per-agent
 * failures of multi-agent operations, and the agent states an answer showed. String bodies are
 * read, and kept answers sent as bytes once (keptFacts); a list that streams notes the states
 * it shows as it is written (src/http/list-bytes.ts, request.streamedStates). Only the
 * operations that carry these things are read, so the common answer costs nothing.
 */
import { AGENT_STATES } from '../protocol/states.js'
import type { PartialError } from './journal.js'

const MULTI_AGENT = new Set(['assigntemplatetoagent', 'updateandreloadagent', 'startagent', 'stopagent', 'deleteagent'])
const WITH_STATES = new Set(['agentinfo', 'viewagentortemplate'])
const STATE_JSON = AGENT_STATES.map((state) => ({ state, text: `"status":"${state}"` }))
const STATE_XML = AGENT_STATES.map((state) => ({ state, text: `<status>${state}</status>` }))
const CODE_JSON = /"code":"(E_[A-Z_]+)"/g
const CODE_XML = /<code>(E_[A-Z_]+)<\/code>/g
const ERROR_XML = /<errors><status>0<\/status><message>([^<]*)<\/message><\/errors>/g

/**
 * The facts of answers sent as bytes: a kept answer is sent again as the bytes made the first
 * time it was (src/http/answer-cache.ts), and read once from its text rather than per request
 * (a list of 10,000 agents is 8.5 MB). Keyed by the bytes, so the facts go with them.
 */
const factsOfBytes = new WeakMap<Uint8Array, AnswerFacts>()

/**
 * The facts of a 200 answer kept as bytes (`kept.body`), read from its text the first time they
 * are asked for and kept with the bytes after: the route (sendKept) and the fast path
 * (fast-path-journal.ts) send a kept answer again, and both ask here. An answer kept as it was
 * streamed has its facts noted as it was written (statedBytes), and its text is not read.
 */
export function keptFacts(kept: { readonly body: Uint8Array; readonly text: string }, operation: string, format: 'json' | 'xml'): AnswerFacts {
  let facts = factsOfBytes.get(kept.body)
  if (facts === undefined) {
    facts = readAnswer(operation, 200, format, kept.text)
    factsOfBytes.set(kept.body, facts)
  }
  return facts
}

/**
 * Notes the agent states a 200 answer of `bytes` shows, known as it was written (a list written
 * as bytes notes them, list-bytes.ts): keptFacts then has them without reading its text.
 */
export function statedBytes(bytes: Uint8Array, states: readonly string[]): void {
  factsOfBytes.set(bytes, { errorCodes: [], partial: [], states: [...states] })
}

/** The facts keptFacts read for these bytes, if it did. */
export function bytesFacts(bytes: Uint8Array): AnswerFacts | undefined {
  return factsOfBytes.get(bytes)
}

/** Answers of this operation carry agent states (read from a 200 answer). */
export function hasStates(operation: string): boolean {
  return WITH_STATES.has(operation)
}

export interface AnswerFacts {
  errorCodes: string[]
  /** failures as `agent: reason`, before the agent is looked up */
  partial: Array<{ agent: string; message: string }>
  states: string[]
}

const EMPTY: AnswerFacts = Object.freeze({ errorCodes: [], partial: [], states: [] }) as AnswerFacts

export function readAnswer(operation: string, status: number, format: 'json' | 'xml', body: string): AnswerFacts {
  if (status >= 400) {
    const codes = [...body.matchAll(format === 'json' ? CODE_JSON : CODE_XML)].map((m) => m[1])
    return { errorCodes: [...new Set(codes)], partial: [], states: [] }
  }
  if (status === 200 && WITH_STATES.has(operation)) {
    return { errorCodes: [], partial: [], states: statesIn(format, body) }
  }
  if (status === 200 && MULTI_AGENT.has(operation) && body.includes('errors')) {
    return { errorCodes: [], partial: partialErrors(format, body), states: [] }
  }
  return EMPTY
}

/**
 * The states the answer shows, in the order they first appear. One pass over the body from
 * one `"status":"` (`<status>`) to the next, each checked against the states found so far
 * first: a list of 10,000 agents is about 8.5 MB, and a search per state went through all of
 * it for every state the list does not show. No pattern either: it makes a match object per item.
 */
function statesIn(format: 'json' | 'xml', body: string): string[] {
  const marker = format === 'json' ? '"status":"' : '<status>'
  const candidates = format === 'json' ? STATE_JSON : STATE_XML
  const found: Array<{ state: string; text: string }> = []
  for (let at = body.indexOf(marker); at !== -1 && found.length < candidates.length; at = body.indexOf(marker, at + marker.length)) {
    if (found.some(({ text }) => body.startsWith(text, at))) continue
    const state = candidates.find(({ text }) => body.startsWith(text, at))
    if (state !== undefined) found.push(state)
  }
  return found.map(({ state }) => state)
}

function partialErrors(format: 'json' | 'xml', body: string): Array<{ agent: string; message: string }> {
  let messages: string[]
  if (format === 'json') {
    try {
      const parsed = JSON.parse(body) as { errors?: Array<{ message?: unknown }> }
      messages = (parsed.errors ?? []).map((e) => String(e.message ?? ''))
    } catch {
      return []
    }
  } else {
    messages = [...body.matchAll(ERROR_XML)].map((m) => unescapeXml(m[1]))
  }
  return messages.map((message) => {
    // The facade prefixes each failure with the agent's name: `web-02: agent is not connected`.
    const at = message.indexOf(': ')
    return { agent: at === -1 ? '' : message.slice(0, at), message }
  })
}

function unescapeXml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&')
}

export type { PartialError }
