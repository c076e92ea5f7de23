/**
 * agentinfo items written as UTF-8 straight into a streamed list's chunks (ChunkWriter): the
 * bytes item-writer.ts's text encodes to, for the lists that stream (list-bytes.ts). The item's
 * identity comes from its kept fragment, encoded once (FragmentBytes); its state, dates and
 * figures are written as ASCII between. test/http/item-bytes.test.ts holds the two writers
 * together over every record shape, JSON and XML, with and without modules.
 *
 * Every list of more than 1,000 agents streams, and is kept as its bytes while the fleet holds
 * still (routes/agentinfo.ts): what an item costs here is what such a list costs. Up to
 * 20,000 agents, an item without modules is kept as its bytes and copied into the next list
 * while its agent holds (writeAgentItemBytes, keeping 'item'). In a longer list nothing is kept,
 * and an agent showing the identity generated for its index has it written straight as bytes
 * (writeGeneratedItem).
 */
import { Figure, FIGURES, MAX_GENERATED_BYTES, ModuleFigure, MODULE_FIGURES, Modules, MODULES_LENGTH, type AgentView, type Fleet, type GeneratedIdentity, type ModuleHead, type ModuleView } from '../fleet/fleet-api.js'
import { formatLocalMinute, writeLocalMinute } from '../manager/time-format.js'
import type { Format } from '../protocol/negotiation.js'
import { AGENT_STATES, MODULE_STATUSES, ModuleStatus, stateName } from '../protocol/states.js'
import { asciiAt, bytesAt, hundredthsAt, NUMBER_ROOM, numberAt, type ChunkWriter } from './chunk-writer.js'
import { JSON_IDENTITY, jsonLinksOf, XML_IDENTITY, xmlLinksOf, type Fragment, type FragmentBytes, type IdentityLayout } from './item-fragment.js'
import { JSON_MODULE, XML_MODULE, type ItemSource, type Keeping, type ModuleLayout } from './item-writer.js'
import type { ItemFragments } from './kept-items.js'
import { agentSelfHref, type LinkBase } from './links.js'

/** Room for a date: formatLocalMinute's form is 16 characters, 19 for a year past 9999 or before 0 (`+275760-09-13 00:00`). */
const DATE_ROOM = 32

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
  /** the modules' start and end, what joins two, and each as bytes */
  modules: { open: string; separator: string; close: string; each: ModuleBytes }
  /** what closes the content before the item's links */
  close: string
  /** the text of JSON's int() and num(): a fraction is cut off, a non-finite number is null */
  json: boolean
  baseLinks: (base: LinkBase) => string
  /** the identity's literal text as bytes, for items of generated identities (writeGeneratedItem) */
  identity: IdentityBytes
  /** what writeFigures writes at most: the texts between, two dates and seven numbers */
  figuresRoom: number
}

/**
 * An IdentityLayout's literal text encoded once, for items written from a generated identity
 * (writeGeneratedItem), with the texts around the values it writes as they are: a generated
 * name, UUID, address and service are made of letters, digits, `-`, `.`, `:` and brackets, which
 * neither format escapes, so only JSON's quotes go around them. The OS and version names come from
 * the scenario and may need escaping: each is kept as the layout writes it (`names`).
 */
interface IdentityBytes {
  layout: IdentityLayout
  head: readonly Buffer[]
  middle: readonly Buffer[]
  tail: readonly Buffer[]
  /** JSON's quote around a value written as it is; none in XML */
  quote: number | undefined
  /** after the name in the item's own link: the end of its href and of the link */
  selfEnd: Buffer
  /** per OS or version name: as the layout writes it (`value`), and as it stands at the start of a sysinfo (`sysinfoHead`) */
  names: Map<string, { value: Buffer; sysinfoHead: Buffer }>
  /** per base: the item's own link up to the agent's name in its href */
  selfHead: WeakMap<LinkBase, Buffer>
}

