/**
 * Sends envelopes in the negotiated format. JSON goes through the route's response schema
 * (fast-json-stringify); XML is rendered by xml-writer.ts.
 *
 * Long lists (agentinfo by state, certificateinfo) are read lazily: the first items are
 * collected, and if the list ends there the envelope is sent as usual; otherwise the response
 * streams, item by item in batches, so a million agents never become a million-item array.
 * Each item is a torn-free snapshot of its agent; items are read as the stream is consumed.
 */
import type { ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { JSON_TYPE, XML_TYPE, type Format } from '../protocol/negotiation.js'
import type { ErrorItem, Link } from './schemas.js'
import { XML_CLOSE, xmlDocument, xmlElement, xmlOpen } from './xml-writer.js'
import { jsonEnvelopeHead, jsonEnvelopeTail, xmlLinks } from './item-writer.js'
import { endToEnd, STREAM_SLAB_BYTES } from './chunk-writer.js'
import { keptFacts } from '../journal/answer.js'

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

/** The envelope as sendEnvelope would send it with status 200: JSON by the route's response schema, or XML. */
export function renderEnvelope(request: FastifyRequest, reply: FastifyReply, body: Envelope): string {
  // The response schema's serializer yields a string.
  if (request.format === 'json') return reply.code(200).serialize(body) as string
  return xmlDocument(body as Envelope & Record<string, unknown>)
}

/**
 * Sends a kept answer (KeptAnswer, answer-cache.ts) again as the bytes it keeps, made the first
 * time it is sent again: a list of 10,000 agents is 8.5 MB of text, which sent as text is
 * counted and encoded anew per request. The journal gets the facts read once from its text
 * (keptFacts), as the fast path's journal does.
 */
export function sendKept(request: FastifyRequest, reply: FastifyReply, kept: { readonly text: string; readonly body: Buffer; sendingTo?(response: ServerResponse): void }): FastifyReply {
  keptFacts(kept, request.operation, request.format)
  kept.sendingTo?.(reply.raw)
  return sendAnswer(request, reply, kept.body)
}

/** Sends a 200 answer already in the request's format: text, bytes, or a body that streams. */
export function sendAnswer(request: FastifyRequest, reply: FastifyReply, body: string | Buffer | Readable): FastifyReply {
  return reply
    .code(200)
    .type(request.format === 'json' ? JSON_TYPE : XML_TYPE)
    .send(body)
}

/** Items sent in one go before a list switches to streaming. */
export const EAGER_ITEMS = 1000
/**
 * Items in the first batch of a list known to be long: the answer starts after these rather
 * than after EAGER_ITEMS (bench: first byte of 100k ONLINE agents, 1000 items were ~10 ms of
 * work on a quiet machine before anything was sent).
 */
export const FIRST_STREAMED_ITEMS = 64
/**
 * A streamed answer is pushed in chunks of about this many characters (one item may take a
 * chunk past it), and the next chunk is built on a later turn of the event loop (setImmediate);
 * a list made whole is made in turns of as many. Bench (100k ONLINE agents, 81 MB, 2 connections
 * on loopback): with chunks of 1000 items (~800 kB) built back to back, the socket took every
 * write at once, so the chain of write, drain and resume ran on process.nextTick and one answer
 * held the event loop until it ended (~0.9 s): a second request's first byte waited for it.
 * Every list in flight builds one chunk per turn, so a request for one agent waits for a chunk
 * of each: with 8 clients listing 100k agents, chunks of 64 KiB left its p99 at 40 ms, and
 * chunks of 16 KiB (about 18 items) at 15 and 20 ms (bench/README.md, "Where the three
 * workloads stand").
 */
export const STREAM_CHUNK_CHARS = 16 * 1024

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
  const parts = json ? jsonParts(servicename, first, pending, items, links) : xmlParts(servicename, first, pending, items, links)
  reply.code(200).type(json ? JSON_TYPE : XML_TYPE)
  return reply.send(new ChunkedStream(textChunks(parts)))
}

