/**
 * agentinfo items written straight to text, JSON or XML, from an agent's view: the answer of
 * every agentinfo and viewagentortemplate request, and every item of a list.
 *
 * Why not the generic path (an AgentRecord object, then the route's fast-json-stringify
 * serializer or xmlElement): that builds two objects per agent and walks them key by key;
 * here the record's shape is written once, in the spec's key order, as one template per format.
 * The text is byte for byte what the generic path makes: test/http/item-writer.test.ts holds
 * both side by side over every record shape (JSON and XML, with and without modules, IPv6
 * services, names that need escaping), so a field added to AgentRecord and not here fails it.
 *
 * What an agent shows that changes only with its identity (name, UUID, version, OS, address,
 * service, sysinfo, its self link) is written once per agent and base, and kept while those
 * stay the same (ItemFragments, bounded). So is the last whole item written for the agent, sent
 * again while the agent has not changed and the manager has not polled it since
 * (writeAgentItem): a list of 10,000 agents reads and writes only the agents that moved.
 */
import type { AgentView, Fleet, ModuleView } from '../fleet/fleet-api.js'
import { formatLocalMinute } from '../manager/time-format.js'
import type { Format } from '../protocol/negotiation.js'
import type { ChunkWriter } from './chunk-writer.js'
import { agentSelfHref, type LinkBase } from './links.js'
import { escapeXml } from './xml-writer.js'

/** What JSON.stringify escapes in a string: `"`, `\`, control characters, lone surrogates (here any surrogate). */
// eslint-disable-next-line no-control-regex -- the control characters JSON escapes must be matched
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * JSON text of a string, as JSON.stringify (and fast-json-stringify) write it: quoted as it is
 * when nothing in it needs escaping, which a test costs about half of what JSON.stringify does.
 */
function str(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : '"' + value + '"'
}

/**
 * JSON text of a string made only of characters JSON never escapes: a state name, a date
 * (formatLocalMinute) or a number's digits. test/http/item-writer.test.ts holds every such
 * field against the generic path, over any state, date and load.
 */
function plain(value: string): string {
  return '"' + value + '"'
}

/** An integer field as fast-json-stringify writes one (a fraction is cut off). */
function int(n: number): string {
  return Number.isInteger(n) ? '' + n : '' + Math.trunc(n)
}

/** A number field: non-finite numbers are null in JSON. */
function num(n: number): string {
  return Number.isFinite(n) ? '' + n : 'null'
}

/** The identity part of an item, written once per agent and link base. */
export interface Fragment {
  /** what the text was made from; the fragment is reused while all of it is the same */
  name: string
  uuid: string
  version: string
  os: string
  address: string
  service: string
  base: LinkBase
  /** up to `"status":"` (JSON) or `<status>` (XML) */
  head: string
  /** after the status, up to `started` */
  middle: string
  /** sysinfo */
  tail: string
  /** the item's own link (its self link); the two the base gives every item are added when written */
  links: string
  /** the same texts as UTF-8, made the first time a streamed list writes the kept fragment (item-bytes.ts) */
  bytes: FragmentBytes | undefined
}

/**
 * A kept fragment's texts as UTF-8 in one buffer, for the lists written as bytes (item-bytes.ts):
 * the head, the state the item showed when they were made (`status`, at `statusAt`), the middle
 * from `middle` up to `end`, then the item's end after its figures (the tail, the content's
 * close, the item's own link and the two of its base); an item with modules has them at
 * `modules`, after the tail. One buffer for the parts, not one per part (a buffer object costs
 * about as much as the text of a part), but for the two an item without modules is copied from
 * (`lead`, `trail`); such an item showing that state starts with one copy, up to `end`.
 */
export interface FragmentBytes {
  all: Buffer
  status: string
  statusAt: number
  middle: number
  end: number
  modules: number
  /**
   * `all` up to `end` and from `end`, as buffers of their own (sharing its memory): what an
   * item without modules showing `status` is copied from, each with one call and no view made
   * for a part of `all` per copy (Buffer.copy makes one).
   */
  lead: Buffer
  trail: Buffer
}

const XML_SERVICE_OPEN = '<field name="the service">'

