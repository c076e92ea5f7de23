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
 * An item is its identity part (item-fragment.ts), written once per agent and base and kept
 * while the identity holds, with the agent's state, dates and figures written between its
 * parts. The last whole item written for an agent is kept too (kept-items.ts), and sent again
 * while the agent has not changed and the manager has not polled it since (writeAgentItem): a
 * list of 10,000 agents reads and writes only the agents that moved.
 */
import type { AgentView, Fleet, ModuleHead, ModuleView } from '../fleet/fleet-api.js'
import { formatLocalMinute } from '../manager/time-format.js'
import type { Format } from '../protocol/negotiation.js'
import { jsonLinksOf, xmlLink, xmlLinksOf, type Fragment } from './item-fragment.js'
import { int, num, plain, str } from './json-text.js'
import type { ItemFragments } from './kept-items.js'
import type { LinkBase } from './links.js'
import { escapeXml } from './xml-writer.js'

/**
 * A module as each format writes it, in three parts: its head (name, kind, module type and type,
 * what its spec says, so the same for every agent of a module set, up to `isRunning`), then its
 * running flag and figures with `between[k]` before the k-th figure after the flag, and `end`.
 * jsonModule and xmlModule join them as text; item-bytes.ts keeps each head as bytes and writes
 * the rest around it.
 */
export interface ModuleLayout {
  head(m: ModuleHead): string
  /** before evt-recvd, queuesize, evt-fwd, evt-drop, status, module-status and id */
  between: readonly [string, string, string, string, string, string, string]
  end: string
  /** module-status as it stands in the format */
  status(text: string): string
}

export const JSON_MODULE: ModuleLayout = {
  head: (m) => `{"module_name":${str(m.moduleName)},"module":${str(m.module)},"module-type":${int(m.moduleType)},"type":${str(m.type)},"isRunning":`,
  between: [',"evt-recvd":', ',"queuesize":', ',"evt-fwd":', ',"evt-drop":', ',"status":', ',"module-status":', ',"id":'],
  end: ',"serverInfo":{}}',
  status: str
}

export const XML_MODULE: ModuleLayout = {
  head: (m) =>
    `<modules><module_name>${escapeXml(m.moduleName)}</module_name><module>${escapeXml(m.module)}</module><module-type>${m.moduleType}</module-type>` +
    `<type>${escapeXml(m.type)}</type><isRunning>`,
  between: ['</isRunning><evt-recvd>', '</evt-recvd><queuesize>', '</queuesize><evt-fwd>', '</evt-fwd><evt-drop>', '</evt-drop><status>', '</status><module-status>', '</module-status><id>'],
  end: '</id><serverInfo/></modules>',
  status: escapeXml
}

export function jsonModule(m: ModuleView): string {
  const b = JSON_MODULE.between
  return (
    JSON_MODULE.head(m) +
    (m.isRunning ? 'true' : 'false') +
    b[0] + int(m.evtRecvd) + b[1] + int(m.queuesize) + b[2] + int(m.evtFwd) + b[3] + int(m.evtDrop) +
    b[4] + int(m.statusCode) + b[5] + str(m.status) + b[6] + int(m.id) + JSON_MODULE.end
  )
}

export function xmlModule(m: ModuleView): string {
  const b = XML_MODULE.between
  return (
    XML_MODULE.head(m) +
    m.isRunning +
    b[0] + m.evtRecvd + b[1] + m.queuesize + b[2] + m.evtFwd + b[3] + m.evtDrop +
    b[4] + m.statusCode + b[5] + escapeXml(m.status) + b[6] + m.id + XML_MODULE.end
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
 *   agent has not changed and the manager has not polled it since): as bytes outside the heap
 *   where it fits (an item without modules, ItemFragments.keepItem), else as text;
 * - `identity`: the identity text and the fragment only, for items that will be stale before
 *   they are asked for again (short lists while the fleet moves faster than they are made,
 *   AnswerCache.listsWorthKeeping): keeping them costs a copy each, and an item with modules,
 *   kept as text, a GC promotion too. An item kept earlier is still sent while it holds (a check of a few numbers): at speed 1 a list
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
    if (kept !== undefined) return wanted === undefined || wanted.has(fragments.keptStatus(format) as string) ? kept : undefined
  }
  const view = fleet.view(index, withModules, keepIdentity)
  if (wanted !== undefined && !wanted.has(view.status)) return undefined
  const f = fragments.get(format, view, base, keepIdentity)
  const text = format === 'json' ? jsonItem(view, f) : xmlItem(view, f)
  // An odd revision is a write under way: the view waited for its end, the stamp did not.
  if (keeping === 'item' && (revision & 1) === 0) {
    // Flat, as a fragment's strings are (flattened): a tree of pieces kept as text (an item with
    // modules) costs several times its text, and one kept as bytes is encoded in one pass.
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