export interface TakenChunk<Chunk = string> {
  chunk: Chunk
  /** the answer ended with this chunk */
  last: boolean
}

/** An answer made a chunk at a time, each chunk when it is taken: text parts joined (textChunks), or bytes (list-bytes.ts). */
export interface ChunkSource<Chunk extends string | Buffer = string | Buffer> {
  /** the next chunk, about STREAM_CHUNK_CHARS; the answer's end says so (`last`) */
  take(): TakenChunk<Chunk>
  /** stops making the answer before its end (its request went away) */
  stop(): void
}

/** Text parts taken a chunk at a time (takeChunk). */
export function textChunks(parts: Iterator<string>): ChunkSource<string> {
  return { take: () => takeChunk(parts), stop: () => void parts.return?.() }
}

/** The next parts joined up to about STREAM_CHUNK_CHARS (one part may take the chunk past it). */
export function takeChunk(parts: Iterator<string>): TakenChunk {
  let chunk = ''
  for (let next = parts.next(); ; next = parts.next()) {
    if (next.done === true) return { chunk, last: true }
    chunk += next.value
    if (chunk.length >= STREAM_CHUNK_CHARS) return { chunk, last: false }
  }
}

/**
 * Bytes of a streamed answer pushed at once at most. Its chunks are made one a turn
 * (STREAM_CHUNK_CHARS), so that other requests are served between them, but each push is a
 * write to the socket: chunks cut one after another from one slab (chunk-writer.ts) lie end to
 * end in its memory and go as one push (endToEnd), up to a slab of a list streamed to one request
 * (STREAM_SLAB_BYTES). Pushed a chunk at a time, a list of 100k agents was some 5,000 socket
 * writes, about as much of the server's CPU as making it (bench/README.md, "Streamed lists pushed
 * in runs").
 */
export const STREAM_RUN_BYTES = STREAM_SLAB_BYTES

/**
 * An answer's chunks, each made on its own turn of the event loop, so other connections are
 * served between chunks and at most a run or two of an answer is in memory at a time; chunks of
 * bytes that lie end to end are pushed together, up to STREAM_RUN_BYTES. `first`: a chunk already
 * taken, pushed first, alone (the answer starts with it).
 */
export class ChunkedStream extends Readable {
  private scheduled = false
  /** the chunks of bytes made since the last push, as one buffer over them */
  private run: Buffer | undefined

  constructor(
    private readonly source: ChunkSource,
    private first?: Buffer
  ) {
    super({ highWaterMark: STREAM_CHUNK_CHARS })
  }

  override _read(): void {
    if (this.first !== undefined) {
      const first = this.first
      this.first = undefined
      this.push(first)
      return
    }
    this.makeNext()
  }

  private makeNext(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.fill())
  }

  private fill(): void {
    this.scheduled = false
    if (this.destroyed) return
    let taken: TakenChunk<string | Buffer>
    try {
      taken = this.source.take()
    } catch (error) {
      this.destroy(error as Error)
      return
    }
    const { chunk, last } = taken
    if (typeof chunk === 'string') {
      this.pushRun()
      if (chunk.length > 0) this.push(chunk)
    } else if (chunk.length > 0) {
      const joined = this.run === undefined ? chunk : endToEnd(this.run, chunk, STREAM_RUN_BYTES)
      if (joined === undefined) this.pushRun()
      this.run = joined ?? chunk
    }
    if (last) {
      this.pushRun()
      this.push(null)
    } else if (this.run === undefined) {
      // A text chunk was pushed, and the stream asks for the next (_read) as its reader takes it;
      // if nothing was, the next is made now.
      if (chunk.length === 0) this.makeNext()
    } else if (this.run.length + STREAM_CHUNK_CHARS <= STREAM_RUN_BYTES) {
      // Room in the run for another chunk: made on the next turn.
      this.makeNext()
    } else {
      this.pushRun()
    }
  }

  private pushRun(): void {
    if (this.run === undefined) return
    const run = this.run
    this.run = undefined
    this.push(run)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    try {
      this.source.stop()
    } finally {
      callback(error)
    }
  }
}