/**
 * A fragment of the view's identity with its texts in one format. One plain object literal, not
 * `{ ...identity, head, … }`: in Node 20's V8 a spread followed by more properties is far slower
 * than a plain literal, and a list longer than what is kept makes a fragment per item
 * (bench/README.md, "Long lists without an object spread per item").
 */
function fragmentOf(view: AgentView, base: LinkBase, head: string, middle: string, tail: string, links: string): Fragment {
  return { name: view.name, uuid: view.uuid, version: view.version, os: view.os, address: view.address, service: view.service, base, head, middle, tail, links, bytes: undefined }
}

function jsonFragment(view: AgentView, base: LinkBase): Fragment {
  return fragmentOf(
    view,
    base,
    `{"content":{"name":${str(view.name)},"uuid":${str(view.uuid)},"version":${str(view.version)},"status":`,
    `,"os":${str(view.os)},"address":${str(view.address)},"the service":${str(view.service)},"started":`,
    `,"sysinfo":${str(view.sysinfo)}`,
    `,"links":[{"rel":"self","href":${str(agentSelfHref(base, view.name))}},`
  )
}

/**
 * What every item of a base ends with: its two templated links. Kept per base (a WeakMap on the
 * base object, which Links keeps per protocol and host), not per agent.
 */
const jsonBaseLinks = new WeakMap<LinkBase, string>()
const xmlBaseLinks = new WeakMap<LinkBase, string>()

export function jsonLinksOf(base: LinkBase): string {
  let text = jsonBaseLinks.get(base)
  if (text === undefined) {
    text = `{"rel":${str(base.online.rel)},"href":${str(base.online.href)}},{"rel":${str(base.all.rel)},"href":${str(base.all.href)}}]}`
    jsonBaseLinks.set(base, text)
  }
  return text
}

export function xmlLinksOf(base: LinkBase): string {
  let text = xmlBaseLinks.get(base)
  if (text === undefined) {
    text = `${xmlLink(base.online.rel, base.online.href)}${xmlLink(base.all.rel, base.all.href)}</values>`
    xmlBaseLinks.set(base, text)
  }
  return text
}

function xmlLink(rel: string, href: string): string {
  return `<links><rel>${escapeXml(rel)}</rel><href>${escapeXml(href)}</href></links>`
}

function xmlFragment(view: AgentView, base: LinkBase): Fragment {
  return fragmentOf(
    view,
    base,
    `<values><content><name>${escapeXml(view.name)}</name><uuid>${escapeXml(view.uuid)}</uuid><version>${escapeXml(view.version)}</version><status>`,
    `</status><os>${escapeXml(view.os)}</os><address>${escapeXml(view.address)}</address>${XML_SERVICE_OPEN}${escapeXml(view.service)}</field><started>`,
    `<sysinfo>${escapeXml(view.sysinfo)}</sysinfo>`,
    xmlLink('self', agentSelfHref(base, view.name))
  )
}

// The view's strings are those the fleet keeps per agent (src/fleet/shown-identities.ts): while
// nothing changed they are the very strings the fragment was made from, and compare by reference.
// sysinfo is not compared: it is the agent's own (a function of its index and OS), and the OS is.
function sameIdentity(f: Fragment, view: AgentView, base: LinkBase): boolean {
  return (
    f.base === base &&
    f.name === view.name &&
    f.uuid === view.uuid &&
    f.version === view.version &&
    f.os === view.os &&
    f.address === view.address &&
    f.service === view.service
  )
}

/**
 * A fragment's strings made flat. Strings joined with `+` are trees of their pieces until
 * something reads them character by character, and a kept tree costs several times its text.
 * charCodeAt makes V8 flatten the string in place.
 */
function flattened(f: Fragment): Fragment {
  for (const text of [f.name, f.uuid, f.version, f.os, f.address, f.service, f.head, f.middle, f.tail, f.links]) text.charCodeAt(0)
  return f
}

/**
 * Room for an item of a streamed list kept as bytes, per slot. An item without modules is
 * about 870 bytes in JSON and 1,080 in XML (`npm run bench:items`); one that does not fit is
 * written anew each time.
 */
