/**
 * agentinfo items written as UTF-8 straight into a streamed list's chunks (ChunkWriter): the
 * bytes item-writer.ts's text encodes to, for the lists that stream (list-bytes.ts). The item's
 * identity comes from its kept fragment, encoded once (FragmentBytes); its state, dates and
 * figures are written as ASCII between. test/http/item-bytes.test.ts holds the two writers
 * together over every record shape, JSON and XML, with and without modules.
 *
 * A list that streams writes each item once, as the fleet moves faster than lists are made
 * (AnswerCache.listsWorthKeeping) or the list is longer than what is kept: what an item costs
 * there is what a streamed list costs.
 */
import type { AgentView } from '../fleet/fleet-api.js'
import { formatLocalMinute } from '../manager/time-format.js'
import type { Format } from '../protocol/negotiation.js'
import { AGENT_STATES } from '../protocol/states.js'
import type { ChunkWriter } from './chunk-writer.js'
import {
  jsonLinksOf,
  jsonModule,
  xmlLinksOf,
  xmlModule,
  type Fragment,
  type FragmentBytes,
  type ItemFragments,
  type ItemSource
} from './item-writer.js'
import type { LinkBase } from './links.js'

/** How one format joins an item's pieces, as jsonItem and xmlItem write them. */
interface Shape {
  /** the state as it stands between the head and the middle */
  status: ReadonlyMap<string, Buffer>
  /** what stands before the item's `started` date: a kept fragment's middle ends with it */
  beforeStarted: string
  /** what stands before each of the item's other dates and figures, in order */
  before: readonly [lastOnline: Buffer, load: Buffer, memUsage: Buffer, received: Buffer, receivedToday: Buffer, processing: Buffer, sent: Buffer, sentToday: Buffer]
  /** what stands after the last figure, before the tail: a kept fragment's end starts with it */
  afterFigures: string
  /** the modules' start and end, and what joins two */
  modules: { open: string; separator: string; close: string; write: (m: NonNullable<AgentView['modules']>[number]) => string }
  /** what closes the content before the item's links */
  close: string
  /** the text of JSON's int() and num(): a fraction is cut off, a non-finite number is null */
  json: boolean
  baseLinks: (base: LinkBase) => string
}

const bytesOfEach = <T extends readonly string[]>(texts: T) => texts.map((text) => Buffer.from(text)) as { [K in keyof T]: Buffer }

const JSON_SHAPE: Shape = {
  status: new Map(AGENT_STATES.map((state) => [state, Buffer.from(`"${state}"`)])),
  beforeStarted: '"',
  before: bytesOfEach(['","lastOnline":"', '","load":"', '","memUsage":', ',"received":', ',"receivedToday":', ',"processing":', ',"sent":', ',"sentToday":'] as const),
  afterFigures: '',
  modules: { open: ',"modules":[', separator: ',', close: ']', write: jsonModule },
  close: '}',
  json: true,
  baseLinks: jsonLinksOf
}

const XML_SHAPE: Shape = {
  status: new Map(AGENT_STATES.map((state) => [state, Buffer.from(state)])),
  beforeStarted: '',
  before: bytesOfEach([
    '</started><lastOnline>',
    '</lastOnline><load>',
    '</load><memUsage>',
    '</memUsage><received>',
    '</received><receivedToday>',
    '</receivedToday><processing>',
    '</processing><sent>',
    '</sent><sentToday>'
  ] as const),
  afterFigures: '</sentToday>',
  modules: { open: '', separator: '', close: '', write: xmlModule },
  close: '</content>',
  json: false,
  baseLinks: xmlLinksOf
}

const shapeOf = (format: Format): Shape => (format === 'json' ? JSON_SHAPE : XML_SHAPE)

/**
 * A kept fragment's bytes, encoded the first time they are written: the middle with what comes
 * before `started`, the end with what comes after the figures.
 */
function bytesOf(f: Fragment, shape: Shape): FragmentBytes {
  if (f.bytes !== undefined) return f.bytes
  const headBytes = Buffer.byteLength(f.head)
  const middleBytes = Buffer.byteLength(f.middle + shape.beforeStarted)
  const tailBytes = Buffer.byteLength(shape.afterFigures + f.tail)
  // Every part starts and ends with ASCII, so no character straddles two of them.
  const all = Buffer.from(f.head + f.middle + shape.beforeStarted + shape.afterFigures + f.tail + shape.close + f.links + shape.baseLinks(f.base))
  f.bytes = { all, middle: headBytes, end: headBytes + middleBytes, modules: headBytes + middleBytes + tailBytes }
  return f.bytes
}

/**
 * Dates as formatLocalMinute writes them, kept by minute in a table of MINUTE_SLOTS (a minute
 * takes the slot of its number modulo the slots): an item has two, its agent's start (one of
 * the minutes the fleet's agents started in) and when it was last seen online (most often the
 * fleet's last poll).
 */
const MINUTE_SLOTS = 16_384
/** formatLocalMinute's form is 16 characters; a date outside years 0 to 9999 may take more and is not kept. */
const MINUTE_BYTES = 16
const slotMinute = new Float64Array(MINUTE_SLOTS).fill(NaN)
const slotText = new Uint8Array(MINUTE_SLOTS * MINUTE_BYTES)

function writeDate(out: ChunkWriter, epochMs: number): void {
  const minute = Math.floor(epochMs / 60_000)
  const slot = minute & (MINUTE_SLOTS - 1)
  if (slotMinute[slot] === minute) return out.few(slotText, slot * MINUTE_BYTES, MINUTE_BYTES)
  const text = formatLocalMinute(epochMs)
  out.ascii(text)
  if (text.length !== MINUTE_BYTES) return
  slotMinute[slot] = minute
  for (let k = 0; k < MINUTE_BYTES; k++) slotText[slot * MINUTE_BYTES + k] = text.charCodeAt(k)
}

