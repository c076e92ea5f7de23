/**
 * What is kept per agent between answers, per format (ItemFragments): the identity part of its
 * item (item-fragment.ts), its last item as text (item-writer.ts), and its last item of a
 * streamed list as bytes (item-bytes.ts), each with the stamps it was written at: the agent's
 * revision, the manager's last poll of it and the revision of the identity overrides. A kept
 * item is sent again only while all three hold; a fragment while the identity it shows does.
 */
import type { AgentView } from '../fleet/fleet-api.js'
import type { Format } from '../protocol/negotiation.js'
import type { ChunkWriter } from './chunk-writer.js'
import { flattened, jsonFragment, sameIdentity, xmlFragment, type Fragment } from './item-fragment.js'
import type { LinkBase } from './links.js'

/**
 * Room for an item of a streamed list kept as bytes, per slot. An item without modules is
 * about 870 bytes in JSON and 1,080 in XML (`npm run bench:items`); one that does not fit is
 * written anew each time.
 */
const KEPT_BYTES_ROOM = 1280
/** Slots whose items' bytes share one buffer (1.25 MiB), made when the first of them is kept. */
const SLOTS_PER_PAGE = 1024

/** Where a slot's kept bytes start in its page (FormatStore.pageOf). */
const bytesStart = (slot: number) => (slot % SLOTS_PER_PAGE) * KEPT_BYTES_ROOM

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
  /**
   * Each slot's room in its page as a buffer of its own, made once per slot: a kept item is
   * copied into a list from it whole (ChunkWriter.prefix), where copying a part of the page made
   * a view of that part for every item (Buffer.copy does), which the GC then collected. The price:
   * a buffer object per slot for the process's life (at most `capacity` a format), which every
   * full GC marks, as the pages were made to avoid for the bytes themselves.
   */
  private readonly rooms: Array<Buffer | undefined>
  /** how many bytes each slot's kept bytes are; 0: none */
  private readonly bytesLength: Uint16Array
  private readonly bytesRevision: Float64Array
  private readonly bytesPolledAt: Float64Array
  private readonly bytesIdentity: Float64Array
  private readonly bytesStatus: Array<string | undefined>
  /** the state shown by the item last found (keptStatus) */
  private foundStatus: string | undefined
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
    this.rooms = new Array<Buffer | undefined>(capacity).fill(undefined)
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

  /** The item kept as text for agent `index` (an item with modules) if written at these stamps, for this base. */
  textItem(index: number, base: LinkBase, withModules: boolean, revision: number, polledAt: number, identity: number): string | undefined {
    const slot = this.slotOf.get(index)
    if (slot === undefined) return undefined
    const ok =
      this.itemModules[slot] === (withModules ? 2 : 1) &&
      this.itemRevision[slot] === revision &&
      this.itemPolledAt[slot] === polledAt &&
      this.itemIdentity[slot] === identity &&
      this.bases[slot] === base
    if (ok) {
      this.foundStatus = this.itemStatus[slot]
      return this.items[slot]
    }
    // Stale for good (the stamps only move on): dropped, so that once none holds, none is looked for.
    if (this.itemModules[slot] === (withModules ? 2 : 1) && this.bases[slot] === base) this.dropItem(slot)
    return undefined
  }

  /**
   * The item kept for agent `index` at these stamps, for this base, as text: kept as text, or
   * kept as bytes (an item without modules) and decoded, a new string the caller may drop.
   */
  item(index: number, base: LinkBase, withModules: boolean, revision: number, polledAt: number, identity: number): string | undefined {
    const text = this.textItem(index, base, withModules, revision, polledAt, identity)
    if (text !== undefined || withModules) return text
    const slot = this.slotOf.get(index)
    if (slot === undefined || !this.bytesHold(slot, base, revision, polledAt, identity)) return undefined
    const at = bytesStart(slot)
    this.foundStatus = this.bytesStatus[slot]
    return this.pageOf(slot).toString('utf8', at, at + this.bytesLength[slot])
  }

  /** Whether the bytes kept in `slot` were written at these stamps for this base. */
  private bytesHold(slot: number, base: LinkBase, revision: number, polledAt: number, identity: number): boolean {
    return (
      this.bytesLength[slot] !== 0 &&
      this.bytesRevision[slot] === revision &&
      this.bytesPolledAt[slot] === polledAt &&
      this.bytesIdentity[slot] === identity &&
      this.bases[slot] === base
    )
  }

  private dropItem(slot: number): void {
    if (this.itemModules[slot] === 0) return
    this.items[slot] = undefined
    this.itemModules[slot] = 0
    this.itemsHeld--
  }

  /** The state shown by the item item() or textItem() last found (ask right after). */
  get keptStatus(): string | undefined {
    return this.foundStatus
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
    if (slot === undefined || !this.bytesHold(slot, base, revision, polledAt, identity)) return undefined
    out.prefix(this.roomOf(slot), this.bytesLength[slot])
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
    this.bytesLength[slot] = out.copyWritten(from, this.pageOf(slot), bytesStart(slot))
    this.stampBytes(slot, status, revision, polledAt, identity)
  }

  /** A slot's room in its page (rooms). */
  private roomOf(slot: number): Buffer {
    let room = this.rooms[slot]
    if (room === undefined) {
      const at = bytesStart(slot)
      room = this.rooms[slot] = this.pageOf(slot).subarray(at, at + KEPT_BYTES_ROOM)
    }
    return room
  }

  /** The page holding a slot's kept bytes, made the first time one of its slots keeps bytes. */
  private pageOf(slot: number): Buffer {
    return (this.pages[Math.floor(slot / SLOTS_PER_PAGE)] ??= Buffer.allocUnsafe(SLOTS_PER_PAGE * KEPT_BYTES_ROOM))
  }

  private stampBytes(slot: number, status: string, revision: number, polledAt: number, identity: number): void {
    this.bytesRevision[slot] = revision
    this.bytesPolledAt[slot] = polledAt
    this.bytesIdentity[slot] = identity
    this.bytesStatus[slot] = status
  }

  /**
   * Keeps agent `index`'s item, written as text with the fragment kept for it at these stamps:
   * an item without modules as its bytes, where it fits the room (a copy outside the heap, which
   * a list that streams copies as it is, and item() decodes); an item with modules as the text.
   * Why not the text: a text kept lives past the next young-generation GC, which copies it and
   * then promotes it to the old generation, and at speed 600 it is stale before it is asked for
   * again. Answers by name kept their items so, and with the journal's texts the GC took 8 to 17
   * µs of each (bench/README.md, "Items kept as bytes, answer texts in a byte ring").
   */
  keepItem(index: number, text: string, status: string, withModules: boolean, revision: number, polledAt: number, identity: number): void {
    const slot = this.slotOf.get(index)
    if (slot === undefined) return
    if (!withModules) {
      const at = bytesStart(slot)
      const length = Buffer.byteLength(text)
      if (length <= KEPT_BYTES_ROOM) {
        this.bytesLength[slot] = this.pageOf(slot).write(text, at, length)
        this.stampBytes(slot, status, revision, polledAt, identity)
        return
      }
    }
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

  /** Whether any item is kept as text for a format (textItem): if not, none need be looked for. */
  holdsItems(format: Format): boolean {
    return this.store(format).holdsItems
  }

  /**
   * The item kept for agent `index` if it was written at these stamps (ItemSource), for this
   * base, with or without modules, as text: an item kept as bytes is decoded (keepItem).
   */
  item(format: Format, index: number, base: LinkBase, withModules: boolean, revision: number, polledAt: number, identity: number): string | undefined {
    return this.store(format).item(index, base, withModules, revision, polledAt, identity)
  }

  /** As item(), only an item kept as text: what a list written as bytes looks for before the bytes (writeKeptBytes). */
  textItem(format: Format, index: number, base: LinkBase, withModules: boolean, revision: number, polledAt: number, identity: number): string | undefined {
    return this.store(format).textItem(index, base, withModules, revision, polledAt, identity)
  }

  /** The state shown by the item item() or textItem() just found. */
  keptStatus(format: Format): string | undefined {
    return this.store(format).keptStatus
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
