/**
 * The identity part of an agentinfo item (its fragment): what an agent shows that changes only
 * with its identity (name, UUID, version, OS, address, service, sysinfo, its self link), as the
 * text around the item's figures, in one format for one link base. Made once per agent and
 * base and kept while the identity holds (ItemFragments, kept-items.ts); the item writers
 * (item-writer.ts as text, item-bytes.ts as bytes) write the figures between its parts.
 */
import type { AgentView } from '../fleet/fleet-api.js'
import { str } from './json-text.js'
import { agentSelfHref, type LinkBase } from './links.js'
import { escapeXml } from './xml-writer.js'

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

/**
 * A fragment of the view's identity with its texts in one format. One plain object literal, not
 * `{ ...identity, head, … }`: in Node 20's V8 a spread followed by more properties is far slower
 * than a plain literal, and a list longer than what is kept makes a fragment per item
 * (bench/README.md, "Long lists without an object spread per item").
 */
function fragmentOf(view: AgentView, base: LinkBase, head: string, middle: string, tail: string, links: string): Fragment {
  return { name: view.name, uuid: view.uuid, version: view.version, os: view.os, address: view.address, service: view.service, base, head, middle, tail, links, bytes: undefined }
}

/**
 * The literal text around an item's identity values in one format, and how a value is written
 * in it (`value`: JSON's str, XML's escapeXml). The fragments are joined from it here; an item of
 * a list longer than what is kept is written from it straight as bytes (item-bytes.ts,
 * writeViewItem), with no fragment made. Each pair or quadruple is the text before each value and,
 * last, the text after the last value.
 */
export interface IdentityLayout {
  /** around the name, UUID and version: the head, up to the status */
  head: readonly [beforeName: string, beforeUuid: string, beforeVersion: string, beforeStatus: string]
  /** around the OS, address and service: the middle, from after the status up to `started` */
  middle: readonly [beforeOs: string, beforeAddress: string, beforeService: string, beforeStarted: string]
  /** around the sysinfo: the tail */
  tail: readonly [beforeSysinfo: string, afterSysinfo: string]
  /** around the item's own link's href */
  self: readonly [beforeHref: string, afterHref: string]
  value: (text: string) => string
}

export const JSON_IDENTITY: IdentityLayout = {
  head: ['{"content":{"name":', ',"uuid":', ',"version":', ',"status":'],
  middle: [',"os":', ',"address":', ',"the service":', ',"started":'],
  tail: [',"sysinfo":', ''],
  self: [',"links":[{"rel":"self","href":', '},'],
  value: str
}

export const XML_IDENTITY: IdentityLayout = {
  head: ['<values><content><name>', '</name><uuid>', '</uuid><version>', '</version><status>'],
  middle: ['</status><os>', '</os><address>', '</address><field name="the service">', '</field><started>'],
  tail: ['<sysinfo>', '</sysinfo>'],
  self: ['<links><rel>self</rel><href>', '</href></links>'],
  value: escapeXml
}

function fragmentIn(layout: IdentityLayout, view: AgentView, base: LinkBase): Fragment {
  const { head, middle, tail, self, value } = layout
  return fragmentOf(
    view,
    base,
    head[0] + value(view.name) + head[1] + value(view.uuid) + head[2] + value(view.version) + head[3],
    middle[0] + value(view.os) + middle[1] + value(view.address) + middle[2] + value(view.service) + middle[3],
    tail[0] + value(view.sysinfo) + tail[1],
    self[0] + value(agentSelfHref(base, view.name)) + self[1]
  )
}

export function jsonFragment(view: AgentView, base: LinkBase): Fragment {
  return fragmentIn(JSON_IDENTITY, view, base)
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

export function xmlLink(rel: string, href: string): string {
  return `<links><rel>${escapeXml(rel)}</rel><href>${escapeXml(href)}</href></links>`
}

export function xmlFragment(view: AgentView, base: LinkBase): Fragment {
  return fragmentIn(XML_IDENTITY, view, base)
}

// The view's strings are those the fleet keeps per agent (src/fleet/shown-identities.ts): while
// nothing changed they are the very strings the fragment was made from, and compare by reference.
// sysinfo is not compared: it is the agent's own (a function of its index and OS), and the OS is.
export function sameIdentity(f: Fragment, view: AgentView, base: LinkBase): boolean {
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
export function flattened(f: Fragment): Fragment {
  for (const text of [f.name, f.uuid, f.version, f.os, f.address, f.service, f.head, f.middle, f.tail, f.links]) text.charCodeAt(0)
  return f
}