const KEPT_BYTES_ROOM = 1280
/** Slots whose items' bytes share one buffer (1.25 MiB), made when the first of them is kept. */
const SLOTS_PER_PAGE = 1024

/**
 * The fragments and last items of one format, kept per agent in slots (at most `capacity`).
 * The stamps a kept item is checked by live in typed arrays by slot rather than on the fragment
 * objects: a list checks every agent's, and on this machine reading a field of 10,000 fragment
 * objects scattered among their texts took about 0.6 µs an agent, against a few nanoseconds in a
 * dense array.
 */
class FormatStore {
  private readonly slotOf = new Map<number, number>()
  private readonly agentOf: Int32Array
  private readonly fragments: Array<Fragment | undefined>
  private readonly items: Array<string | undefined>
  /** the state each kept item shows, for the journal of a list written as bytes */
  private readonly itemStatus: Array<string | undefined>
  private readonly bases: Array<LinkBase | undefined>
  /** the key of the identity each fragment shows (Figure.IDENTITY); NaN: not known, and never equal */
  private readonly fragmentKey: Float64Array
  private readonly itemRevision: Float64Array
  private readonly itemPolledAt: Float64Array
  private readonly itemIdentity: Float64Array
  /** 0: no item kept; 1: an item without modules; 2: with modules */
  private readonly itemModules: Uint8Array
  /**
   * Each slot's last item of a streamed list (item-bytes.ts) as bytes, at its place in a page of
   * SLOTS_PER_PAGE slots: not a buffer per item, each an object the GC would trace. Kept with the
   * stamps it was written at (as the text items are) and the state it shows.
   */
  private readonly pages: Array<Buffer | undefined> = []
  /** how many bytes each slot's kept bytes are; 0: none */
  private readonly bytesLength: Uint16Array
  private readonly bytesRevision: Float64Array
  private readonly bytesPolledAt: Float64Array
  private readonly bytesIdentity: Float64Array
  private readonly bytesStatus: Array<string | undefined>
  /** slots holding an item (itemModules not 0) */
  private itemsHeld = 0
  /** slots handed out so far; past the capacity the oldest agent's slot is taken (a ring) */
  private handedOut = 0

  constructor(readonly capacity: number) {
    this.agentOf = new Int32Array(capacity)
    this.fragments = new Array<Fragment | undefined>(capacity).fill(undefined)
    this.items = new Array<string | undefined>(capacity).fill(undefined)
    this.itemStatus = new Array<string | undefined>(capacity).fill(undefined)
    this.bases = new Array<LinkBase | undefined>(capacity).fill(undefined)
    this.fragmentKey = new Float64Array(capacity).fill(NaN)
    this.itemRevision = new Float64Array(capacity)
    this.itemPolledAt = new Float64Array(capacity)
    this.itemIdentity = new Float64Array(capacity)
    this.itemModules = new Uint8Array(capacity)
    this.bytesLength = new Uint16Array(capacity)
    this.bytesRevision = new Float64Array(capacity)
    this.bytesPolledAt = new Float64Array(capacity)
    this.bytesIdentity = new Float64Array(capacity)
    this.bytesStatus = new Array<string | undefined>(capacity).fill(undefined)
  }

  get size(): number {
    return this.slotOf.size
  }

  /** Whether any item is kept: a list at speed 600 keeps none, and need not look for one per agent. */
  get holdsItems(): boolean {
    return this.itemsHeld > 0
  }

  fragment(index: number): Fragment | undefined {
    const slot = this.slotOf.get(index)
    return slot === undefined ? undefined : this.fragments[slot]
  }

  /** The fragment kept for agent `index` and this base if it shows the identity of this key. */
  keyedFragment(index: number, base: LinkBase, key: number): Fragment | undefined {
    const slot = this.slotOf.get(index)
    return slot !== undefined && this.fragmentKey[slot] === key && this.bases[slot] === base ? this.fragments[slot] : undefined
  }

  /** Notes the key of the identity agent `index`'s kept fragment shows. */
  keyFragment(index: number, key: number): void {
    const slot = this.slotOf.get(index)
    if (slot !== undefined) this.fragmentKey[slot] = key
  }

