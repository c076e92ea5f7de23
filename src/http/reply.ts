/**
 * Sends envelopes in the negotiated format. JSON goes through the route's response schema
 * (fast-json-stringify); XML is rendered by xml-writer.ts.
 *
 * Long lists (agentinfo by state, certificateinfo) are read lazily: the first items are
 * collected, and if the list ends there the envelope is sent as usual; otherwise the response
 * streams, item by item in batches, so a million agents never become a million-item array.
 * Each item is a torn-free snapshot of its agent; items are read as the stream is consumed.
 */
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { JSON_TYPE, XML_TYPE } from './negotiation.js'
import type { ErrorItem, Link } from './schemas.js'
import { XML_CLOSE, xmlDocument, xmlElement, xmlOpen } from './xml-writer.js'

export interface Envelope {
  servicename: string
  values?: unknown[]
  errors?: ErrorItem[]
  links?: Link[]
}

export function sendEnvelope(request: FastifyRequest, reply: FastifyReply, body: Envelope, status = 200): FastifyReply {
  reply.code(status)
  if (request.format === 'json') return reply.type(JSON_TYPE).send(body)
  return reply.type(XML_TYPE).send(xmlDocument(body as Envelope & Record<string, unknown>))
}

/** Items sent in one go before a list switches to streaming; also the batch size of a stream. */
export const EAGER_ITEMS = 1000
/**
 * Items in the first batch of a list known to be long: the answer starts after these rather
 * than after EAGER_ITEMS (bench: first byte of 100k ONLINE agents, 1000 items were ~10 ms of
 * work on a quiet machine before anything was sent).
 */
export const FIRST_STREAMED_ITEMS = 64

/**
 * `expected`: how many items the list will probably have (it may change while streaming).
 * Above EAGER_ITEMS the answer streams at once, after a small first batch.
 */
export function sendList(
  request: FastifyRequest,
  reply: FastifyReply,
  servicename: string,
  items: Iterator<unknown>,
  links: Link[],
  expected?: number
): FastifyReply {
  const eager = expected !== undefined && expected > EAGER_ITEMS ? FIRST_STREAMED_ITEMS : EAGER_ITEMS
  const first: unknown[] = []
  let next = items.next()
  while (!next.done && first.length < eager) {
    first.push(next.value)
    next = items.next()
  }
  if (next.done) return sendEnvelope(request, reply, { servicename, values: first, links })
  const pending = next.value
  const json = request.format === 'json'
  const chunks = json ? jsonChunks(servicename, first, pending, items, links) : xmlChunks(servicename, first, pending, items, links)
  reply.code(200).type(json ? JSON_TYPE : XML_TYPE)
  return reply.send(Readable.from(chunks, { objectMode: false }))
}

function* batches(first: unknown[], pending: unknown, rest: Iterator<unknown>): Generator<unknown[]> {
  yield first
  let batch: unknown[] = [pending]
  for (let next = rest.next(); !next.done; next = rest.next()) {
    batch.push(next.value)
    if (batch.length === EAGER_ITEMS) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}

function* jsonChunks(servicename: string, first: unknown[], pending: unknown, rest: Iterator<unknown>, links: Link[]): Generator<string> {
  let separator = ''
  yield `{"servicename":${JSON.stringify(servicename)},"values":[`
  for (const batch of batches(first, pending, rest)) {
    yield separator + batch.map((item) => JSON.stringify(item)).join(',')
    separator = ','
  }
  yield `],"links":${JSON.stringify(links)}}`
}

function* xmlChunks(servicename: string, first: unknown[], pending: unknown, rest: Iterator<unknown>, links: Link[]): Generator<string> {
  yield xmlOpen(servicename)
  for (const batch of batches(first, pending, rest)) {
    let chunk = ''
    for (const item of batch) chunk += xmlElement('values', item)
    yield chunk
  }
  yield xmlElement('links', links) + XML_CLOSE
}