function identityBytes(layout: IdentityLayout, quote: string): IdentityBytes {
  const encoded = (texts: readonly string[]) => texts.map((text) => Buffer.from(text))
  return {
    layout,
    head: encoded(layout.head),
    middle: encoded(layout.middle),
    tail: encoded(layout.tail),
    quote: quote === '' ? undefined : quote.charCodeAt(0),
    selfEnd: Buffer.from(quote + layout.self[1]),
    names: new Map(),
    selfHead: new WeakMap()
  }
}

const bytesOfEach = <T extends readonly string[]>(texts: T) => texts.map((text) => Buffer.from(text)) as { [K in keyof T]: Buffer }

/**
 * Texts a format's modules are written with (ModuleLayout) as bytes: the literal parts encoded
 * once, each module's head (what its spec says: the same for every agent of a module set) and
 * each module-status kept as bytes by what they show. Written as text, a module was a string
 * made and then encoded: with modules, the largest part of writing an answer by name in a CPU
 * profile (bench/README.md, "Modules written as bytes").
 */
interface ModuleBytes {
  layout: ModuleLayout
  between: readonly Buffer[]
  end: Buffer
  running: Buffer
  stopped: Buffer
  /** heads by module name, each with what else it shows (a name is most often one module's) */
  heads: Map<string, { module: string; moduleType: number; type: string; bytes: Buffer }[]>
  statuses: Map<string, Buffer>
  /** heads and statuses held, up to MAX_MODULE_TEXTS */
  held: number
  /** what a module takes besides its head and status, at most: the texts between, `false`, the end, six numbers */
  room: number
}

/**
 * Module heads and statuses kept per format at most: a scenario names a few dozen modules, while
 * scenarios loaded one after another could name any number; past this the kept ones are dropped.
 */
const MAX_MODULE_TEXTS = 4096

function moduleBytes(layout: ModuleLayout): ModuleBytes {
  return {
    layout,
    between: layout.between.map((text) => Buffer.from(text)),
    end: Buffer.from(layout.end),
    running: Buffer.from('true'),
    stopped: Buffer.from('false'),
    heads: new Map(),
    statuses: new Map(),
    held: 0,
    room: Buffer.byteLength(layout.between.join('') + 'false' + layout.end) + 6 * NUMBER_ROOM
  }
}

/** Room for one more kept text, dropping every kept one when they reach MAX_MODULE_TEXTS. */
function roomForModuleText(each: ModuleBytes): void {
  if (each.held < MAX_MODULE_TEXTS) return void each.held++
  each.heads.clear()
  each.statuses.clear()
  each.held = 1
}

function moduleHead(each: ModuleBytes, m: ModuleHead): Buffer {
  let same = each.heads.get(m.moduleName)
  if (same !== undefined) {
    for (const kept of same) if (kept.module === m.module && Object.is(kept.moduleType, m.moduleType) && kept.type === m.type) return kept.bytes
  }
  roomForModuleText(each)
  const bytes = Buffer.from(each.layout.head(m))
  same = each.heads.get(m.moduleName)
  if (same === undefined) each.heads.set(m.moduleName, (same = []))
  same.push({ module: m.module, moduleType: m.moduleType, type: m.type, bytes })
  return bytes
}

function moduleStatus(each: ModuleBytes, status: string): Buffer {
  let bytes = each.statuses.get(status)
  if (bytes === undefined) {
    roomForModuleText(each)
    each.statuses.set(status, (bytes = Buffer.from(each.layout.status(status))))
  }
  return bytes
}

const JSON_SHAPE: Shape = {
  status: new Map(AGENT_STATES.map((state) => [state, Buffer.from(`"${state}"`)])),
  beforeStarted: '"',
  before: bytesOfEach(['","lastOnline":"', '","load":"', '","memUsage":', ',"received":', ',"receivedToday":', ',"processing":', ',"sent":', ',"sentToday":'] as const),
  afterFigures: '',
  modules: { open: ',"modules":[', separator: ',', close: ']', each: moduleBytes(JSON_MODULE) },
  close: '}',
  json: true,
  baseLinks: jsonLinksOf,
  identity: identityBytes(JSON_IDENTITY, '"'),
  figuresRoom: 0
}
JSON_SHAPE.figuresRoom = figuresRoom(JSON_SHAPE)

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
  modules: { open: '', separator: '', close: '', each: moduleBytes(XML_MODULE) },
  close: '</content>',
  json: false,
  baseLinks: xmlLinksOf,
  identity: identityBytes(XML_IDENTITY, ''),
  figuresRoom: 0
}
XML_SHAPE.figuresRoom = figuresRoom(XML_SHAPE)

