/**
 * The envelope of an answer by name (keepByName, routes/agentinfo.ts) written as bytes: what
 * textEnvelope(format, 'agentinfo', [selfLink(base, request)]) writes around the items, without
 * making its strings per request.
 *
 * Its head and separator are the same for every answer, and its tail is the self link: the
 * base's `rest` (the same for every request of a client) and the request's own path and query
 * below `/restservice`. The part before the path is encoded once per base; the path and query
 * are copied a byte a character when each is a URI's own character the format does not escape,
 * or part of a valid `%` escape (a name's `%20`). Any other is written from the envelope's text
 * (selfLink, which escapes what a URI may not hold).
 *
 * Why: the envelope's strings (the link's JSON or XML, joined, then encoded by a call into
 * Buffer.write) were about a tenth of an answer's cost in a CPU profile of the in-process bench
 * (bench/README.md, "The envelope of an answer by name written as bytes", with the command).
 */
import type { Format } from '../protocol/negotiation.js'
import type { ChunkWriter } from './chunk-writer.js'
import { str } from './json-text.js'
import type { LinkBase } from './links.js'
import { isEscapeAt, selfLink, selfPathStart, uriPlain } from './links.js'
import { textEnvelope } from './reply.js'
import { escapeXml } from './xml-writer.js'

const SERVICENAME = 'agentinfo'

interface EnvelopeBytes {
  head: Buffer
  separator: Buffer
  /** the tail up to the self link's path: per base, encoded the first time the base is used */
  tailHead: WeakMap<LinkBase, Buffer>
  /** the tail after the self link's path */
  tailEnd: Buffer
  /** whether a character (a UTF-16 unit) of the path goes into the link as it is, one byte */
  plain: (code: number) => boolean
  /** the link's href as this format writes it, up to where the path goes */
  hrefHead: (rest: string) => string
}

/** A URI's own characters (uriPlain), none of which JSON escapes. */
const jsonPlain = uriPlain
/** A URI's own characters but `&` and `'`, which XML escapes (escapeXml). */
const xmlPlain = (code: number) => uriPlain(code) && code !== 0x26 && code !== 0x27

/** Both formats escape a character at a time, so a link's text is its base's escaped, then its path's. */
function envelopeBytes(format: Format): EnvelopeBytes {
  const shape = textEnvelope(format, SERVICENAME, undefined)
  if (format === 'json') {
    return {
      head: Buffer.from(shape.head),
      separator: Buffer.from(shape.separator),
      tailHead: new WeakMap(),
      tailEnd: Buffer.from('"}]}'),
      plain: jsonPlain,
      hrefHead: (rest) => `],"links":[{"rel":"self","href":${str(rest).slice(0, -1)}`
    }
  }
  return {
    head: Buffer.from(shape.head),
    separator: Buffer.from(shape.separator),
    tailHead: new WeakMap(),
    tailEnd: Buffer.from(`</href></links>${shape.tail}`),
    plain: xmlPlain,
    hrefHead: (rest) => `<links><rel>self</rel><href>${escapeXml(rest)}`
  }
}

const JSON_ENVELOPE = envelopeBytes('json')
const XML_ENVELOPE = envelopeBytes('xml')

/** The envelope of an answer by name in one format, around the items its caller writes. */
export interface ByNameEnvelope {
  head(out: ChunkWriter): void
  separator(out: ChunkWriter): void
  /** the envelope's end: the self link of `url` (the request's path and query) on `base` */
  tail(out: ChunkWriter, base: LinkBase, url: string): void
}

function envelopeOf(format: Format): ByNameEnvelope {
  const bytes = format === 'json' ? JSON_ENVELOPE : XML_ENVELOPE
  return {
    head: (out) => out.bytes(bytes.head),
    separator: (out) => {
      if (bytes.separator.length > 0) out.bytes(bytes.separator)
    },
    tail: (out, base, url) => {
      // The path as selfLink takes it.
      const from = selfPathStart(base, url)
      if (!plainFrom(url, from, bytes.plain)) return out.text(textEnvelope(format, SERVICENAME, [selfLink(base, { url })]).tail)
      out.bytes(tailHeadOf(bytes, base))
      out.ascii(url, from)
      out.bytes(bytes.tailEnd)
    }
  }
}

const ENVELOPES = { json: envelopeOf('json'), xml: envelopeOf('xml') }

export function byNameEnvelope(format: Format): ByNameEnvelope {
  return ENVELOPES[format]
}

/** Whether the link writes `text` from `from` on as it is: characters the format keeps, and `%` escapes (a name's `%20`), which asUriText keeps too. */
function plainFrom(text: string, from: number, plain: (code: number) => boolean): boolean {
  for (let k = from; k < text.length; k++) {
    if (plain(text.charCodeAt(k))) continue
    if (!isEscapeAt(text, k)) return false
    k += 2
  }
  return true
}

function tailHeadOf(bytes: EnvelopeBytes, base: LinkBase): Buffer {
  let head = bytes.tailHead.get(base)
  if (head === undefined) {
    head = Buffer.from(bytes.hrefHead(base.rest))
    bytes.tailHead.set(base, head)
  }
  return head
}