  item(index: number, base: LinkBase, withModules: boolean, revision: number, polledAt: number, identity: number): string | undefined {
    const slot = this.slotOf.get(index)
    if (slot === undefined) return undefined
    const ok =
      this.itemModules[slot] === (withModules ? 2 : 1) &&
      this.itemRevision[slot] === revision &&
      this.itemPolledAt[slot] === polledAt &&
      this.itemIdentity[slot] === identity &&
      this.bases[slot] === base
    if (ok) return this.items[slot]
    // Stale for good (the stamps only move on): dropped, so that once none holds, none is looked for.
    if (this.itemModules[slot] === (withModules ? 2 : 1) && this.bases[slot] === base) this.dropItem(slot)
    return undefined
  }

  private dropItem(slot: number): void {
    if (this.itemModules[slot] === 0) return
    this.items[slot] = undefined
    this.itemModules[slot] = 0
    this.itemsHeld--
  }

  /** The state agent `index`'s kept item shows (ask right after item() found it). */
  status(index: number): string | undefined {
    const slot = this.slotOf.get(index)
    return slot === undefined ? undefined : this.itemStatus[slot]
  }

  /** Keeps a fragment for agent `index` (showing the identity of `key`), dropping the item kept with the one before. */
  keepFragment(index: number, fragment: Fragment, key: number): void {
    let slot = this.slotOf.get(index)
    if (slot === undefined) {
      slot = this.handedOut++ % this.capacity
      if (this.handedOut > this.capacity) this.slotOf.delete(this.agentOf[slot])
      this.slotOf.set(index, slot)
      this.agentOf[slot] = index
    }
    this.fragments[slot] = fragment
    this.bases[slot] = fragment.base
    this.fragmentKey[slot] = key
    this.dropItem(slot)
    this.bytesLength[slot] = 0
  }

  /**
   * Writes into `out` the bytes kept for agent `index`'s item (without modules) if they were
   * written at these stamps for this base; returns the state they show, or undefined.
   */
  writeKeptBytes(out: ChunkWriter, index: number, base: LinkBase, revision: number, polledAt: number, identity: number): string | undefined {
    const slot = this.slotOf.get(index)
    if (slot === undefined) return undefined
    const length = this.bytesLength[slot]
    if (
      length === 0 ||
      this.bytesRevision[slot] !== revision ||
      this.bytesPolledAt[slot] !== polledAt ||
      this.bytesIdentity[slot] !== identity ||
      this.bases[slot] !== base
    ) {
      return undefined
    }
    const at = (slot % SLOTS_PER_PAGE) * KEPT_BYTES_ROOM
    out.part(this.pages[Math.floor(slot / SLOTS_PER_PAGE)] as Buffer, at, at + length)
    return this.bytesStatus[slot]
  }

  /**
   * Keeps the bytes `out` holds from `from` (its length before the item was written) as agent
   * `index`'s item, written at these stamps and showing `status`: not if they do not fit the room.
   */
  keepBytes(index: number, out: ChunkWriter, from: number, status: string, revision: number, polledAt: number, identity: number): void {
    const slot = this.slotOf.get(index)
    if (slot === undefined) return
    if (out.length - from > KEPT_BYTES_ROOM) {
      this.bytesLength[slot] = 0
      return
    }
    const page = Math.floor(slot / SLOTS_PER_PAGE)
    const bytes = (this.pages[page] ??= Buffer.allocUnsafe(SLOTS_PER_PAGE * KEPT_BYTES_ROOM))
    this.bytesLength[slot] = out.copyWritten(from, bytes, (slot % SLOTS_PER_PAGE) * KEPT_BYTES_ROOM)
    this.bytesRevision[slot] = revision
    this.bytesPolledAt[slot] = polledAt
    this.bytesIdentity[slot] = identity
    this.bytesStatus[slot] = status
  }

  /** Keeps agent `index`'s item, written with the fragment kept for it at these stamps. */
  keepItem(index: number, text: string, status: string, withModules: boolean, revision: number, polledAt: number, identity: number): void {
    const slot = this.slotOf.get(index)
    if (slot === undefined) return
    if (this.itemModules[slot] === 0) this.itemsHeld++
    this.items[slot] = text
    this.itemStatus[slot] = status
    this.itemModules[slot] = withModules ? 2 : 1
    this.itemRevision[slot] = revision
    this.itemPolledAt[slot] = polledAt
    this.itemIdentity[slot] = identity
  }
}