function figuresRoom(shape: Shape): number {
  return shape.before.reduce((sum, text) => sum + text.length, 0) + 2 * DATE_ROOM + 7 * NUMBER_ROOM
}

const shapeOf = (format: Format): Shape => (format === 'json' ? JSON_SHAPE : XML_SHAPE)

/**
 * A kept fragment's bytes, encoded the first time they are written, with the state the item
 * shows then (`status`) between the head and the middle: the middle with what comes before
 * `started`, the end with what comes after the figures.
 */
function bytesOf(f: Fragment, shape: Shape, status: string): FragmentBytes {
  if (f.bytes !== undefined) return f.bytes
  const statusText = shape.json ? JSON.stringify(status) : status
  const headBytes = Buffer.byteLength(f.head)
  const middle = headBytes + Buffer.byteLength(statusText)
  const end = middle + Buffer.byteLength(f.middle + shape.beforeStarted)
  const modules = end + Buffer.byteLength(shape.afterFigures + f.tail)
  // Every part starts and ends with ASCII, so no character straddles two of them.
  const all = Buffer.from(f.head + statusText + f.middle + shape.beforeStarted + shape.afterFigures + f.tail + shape.close + f.links + shape.baseLinks(f.base))
  f.bytes = { all, status, statusAt: headBytes, middle, end, modules, lead: all.subarray(0, end), trail: all.subarray(end) }
  return f.bytes
}

/**
 * A kept fragment's item up to its first figure: one copy when it shows the state its bytes
 * were made with (a list by state is most often all of one state), else the state between.
 */
function writeHead(out: ChunkWriter, shape: Shape, bytes: FragmentBytes, status: string): void {
  const { all, statusAt, middle, end } = bytes
  if (status === bytes.status) return out.bytes(bytes.lead)
  out.part(all, 0, statusAt)
  writeStatus(out, shape, status)
  out.part(all, middle, end)
}

/**
 * A date as formatLocalMinute writes it (room: DATE_ROOM), its digits written straight into the
 * chunk. An item has two: its agent's start, a minute of its own that a table of minutes written
 * before often missed, and when it was last seen online.
 */
function dateAt(into: Uint8Array, at: number, epochMs: number): number {
  const end = writeLocalMinute(into, at, epochMs)
  return end !== -1 ? end : asciiAt(into, at, formatLocalMinute(epochMs))
}

/** The state as the shape writes it (a state not in AGENT_STATES, which a view never has, as text). */
function writeStatus(out: ChunkWriter, shape: Shape, status: string): void {
  const bytes = shape.status.get(status)
  if (bytes !== undefined) out.bytes(bytes)
  else out.text(shape.json ? JSON.stringify(status) : status)
}

/** An integer field: JSON cuts a fraction off (fast-json-stringify's integer), XML writes the number as it is. */
function integerAt(into: Uint8Array, at: number, json: boolean, n: number): number {
  return numberAt(into, at, json && !Number.isInteger(n) ? Math.trunc(n) : n)
}

/**
 * The load as `load.toFixed(2)`: a view's load is a whole number of hundredths (counters.ts), written
 * as one; any other through toFixed (room: NUMBER_ROOM, as toFixed writes a number past 10^21 as
 * `'' + n` does).
 */
function loadTextAt(into: Uint8Array, at: number, load: number): number {
  const hundredths = Math.round(load * 100)
  if (hundredths >= 0 && hundredths < 1e15 && hundredths / 100 === load) return hundredthsAt(into, at, hundredths)
  return asciiAt(into, at, load.toFixed(2))
}