/** The state as the shape writes it (a state not in AGENT_STATES, which a view never has, as text). */
function writeStatus(out: ChunkWriter, shape: Shape, status: string): void {
  const bytes = shape.status.get(status)
  if (bytes !== undefined) out.bytes(bytes)
  else out.text(shape.json ? JSON.stringify(status) : status)
}

/** An integer field: JSON cuts a fraction off (fast-json-stringify's integer), XML writes the number as it is. */
function writeInteger(out: ChunkWriter, shape: Shape, n: number): void {
  out.number(shape.json && !Number.isInteger(n) ? Math.trunc(n) : n)
}

/**
 * The load as `load.toFixed(2)`: a view's load is a whole number of hundredths (loadAt), written
 * as one; any other through toFixed.
 */
function writeLoad(out: ChunkWriter, load: number): void {
  const hundredths = Math.round(load * 100)
  if (hundredths >= 0 && hundredths < 1e15 && hundredths / 100 === load) out.hundredths(hundredths)
  else out.ascii(load.toFixed(2))
}

/** The item's dates and figures, from `started` to `sentToday`, as jsonItem and xmlItem write them (but what comes before `started` and after `sentToday`). */
function writeFigures(out: ChunkWriter, shape: Shape, view: AgentView): void {
  const before = shape.before
  writeDate(out, view.started)
  out.bytes(before[0])
  writeDate(out, view.lastOnline)
  out.bytes(before[1])
  writeLoad(out, view.load)
  out.bytes(before[2])
  if (shape.json && !Number.isFinite(view.memUsage)) out.ascii('null')
  else out.number(view.memUsage)
  out.bytes(before[3])
  writeInteger(out, shape, view.received)
  out.bytes(before[4])
  writeInteger(out, shape, view.receivedToday)
  out.bytes(before[5])
  writeInteger(out, shape, view.processing)
  out.bytes(before[6])
  writeInteger(out, shape, view.sent)
  out.bytes(before[7])
  writeInteger(out, shape, view.sentToday)
}

function writeModules(out: ChunkWriter, shape: Shape, modules: NonNullable<AgentView['modules']>): void {
  const { open, separator, close, write } = shape.modules
  out.text(open)
  for (let k = 0; k < modules.length; k++) out.text((k === 0 ? '' : separator) + write(modules[k]))
  out.text(close)
}

/**
 * One item, as jsonItem / xmlItem would write it, into `out`. `f` is the view's fragment;
 * `kept` says it is kept (ItemFragments), so its bytes are worth encoding once: a fragment made
 * for this item alone is written from its texts.
 */
export function writeItemBytes(out: ChunkWriter, format: Format, view: AgentView, f: Fragment, kept: boolean): void {
  const shape = shapeOf(format)
  if (kept) {
    const { all, middle, end, modules } = bytesOf(f, shape)
    out.part(all, 0, middle)
    writeStatus(out, shape, view.status)
    out.part(all, middle, end)
    writeFigures(out, shape, view)
    if (view.modules === undefined) return out.part(all, end, all.length)
    out.part(all, end, modules)
    writeModules(out, shape, view.modules)
    return out.part(all, modules, all.length)
  }
  out.text(f.head)
  writeStatus(out, shape, view.status)
  out.text(f.middle)
  out.ascii(shape.beforeStarted)
  writeFigures(out, shape, view)
  out.ascii(shape.afterFigures)
  out.text(f.tail)
  if (view.modules !== undefined) writeModules(out, shape, view.modules)
  out.ascii(shape.close)
  out.text(f.links)
  out.bytes(baseLinksBytes(shape, f.base))
}

/** The two links every item of a base ends with, encoded once per base and format (as jsonLinksOf keeps their text). */
const jsonBaseLinkBytes = new WeakMap<LinkBase, Buffer>()
const xmlBaseLinkBytes = new WeakMap<LinkBase, Buffer>()

function baseLinksBytes(shape: Shape, base: LinkBase): Buffer {
  const kept = shape.json ? jsonBaseLinkBytes : xmlBaseLinkBytes
  let bytes = kept.get(base)
  if (bytes === undefined) {
    bytes = Buffer.from(shape.baseLinks(base))
    kept.set(base, bytes)
  }
  return bytes
}

/**
 * Agent `index`'s item into `out`, as writeAgentItem would write it with this keeping (but an
 * item written here is never kept: it is written as bytes, not text); returns the state it shows.
 */
export function writeAgentItemBytes(
  out: ChunkWriter,
  format: Format,
  fleet: ItemSource,
  index: number,
  withModules: boolean,
  base: LinkBase,
  fragments: ItemFragments,
  keeping: 'identity' | 'nothing'
): string {
  // As writeAgentItem: the stamps before the view.
  const revision = fleet.agentRevision(index)
  const polledAt = fleet.polledAt(index)
  const identity = fleet.identityRevision()
  const keep = keeping === 'identity'
  if (keep) {
    const kept = fragments.item(format, index, base, withModules, revision, polledAt, identity)
    if (kept !== undefined) {
      out.text(kept)
      return fragments.keptStatus(format, index) as string
    }
  }
  const view = fleet.view(index, withModules, keep)
  writeItemBytes(out, format, view, fragments.get(format, view, base, keep), keep)
  return view.status
}