/**
 * Fragments and last items kept per agent index and format, at most `capacity` agents per
 * format. A kept fragment takes about 1.2 kB (its text, the identity it is checked against, the
 * object and the map's entry: 242 MB for 100k agents in both formats, `node --expose-gc`, heap
 * used before and after), its last item about as much again, and its bytes, once a streamed list
 * wrote it (FragmentBytes), 1.4 kB more (`npm run bench:items`,
 * bench/results/items-2026-11-24T08-53-37.json), and its last streamed item's bytes a slot of
 * KEPT_BYTES_ROOM (1,280 bytes) more. So the bound is what a client asks about often:
 * 20,000 agents. A list longer than that is written without keeping (`keep` false): keeping
 * would only push out the fragments a list of its own agents needs next.
 */
export class ItemFragments {
  private readonly json: FormatStore
  private readonly xml: FormatStore

  constructor(readonly capacity = 20_000) {
    this.json = new FormatStore(capacity)
    this.xml = new FormatStore(capacity)
  }

  /** Fragments kept for a format. */
  size(format: Format): number {
    return this.store(format).size
  }

  private store(format: Format): FormatStore {
    return format === 'json' ? this.json : this.xml
  }

  /** Whether any item is kept for a format: if not, none need be looked for. */
  holdsItems(format: Format): boolean {
    return this.store(format).holdsItems
  }

  /** The item kept for agent `index` if it was written at these stamps (ItemSource), for this base, with or without modules. */
  item(format: Format, index: number, base: LinkBase, withModules: boolean, revision: number, polledAt: number, identity: number): string | undefined {
    return this.store(format).item(index, base, withModules, revision, polledAt, identity)
  }

  /** The state shown by the item item() just found for agent `index`. */
  keptStatus(format: Format, index: number): string | undefined {
    return this.store(format).status(index)
  }

  /** Writes the bytes kept for agent `index`'s item at these stamps into `out` (FormatStore.writeKeptBytes); returns the state they show, or undefined. */
  writeKeptBytes(out: ChunkWriter, format: Format, index: number, base: LinkBase, revision: number, polledAt: number, identity: number): string | undefined {
    return this.store(format).writeKeptBytes(out, index, base, revision, polledAt, identity)
  }

  /** Keeps the item just written into `out` from its length `from` as agent `index`'s bytes (FormatStore.keepBytes). */
  keepBytes(format: Format, index: number, out: ChunkWriter, from: number, status: string, revision: number, polledAt: number, identity: number): void {
    this.store(format).keepBytes(index, out, from, status, revision, polledAt, identity)
  }

  /** Keeps the item just written for agent `index` (showing `status`) with its kept fragment. */
  keepItem(format: Format, index: number, text: string, status: string, withModules: boolean, revision: number, polledAt: number, identity: number): void {
    this.store(format).keepItem(index, text, status, withModules, revision, polledAt, identity)
  }

  /**
   * The fragment of the view's identity: the one kept for its agent while the identity is the
   * same, else one made (and kept, unless `keep` is false). `key`: the key of the identity the
   * view shows (Figure.IDENTITY, from the view's own read), noted with the fragment for
   * keyedFragment; unknown (NaN) when not given.
   */
  get(format: Format, view: AgentView, base: LinkBase, keep = true, key = NaN): Fragment {
    const store = this.store(format)
    const found = store.fragment(view.index)
    if (found !== undefined && sameIdentity(found, view, base)) {
      // Without a key the one noted holds: the fragment still shows the identity it was noted for.
      if (!Number.isNaN(key)) store.keyFragment(view.index, key)
      return found
    }
    const fresh = format === 'json' ? jsonFragment(view, base) : xmlFragment(view, base)
    if (!keep) return fresh
    const made = flattened(fresh)
    store.keepFragment(view.index, made, key)
    return made
  }

  /**
   * The fragment kept for agent `index` and this base, if it was made for (or found to show)
   * the identity of this key (Figure.IDENTITY): an item can then be written from the agent's
   * figures, without its view (item-bytes.ts).
   */
  keptFragment(format: Format, index: number, base: LinkBase, key: number): Fragment | undefined {
    return this.store(format).keyedFragment(index, base, key)
  }
}