/**
 * The item's dates and figures, from `started` to `sentToday`, as jsonItem and xmlItem write them
 * (but what comes before `started` and after `sentToday`), from `figures` (Figure's offsets).
 * Written into room made once for all of them (figuresRoom), each value by a function that
 * returns where it ended: one check for room an item rather than one a value (bench/README.md,
 * "Figures written into room made once").
 */
function writeFigures(out: ChunkWriter, shape: Shape, figures: Float64Array): void {
  const { before, json } = shape
  const into = out.reserve(shape.figuresRoom)
  let at = out.end
  at = dateAt(into, at, figures[Figure.STARTED])
  at = bytesAt(into, at, before[0])
  at = dateAt(into, at, figures[Figure.LAST_ONLINE])
  at = bytesAt(into, at, before[1])
  at = loadTextAt(into, at, figures[Figure.LOAD])
  at = bytesAt(into, at, before[2])
  const memUsage = figures[Figure.MEM_USAGE]
  at = json && !Number.isFinite(memUsage) ? asciiAt(into, at, 'null') : numberAt(into, at, memUsage)
  at = bytesAt(into, at, before[3])
  at = integerAt(into, at, json, figures[Figure.RECEIVED])
  at = bytesAt(into, at, before[4])
  at = integerAt(into, at, json, figures[Figure.RECEIVED_TODAY])
  at = bytesAt(into, at, before[5])
  at = integerAt(into, at, json, figures[Figure.PROCESSING])
  at = bytesAt(into, at, before[6])
  at = integerAt(into, at, json, figures[Figure.SENT])
  at = bytesAt(into, at, before[7])
  at = integerAt(into, at, json, figures[Figure.SENT_TODAY])
  out.moveTo(at)
}

/** The figures of any view, at Figure's offsets (but its state and identity, which a view has as text). */
function copyFigures(view: AgentView, figures: Float64Array): Float64Array {
  figures[Figure.STARTED] = view.started
  figures[Figure.LAST_ONLINE] = view.lastOnline
  figures[Figure.LOAD] = view.load
  figures[Figure.MEM_USAGE] = view.memUsage
  figures[Figure.RECEIVED] = view.received
  figures[Figure.RECEIVED_TODAY] = view.receivedToday
  figures[Figure.PROCESSING] = view.processing
  figures[Figure.SENT] = view.sent
  figures[Figure.SENT_TODAY] = view.sentToday
  return figures
}

/** Figures read for one item at a time (writeItemBytes, writeAgentItemBytes). */
const scratchFigures = new Float64Array(FIGURES)
/** Modules' figures read for one item at a time (writeAgentItemBytes). */
const scratchModules = new Float64Array(MODULES_LENGTH)

/** The modules of a view as jsonModule / xmlModule join them. */
function writeModules(out: ChunkWriter, shape: Shape, modules: readonly ModuleView[]): void {
  const { open, separator, close } = shape.modules
  out.ascii(open)
  for (let k = 0; k < modules.length; k++) {
    const m = modules[k]
    if (k > 0) out.ascii(separator)
    writeModule(out, shape, m, m.isRunning, m.evtRecvd, m.queuesize, m.evtFwd, m.evtDrop, m.statusCode, m.status, m.id)
  }
  out.ascii(close)
}

/** An agent's modules from what Fleet.figures wrote of them (`modules`, at Modules' offsets), as writeModules writes their view's. */
function writeModuleFigures(out: ChunkWriter, shape: Shape, fleet: Pick<Fleet, 'moduleHead'>, modules: Float64Array): void {
  const { open, separator, close } = shape.modules
  const set = modules[Modules.SET]
  out.ascii(open)
  for (let k = 0; k < modules[Modules.COUNT]; k++) {
    const at = Modules.FIRST + k * MODULE_FIGURES
    const status = modules[at + ModuleFigure.STATUS]
    if (k > 0) out.ascii(separator)
    writeModule(
      out,
      shape,
      fleet.moduleHead(set, k),
      status === ModuleStatus.RUNNING,
      modules[at + ModuleFigure.EVT_RECVD],
      modules[at + ModuleFigure.QUEUESIZE],
      modules[at + ModuleFigure.EVT_FWD],
      modules[at + ModuleFigure.EVT_DROP],
      status,
      MODULE_STATUSES[status],
      k + 1
    )
  }
  out.ascii(close)
}