/** How an envelope of items already written as text (item-writer.ts) or bytes (item-bytes.ts) starts, joins and ends. */
export interface TextEnvelope {
  head: string
  separator: string
  tail: string
}

export function textEnvelope(format: Format, servicename: string, links: Link[] | undefined): TextEnvelope {
  return format === 'json'
    ? { head: jsonEnvelopeHead(servicename), separator: ',', tail: jsonEnvelopeTail(links) }
    : { head: xmlOpen(servicename), separator: '', tail: xmlLinks(links) + XML_CLOSE }
}

/** A whole answer from items already written as text. */
export function itemsAnswer(format: Format, servicename: string, items: string[], links?: Link[]): string {
  const shape = textEnvelope(format, servicename, links)
  return shape.head + items.join(shape.separator) + shape.tail
}

/**
 * sendList for items already written as text (agentinfo's, item-writer.ts): a short list is
 * sent in one piece, a long one streams in chunks as sendList's does.
 */
export function sendItemTexts(request: FastifyRequest, reply: FastifyReply, servicename: string, items: Iterator<string>, links: Link[], expected?: number): FastifyReply {
  const eager = expected !== undefined && expected > EAGER_ITEMS ? FIRST_STREAMED_ITEMS : EAGER_ITEMS
  const first: string[] = []
  let next = items.next()
  while (!next.done && first.length < eager) {
    first.push(next.value)
    next = items.next()
  }
  if (next.done) return sendAnswer(request, reply, itemsAnswer(request.format, servicename, first, links))
  return sendAnswer(request, reply, new ChunkedStream(textChunks(textParts(textEnvelope(request.format, servicename, links), listed(first, next.value, items)))))
}

/**
 * Sends an answer made as bytes a chunk at a time: its first chunk is made at once, and if the
 * answer ends with it (a short list), it is sent whole, with its length; else the answer
 * streams, the next chunks made as the client takes them.
 */
export function sendChunks(request: FastifyRequest, reply: FastifyReply, source: ChunkSource<Buffer>): FastifyReply {
  const { chunk, last } = source.take()
  return sendAnswer(request, reply, last ? chunk : new ChunkedStream(source, chunk))
}

/**
 * A whole answer from items written as text, made over several turns of the event loop (a
 * turn per STREAM_CHUNK_CHARS), so other requests are served while it is made (a list of 1,000
 * agents with modules is megabytes). For the short lists that are kept (routes/agentinfo.ts):
 * made whole, without a client to wait for.
 */
export async function itemsAnswerInTurns(format: Format, servicename: string, items: Iterable<string>, links: Link[]): Promise<string> {
  const parts = textParts(textEnvelope(format, servicename, links), items)
  const chunks: string[] = []
  for (;;) {
    const { chunk, last } = takeChunk(parts)
    chunks.push(chunk)
    if (last) return chunks.join('')
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** The envelope's head, each item after its separator, and the tail. */
function* textParts(shape: TextEnvelope, items: Iterable<string>): Generator<string> {
  yield shape.head
  let separator = ''
  for (const item of items) {
    yield separator + item
    separator = shape.separator
  }
  yield shape.tail
}

/** The items read ahead (`first`, then `pending`), then the rest. */
function* listed<T>(first: T[], pending: T, rest: Iterator<T>): Generator<T> {
  yield* first
  yield pending
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value
}

function* jsonParts(servicename: string, first: unknown[], pending: unknown, rest: Iterator<unknown>, links: Link[]): Generator<string> {
  let separator = ''
  yield `{"servicename":${JSON.stringify(servicename)},"values":[`
  for (const item of listed(first, pending, rest)) {
    yield separator + JSON.stringify(item)
    separator = ','
  }
  yield `],"links":${JSON.stringify(links)}}`
}

function* xmlParts(servicename: string, first: unknown[], pending: unknown, rest: Iterator<unknown>, links: Link[]): Generator<string> {
  yield xmlOpen(servicename)
  for (const item of listed(first, pending, rest)) yield xmlElement('values', item)
  yield xmlElement('links', links) + XML_CLOSE
}