export function jsonModule(m: ModuleView): string {
  return (
    `{"module_name":${str(m.moduleName)},"module":${str(m.module)},"module-type":${int(m.moduleType)},"type":${str(m.type)},` +
    `"isRunning":${m.isRunning ? 'true' : 'false'},"evt-recvd":${int(m.evtRecvd)},"queuesize":${int(m.queuesize)},"evt-fwd":${int(m.evtFwd)},` +
    `"evt-drop":${int(m.evtDrop)},"status":${int(m.statusCode)},"module-status":${str(m.status)},"id":${int(m.id)},"serverInfo":{}}`
  )
}

export function xmlModule(m: ModuleView): string {
  return (
    `<modules><module_name>${escapeXml(m.moduleName)}</module_name><module>${escapeXml(m.module)}</module><module-type>${m.moduleType}</module-type>` +
    `<type>${escapeXml(m.type)}</type><isRunning>${m.isRunning}</isRunning><evt-recvd>${m.evtRecvd}</evt-recvd><queuesize>${m.queuesize}</queuesize>` +
    `<evt-fwd>${m.evtFwd}</evt-fwd><evt-drop>${m.evtDrop}</evt-drop><status>${m.statusCode}</status><module-status>${escapeXml(m.status)}</module-status>` +
    `<id>${m.id}</id><serverInfo/></modules>`
  )
}

/** One agentinfo item (`{"content":…,"links":[…]}`) as JSON text. */
export function jsonItem(view: AgentView, f: Fragment): string {
  let out =
    f.head +
    plain(view.status) +
    f.middle +
    plain(formatLocalMinute(view.started)) +
    ',"lastOnline":' +
    plain(formatLocalMinute(view.lastOnline)) +
    ',"load":' +
    plain(view.load.toFixed(2)) +
    ',"memUsage":' +
    num(view.memUsage) +
    ',"received":' +
    int(view.received) +
    ',"receivedToday":' +
    int(view.receivedToday) +
    ',"processing":' +
    int(view.processing) +
    ',"sent":' +
    int(view.sent) +
    ',"sentToday":' +
    int(view.sentToday) +
    f.tail
  if (view.modules !== undefined) {
    out += ',"modules":['
    for (let k = 0; k < view.modules.length; k++) out += (k === 0 ? '' : ',') + jsonModule(view.modules[k])
    out += ']'
  }
  return out + '}' + f.links + jsonLinksOf(f.base)
}

/** One agentinfo item as the `<values>` element of an XML answer. */
export function xmlItem(view: AgentView, f: Fragment): string {
  let out =
    f.head +
    view.status +
    f.middle +
    formatLocalMinute(view.started) +
    '</started><lastOnline>' +
    formatLocalMinute(view.lastOnline) +
    '</lastOnline><load>' +
    view.load.toFixed(2) +
    '</load><memUsage>' +
    view.memUsage +
    '</memUsage><received>' +
    view.received +
    '</received><receivedToday>' +
    view.receivedToday +
    '</receivedToday><processing>' +
    view.processing +
    '</processing><sent>' +
    view.sent +
    '</sent><sentToday>' +
    view.sentToday +
    '</sentToday>' +
    f.tail
  if (view.modules !== undefined) for (const m of view.modules) out += xmlModule(m)
  return out + '</content>' + f.links + xmlLinksOf(f.base)
}

/** An item in either format, its identity part from `fragments` (and kept there unless `keep` is false). */
export function writeItem(format: Format, view: AgentView, base: LinkBase, fragments: ItemFragments, keep = true): string {
  const f = fragments.get(format, view, base, keep)
  return format === 'json' ? jsonItem(view, f) : xmlItem(view, f)
}