/**
 * One module as jsonModule / xmlModule write it, from its kept head and its figures, into room
 * made once for the whole of it, as writeFigures writes an item's figures.
 */
function writeModule(
  out: ChunkWriter,
  shape: Shape,
  head: ModuleHead,
  isRunning: boolean,
  evtRecvd: number,
  queuesize: number,
  evtFwd: number,
  evtDrop: number,
  statusCode: number,
  status: string,
  id: number
): void {
  const each = shape.modules.each
  const json = shape.json
  const b = each.between
  const headBytes = moduleHead(each, head)
  const statusBytes = moduleStatus(each, status)
  const into = out.reserve(headBytes.length + statusBytes.length + each.room)
  let at = bytesAt(into, out.end, headBytes)
  at = bytesAt(into, at, isRunning ? each.running : each.stopped)
  at = bytesAt(into, at, b[0])
  at = integerAt(into, at, json, evtRecvd)
  at = bytesAt(into, at, b[1])
  at = integerAt(into, at, json, queuesize)
  at = bytesAt(into, at, b[2])
  at = integerAt(into, at, json, evtFwd)
  at = bytesAt(into, at, b[3])
  at = integerAt(into, at, json, evtDrop)
  at = bytesAt(into, at, b[4])
  at = integerAt(into, at, json, statusCode)
  at = bytesAt(into, at, b[5])
  at = bytesAt(into, at, statusBytes)
  at = bytesAt(into, at, b[6])
  at = integerAt(into, at, json, id)
  out.moveTo(bytesAt(into, at, each.end))
}

/**
 * One item, as jsonItem / xmlItem would write it, into `out`. `f` is the view's fragment;
 * `kept` says it is kept (ItemFragments), so its bytes are worth encoding once: a fragment made
 * for this item alone is written from its texts.
 */
