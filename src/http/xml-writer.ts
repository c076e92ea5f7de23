/**
 * Renders response values as XML. The structure (documented in docs/protocol.md):
 * - the root is `<result servicename="...">`; every other value is an element;
 * - an object is an element with one child element per key, in key order;
 * - an array is its items repeated under the array's key (no wrapper element); an empty array
 *   writes nothing;
 * - a scalar is the element's text (booleans `true`/`false`, numbers as JavaScript prints them);
 *   null and undefined write nothing;
 * - a key that is not a valid XML name (e.g. `the service`) is written as
 *   `<field name="the service">...</field>`; the request reader maps it back.
 *
 * Written by hand rather than with fast-xml-parser's builder: the output is a few string
 * concatenations per value, which keeps agentinfo fast and lets lists stream item by item.
 */

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>'

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/
// Characters XML 1.0 cannot carry at all; replaced so a stray control character in a name
// cannot make the whole document unreadable.
// eslint-disable-next-line no-control-regex
const INVALID_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g

/**
 * Text an XML answer cannot carry as it is: the characters escapeXml replaces (INVALID_CHARS),
 * and surrogates without their pair, which UTF-8 has no bytes for.
 */
const NOT_CARRIED = new RegExp(`${INVALID_CHARS.source}|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`)

/** Whether an XML answer carries `text` unchanged (JSON carries any string). */
export function xmlCarries(text: string): boolean {
  return !NOT_CARRIED.test(text)
}

// eslint-disable-next-line no-control-regex -- the characters XML cannot carry must be matched
const SPECIAL = /[&<>"'\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/

/** Opening and closing tags per key, computed once per distinct key. */
const tagCache = new Map<string, { open: string; close: string; empty: string }>()

function tagsFor(key: string): { open: string; close: string; empty: string } {
  let tags = tagCache.get(key)
  if (tags === undefined) {
    const valid = VALID_NAME.test(key) && !key.toLowerCase().startsWith('xml')
    tags = valid
      ? { open: `<${key}>`, close: `</${key}>`, empty: `<${key}/>` }
      : { open: `<field name="${escapeXml(key)}">`, close: '</field>', empty: `<field name="${escapeXml(key)}"/>` }
    // Keys come from our own records, so the cache stays small; the bound guards against keys
    // echoed from requests.
    if (tagCache.size < 1000) tagCache.set(key, tags)
  }
  return tags
}

export function escapeXml(text: string): string {
  if (!SPECIAL.test(text)) return text
  return text
    .replace(INVALID_CHARS, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

/** The XML of one keyed value (an element, or repeated elements for an array). */
export function xmlElement(key: string, value: unknown): string {
  if (value === undefined || value === null) return ''
  if (Array.isArray(value)) {
    let out = ''
    for (const item of value) out += xmlElement(key, item)
    return out
  }
  const tags = tagsFor(key)
  if (typeof value === 'object') {
    let inner = ''
    for (const child in value as Record<string, unknown>) inner += xmlElement(child, (value as Record<string, unknown>)[child])
    return inner === '' ? tags.empty : tags.open + inner + tags.close
  }
  return tags.open + (typeof value === 'string' ? escapeXml(value) : String(value)) + tags.close
}

export function xmlOpen(servicename: string): string {
  return `${XML_DECLARATION}<result servicename="${escapeXml(servicename)}">`
}

export const XML_CLOSE = '</result>'

/** A whole document: the root and one element per member of `body` (servicename excluded). */
export function xmlDocument(body: { servicename: string } & Record<string, unknown>): string {
  let out = xmlOpen(body.servicename)
  for (const key in body) {
    if (key !== 'servicename') out += xmlElement(key, body[key])
  }
  return out + XML_CLOSE
}
