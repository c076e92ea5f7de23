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
 * stay the same (ItemFragments, bounded): a list of 10,000 agents writes only their live fields.
 */
import type { AgentView, ModuleView } from '../fleet/fleet-api.js'
import { formatLocalMinute } from '../manager/time-format.js'
import type { Format } from '../protocol/negotiation.js'
import type { LinkBase } from './links.js'
import { escapeXml } from './xml-writer.js'

/** JSON text of a string, as JSON.stringify (and fast-json-stringify) write it. */
const str = JSON.stringify as (value: string) => string

/** An integer field as fast-json-stringify writes one (a fraction is cut off). */
function int(n: number): string {
  return Number.isInteger(n) ? '' + n : '' + Math.trunc(n)
}

/** A number field: non-finite numbers are null in JSON. */
function num(n: number): string {
  return Number.isFinite(n) ? '' + n : 'null'
}

/** The identity part of an item, written once per agent and link base. */
interface Fragment {
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
}

const XML_SERVICE_OPEN = '<field name="the service">'

function jsonFragment(view: AgentView, base: LinkBase): Fragment {
  const selfHref = `${base.rest}/agentinfo?agentname=${encodeURIComponent(view.name)}`
  return {
    ...identityOf(view, base),
    head: `{"content":{"name":${str(view.name)},"uuid":${str(view.uuid)},"version":${str(view.version)},"status":`,
    middle: `,"os":${str(view.os)},"address":${str(view.address)},"the service":${str(view.service)},"started":`,
    tail: `,"sysinfo":${str(view.sysinfo)}`,
    links: `,"links":[{"rel":"self","href":${str(selfHref)}},`
  }
}

/**
 * What every item of a base ends with: its two templated links. Kept per base (a WeakMap on the
 * base object, which Links keeps per protocol and host), not per agent.
 */
const jsonBaseLinks = new WeakMap<LinkBase, string>()
const xmlBaseLinks = new WeakMap<LinkBase, string>()

function jsonLinksOf(base: LinkBase): string {
  let text = jsonBaseLinks.get(base)
  if (text === undefined) {
    text = `{"rel":${str(base.online.rel)},"href":${str(base.online.href)}},{"rel":${str(base.all.rel)},"href":${str(base.all.href)}}]}`
    jsonBaseLinks.set(base, text)
  }
  return text
}

function xmlLinksOf(base: LinkBase): string {
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
  const selfHref = `${base.rest}/agentinfo?agentname=${encodeURIComponent(view.name)}`
  return {
    ...identityOf(view, base),
    head: `<values><content><name>${escapeXml(view.name)}</name><uuid>${escapeXml(view.uuid)}</uuid><version>${escapeXml(view.version)}</version><status>`,
    middle: `</status><os>${escapeXml(view.os)}</os><address>${escapeXml(view.address)}</address>${XML_SERVICE_OPEN}${escapeXml(view.service)}</field><started>`,
    tail: `<sysinfo>${escapeXml(view.sysinfo)}</sysinfo>`,
    links: xmlLink('self', selfHref)
  }
}

// sysinfo is not compared: it is the agent's own (a function of its index and OS), and the OS is.
function identityOf(view: AgentView, base: LinkBase) {
  return { name: view.name, uuid: view.uuid, version: view.version, os: view.os, address: view.address, service: view.service, base }
}

// The view's strings are those the fleet keeps per agent (src/fleet/shown-identities.ts): while
// nothing changed they are the very strings the fragment was made from, and compare by reference.
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
 * Fragments kept per agent index and format, at most `capacity` per format. A kept fragment
 * takes about 1.2 kB (its text, the identity it is checked against, the object and the map's
 * entry: 242 MB for 100k agents in both formats, `node --expose-gc`, heap used before and
 * after), so the bound is what a client asks about often: 20,000 agents, about 24 MB a format.
 * A list longer than that is written without keeping (`keep` false): keeping would only push
 * out the fragments a list of its own agents needs next.
 */
export class ItemFragments {
  private readonly json = new Map<number, Fragment>()
  private readonly xml = new Map<number, Fragment>()

  constructor(readonly capacity = 20_000) {}

  /** Fragments kept for a format. */
  size(format: Format): number {
    return (format === 'json' ? this.json : this.xml).size
  }

  get(format: Format, view: AgentView, base: LinkBase, keep = true): Fragment {
    const kept = format === 'json' ? this.json : this.xml
    const found = kept.get(view.index)
    if (found !== undefined && sameIdentity(found, view, base)) return found
    const fresh = format === 'json' ? jsonFragment(view, base) : xmlFragment(view, base)
    if (!keep) return fresh
    const made = flattened(fresh)
    // Past the bound the oldest agent's fragment goes (Maps iterate in insertion order).
    if (found === undefined && kept.size >= this.capacity) kept.delete(kept.keys().next().value as number)
    kept.set(view.index, made)
    return made
  }
}

function jsonModule(m: ModuleView): string {
  return (
    `{"module_name":${str(m.moduleName)},"module":${str(m.module)},"module-type":${int(m.moduleType)},"type":${str(m.type)},` +
    `"isRunning":${m.isRunning ? 'true' : 'false'},"evt-recvd":${int(m.evtRecvd)},"queuesize":${int(m.queuesize)},"evt-fwd":${int(m.evtFwd)},` +
    `"evt-drop":${int(m.evtDrop)},"status":${int(m.statusCode)},"module-status":${str(m.status)},"id":${int(m.id)},"serverInfo":{}}`
  )
}

function xmlModule(m: ModuleView): string {
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
    str(view.status) +
    f.middle +
    str(formatLocalMinute(view.started)) +
    ',"lastOnline":' +
    str(formatLocalMinute(view.lastOnline)) +
    ',"load":' +
    str(view.load.toFixed(2)) +
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
    escapeXml(view.status) +
    f.middle +
    escapeXml(formatLocalMinute(view.started)) +
    '</started><lastOnline>' +
    escapeXml(formatLocalMinute(view.lastOnline)) +
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