export function writeItemBytes(out: ChunkWriter, format: Format, view: AgentView, f: Fragment, kept: boolean): void {
  const shape = shapeOf(format)
  if (kept) {
    const bytes = bytesOf(f, shape, view.status)
    const { all, end, modules } = bytes
    writeHead(out, shape, bytes, view.status)
    writeFigures(out, shape, copyFigures(view, scratchFigures))
    if (view.modules === undefined) return out.part(all, end, all.length)
    out.part(all, end, modules)
    writeModules(out, shape, view.modules)
    return out.part(all, modules, all.length)
  }
  out.text(f.head)
  writeStatus(out, shape, view.status)
  out.text(f.middle)
  out.ascii(shape.beforeStarted)
  writeFigures(out, shape, copyFigures(view, scratchFigures))
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
 * An item from its agent's figures (Fleet.figures) and the fragment kept for its identity, with
 * its modules when given theirs (`modules`, read with the figures): no view is made. Returns the
 * state it shows.
 */
function writeFiguresItem(out: ChunkWriter, shape: Shape, figures: Float64Array, f: Fragment, modules?: { fleet: Pick<Fleet, 'moduleHead'>; figures: Float64Array }): string {
  const status = stateName(figures[Figure.STATE])
  const bytes = bytesOf(f, shape, status)
  writeHead(out, shape, bytes, status)
  writeFigures(out, shape, figures)
  if (modules === undefined) out.bytes(bytes.trail)
  else {
    out.part(bytes.all, bytes.end, bytes.modules)
    writeModuleFigures(out, shape, modules.fleet, modules.figures)
    out.part(bytes.all, bytes.modules, bytes.all.length)
  }
  return status
}

/** One of GeneratedIdentity's writes, as a function of its own (no closure made per item). */
type GeneratedWrite = (generated: GeneratedIdentity, index: number, into: Uint8Array, at: number) => number
const NAME: GeneratedWrite = (generated, index, into, at) => generated.writeName(index, into, at)
const UUID: GeneratedWrite = (generated, index, into, at) => generated.writeUuid(index, into, at)
const ADDRESS: GeneratedWrite = (generated, index, into, at) => generated.writeAddress(index, into, at)
const SERVICE: GeneratedWrite = (generated, index, into, at) => generated.writeService(index, into, at)

/** A generated value straight into the chunk, with `quote` (JSON's) before and after it unless undefined. */
function writeGenerated(out: ChunkWriter, write: GeneratedWrite, generated: GeneratedIdentity, index: number, quote: number | undefined): void {
  const into = out.reserve(MAX_GENERATED_BYTES + 2)
  let at = out.end
  if (quote !== undefined) into[at++] = quote
  at = write(generated, index, into, at)
  if (quote !== undefined) into[at++] = quote
  out.moveTo(at)
}

/** An OS or version name's bytes, as the layout writes it and as it starts a sysinfo (IdentityBytes.names). */
function nameBytes(identity: IdentityBytes, name: string): { value: Buffer; sysinfoHead: Buffer } {
  let bytes = identity.names.get(name)
  if (bytes === undefined) {
    const value = identity.layout.value(name)
    // Both formats escape a character at a time: the name's part of an escaped sysinfo is the
    // name escaped. JSON's value has its quotes; a sysinfo's head has only the opening one.
    const sysinfoHead = identity.quote === undefined ? value : value.slice(0, -1)
    bytes = { value: Buffer.from(value), sysinfoHead: Buffer.from(sysinfoHead) }
    // The names of the runs this process served: a few each. Started over should many runs come.
    if (identity.names.size >= 1024) identity.names.clear()
    identity.names.set(name, bytes)
  }
  return bytes
}

/** The item's own link up to the agent's name in its href, for this base (IdentityBytes.selfHead). */
function selfHeadBytes(identity: IdentityBytes, base: LinkBase): Buffer {
  let bytes = identity.selfHead.get(base)
  if (bytes === undefined) {
    // A generated name is the same escaped and URI-encoded: the href is escaped up to it.
    const href = identity.layout.value(agentSelfHref(base, ''))
    bytes = Buffer.from(identity.layout.self[0] + (identity.quote === undefined ? href : href.slice(0, -1)))
    identity.selfHead.set(base, bytes)
  }
  return bytes
}

/**
 * An item without modules of an agent that shows its generated identity, from its figures and
 * the identity written straight as bytes (GeneratedIdentity): no view, no fragment and no string
 * of its identity is made. For the items of a list of more agents than are kept, whose identities
 * are not kept: made as strings, joined and encoded, they were most of such an item's cost
 * (bench/README.md, "Long lists written from generated identities"). Returns the state it shows.
 */
function writeGeneratedItem(out: ChunkWriter, shape: Shape, generated: GeneratedIdentity, index: number, figures: Float64Array, base: LinkBase): string {
  const identity = shape.identity
  const { head, middle, tail, quote } = identity
  const status = stateName(figures[Figure.STATE])
  const os = nameBytes(identity, generated.osName(figures[Figure.OS]))
  out.bytes(head[0])
  writeGenerated(out, NAME, generated, index, quote)
  out.bytes(head[1])
  writeGenerated(out, UUID, generated, index, quote)
  out.bytes(head[2])
  out.bytes(nameBytes(identity, generated.versionName(figures[Figure.VERSION])).value)
  out.bytes(head[3])
  writeStatus(out, shape, status)
  out.bytes(middle[0])
  out.bytes(os.value)
  out.bytes(middle[1])
  writeGenerated(out, ADDRESS, generated, index, quote)
  out.bytes(middle[2])
  writeGenerated(out, SERVICE, generated, index, quote)
  out.bytes(middle[3])
  out.ascii(shape.beforeStarted)
  writeFigures(out, shape, figures)
  out.ascii(shape.afterFigures)
  out.bytes(tail[0])
  out.bytes(os.sysinfoHead)
  const into = out.reserve(MAX_GENERATED_BYTES + 1)
  let at = generated.writeSysinfoAfterOs(index, figures[Figure.OS], into, out.end)
  if (quote !== undefined) into[at++] = quote
  out.moveTo(at)
  out.bytes(tail[1])
  out.ascii(shape.close)
  out.bytes(selfHeadBytes(identity, base))
  writeGenerated(out, NAME, generated, index, undefined)
  out.bytes(identity.selfEnd)
  out.bytes(baseLinksBytes(shape, base))
  return status
}

/** What writeAgentItemBytes reads of the fleet: ItemSource, and figures for items written without a view. */
export type FigureSource = ItemSource & Pick<Fleet, 'figures' | 'generatedIdentity' | 'moduleHead'>

/**
 * Agent `index`'s item into `out`, as writeAgentItem would write it; returns the state it shows.
 * `keeping` says what is kept for the next list:
 * - `item`: the identity's text (its fragment), and an item without modules as bytes
 *   (ItemFragments.keepBytes), copied into the next list while its agent has not changed and
 *   the manager has not polled it since. At speed 600 an agent is polled every 100 ms of wall
 *   time, so a list made right after another (lists made once for the requests that come
 *   together follow one another) finds most of its items still true (bench/README.md, "Items of
 *   a streamed list kept as bytes");
 * - `identity`: the fragment only, every item written anew (`npm run bench:items` measures the
 *   writing this way);
 * - `nothing`: a list longer than the fragments kept; an item without modules of a generated
 *   identity is written from its figures and that identity (writeGeneratedItem), any other from a view.
 * An item kept earlier, as bytes or as text (by this or by writeAgentItem), is sent while it
 * holds, whatever the keeping but `nothing`.
 *
 * An item without modules whose identity's text is kept is written from the agent's figures
 * alone (Fleet.figures): a view is a record of some twenty fields, and making one per item was
 * the largest part of writing a list (bench/README.md, "Items written from their figures").
 */
export function writeAgentItemBytes(
  out: ChunkWriter,
  format: Format,
  fleet: FigureSource,
  index: number,
  withModules: boolean,
  base: LinkBase,
  fragments: ItemFragments,
  keeping: Keeping
): string {
  const keep = keeping !== 'nothing'
  const figures = scratchFigures
  if (keep) {
    // As writeAgentItem: the stamps before the figures or the view, so an agent that moves while
    // it is read has its item kept under stamps already stale.
    const revision = fleet.agentRevision(index)
    const polledAt = fleet.polledAt(index)
    const identity = fleet.identityRevision()
    if (fragments.holdsItems(format)) {
      const kept = fragments.textItem(format, index, base, withModules, revision, polledAt, identity)
      if (kept !== undefined) {
        out.text(kept)
        return fragments.keptStatus(format) as string
      }
    }
    if (!withModules) {
      const kept = fragments.writeKeptBytes(out, format, index, base, revision, polledAt, identity)
      if (kept !== undefined) return kept
      const keepBytes = keeping === 'item'
      fleet.figures(index, figures)
      const f = fragments.keptFragment(format, index, base, figures[Figure.IDENTITY])
      if (f !== undefined) {
        const from = out.length
        const status = writeFiguresItem(out, shapeOf(format), figures, f)
        // An odd revision is a write under way: the read waited for its end, the stamp did not.
        if (keepBytes && (revision & 1) === 0) fragments.keepBytes(format, index, out, from, status, revision, polledAt, identity)
        return status
      }
    } else {
      // With modules an item is about four times as long, and is not kept as bytes (keepBytes).
      fleet.figures(index, figures, scratchModules)
      const f = fragments.keptFragment(format, index, base, figures[Figure.IDENTITY])
      if (f !== undefined) return writeFiguresItem(out, shapeOf(format), figures, f, { fleet, figures: scratchModules })
    }
  }
  if (!keep && !withModules) {
    const generated = fleet.generatedIdentity(index)
    if (generated !== undefined) {
      fleet.figures(index, figures)
      return writeGeneratedItem(out, shapeOf(format), generated, index, figures, base)
    }
  }
  // The figures of the view's own read: the fragment is kept by the key of the identity it shows.
  const view = fleet.view(index, withModules, keep, figures)
  writeItemBytes(out, format, view, fragments.get(format, view, base, keep, figures[Figure.IDENTITY]), keep)
  return view.status
}