/**
 * What writing an item keeps for the next answers:
 * - `item`: the agent's identity text, its fragment and the item itself (sent again while the
 *   agent has not changed and the manager has not polled it since): as text here, as bytes when
 *   a list that streams writes it (writeAgentItemBytes in item-bytes.ts);
 * - `identity`: the identity text and the fragment only, for items that will be stale before
 *   they are asked for again (lists while the fleet moves faster than they are made,
 *   AnswerCache.listsWorthKeeping): keeping them as text costs a copy and a GC promotion each
 *   (as bytes, in pages outside the heap, a copy and no GC; a list that streams keeps them so). An item
 *   kept earlier is still sent while it holds (a check of a few numbers): at speed 1 a list
 *   streams now and then too, when a step round came while the one before it was made;
 * - `nothing`: a list longer than the fragments kept, which would only push out the fragments
 *   a list of its own agents needs next.
 */
export type Keeping = 'item' | 'identity' | 'nothing'

/** The fleet's part of writeAgentItem: an agent's view and the stamps that say when it may change. */
export type ItemSource = Pick<Fleet, 'view' | 'agentRevision' | 'polledAt' | 'identityRevision'>

/**
 * Agent `index`'s item: the one kept from an earlier answer while the agent has not changed and
 * the manager has not polled it since (its view would be the same record), else written from a
 * fresh view and kept with its fragment, as much as `keeping` says.
 */
export function writeAgentItem(format: Format, fleet: ItemSource, index: number, withModules: boolean, base: LinkBase, fragments: ItemFragments, keeping: Keeping = 'item'): string {
  return writeWantedItem(format, fleet, index, withModules, base, fragments, keeping, undefined) as string
}

/**
 * writeAgentItem, or undefined when the state the item shows is not one of `wanted`: a list by
 * state chooses its agents by their state a moment before it reads each one, and a step worker
 * may move an agent in between; the list then leaves the item out, as if chosen a moment later.
 */
export function writeWantedItem(
  format: Format,
  fleet: ItemSource,
  index: number,
  withModules: boolean,
  base: LinkBase,
  fragments: ItemFragments,
  keeping: Keeping,
  wanted: ReadonlySet<string> | undefined
): string | undefined {
  // Read before the view: if the agent moves while it is read, the stamps are already stale and
  // the item is written again next time, never sent for a state it does not show.
  const revision = fleet.agentRevision(index)
  const polledAt = fleet.polledAt(index)
  const identity = fleet.identityRevision()
  const keepIdentity = keeping !== 'nothing'
  if (keepIdentity) {
    const kept = fragments.item(format, index, base, withModules, revision, polledAt, identity)
    if (kept !== undefined) return wanted === undefined || wanted.has(fragments.keptStatus(format, index) as string) ? kept : undefined
  }
  const view = fleet.view(index, withModules, keepIdentity)
  if (wanted !== undefined && !wanted.has(view.status)) return undefined
  const f = fragments.get(format, view, base, keepIdentity)
  const text = format === 'json' ? jsonItem(view, f) : xmlItem(view, f)
  // An odd revision is a write under way: the view waited for its end, the stamp did not.
  if (keeping === 'item' && (revision & 1) === 0) {
    // Flat, as a fragment's strings are (flattened): a kept tree of pieces costs several times its text.
    text.charCodeAt(0)
    fragments.keepItem(format, index, text, view.status, withModules, revision, polledAt, identity)
  }
  return text
}

/** A Link list as JSON text. */
export function jsonLinks(links: readonly { rel: string; href: string }[]): string {
  let out = '['
  for (let k = 0; k < links.length; k++) out += `${k === 0 ? '' : ','}{"rel":${str(links[k].rel)},"href":${str(links[k].href)}}`
  return out + ']'
}

/** `{"servicename":…,"values":[` — the start of a JSON envelope whose items follow. */
export function jsonEnvelopeHead(servicename: string): string {
  return `{"servicename":${str(servicename)},"values":[`
}

/** `],"links":[…]}` — the end of a JSON envelope (without links when there are none to show). */
export function jsonEnvelopeTail(links: readonly { rel: string; href: string }[] | undefined): string {
  return links === undefined ? ']}' : `],"links":${jsonLinks(links)}}`
}

/** The XML of a Link list (each link a `<links>` element). */
export function xmlLinks(links: readonly { rel: string; href: string }[] | undefined): string {
  let out = ''
  for (const link of links ?? []) out += xmlLink(link.rel, link.href)
  return out
}
