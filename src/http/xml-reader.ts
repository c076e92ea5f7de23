/**
 * Reads XML request bodies into the same plain objects a JSON body gives, the inverse of the
 * structure in xml-writer.ts: the root element (any name, e.g. `<agent>`) is the body object,
 * child elements are its keys, repeated elements become a list, `<field name="k">` is key `k`,
 * and text stays text (the route's schema converts it, see coerce.ts).
 *
 * Safety: DOCTYPE declarations are refused before parsing and entity processing is off, so no
 * entity can expand (no "billion laughs", no external entities). The five predefined entities
 * and numeric character references are decoded here, which needs no DTD; any other entity, or a
 * reference to a character XML does not allow, makes the body malformed, as XML has it.
 *
 * Text is kept as sent, spaces and line breaks at either end included (a `verbatim`
 * configuration's indentation, a name a JSON body would have refused for its spaces): a value is
 * what its element holds. CDATA sections are text, read literally. The schema's reading of a
 * boolean or a number drops the spaces around it, as XML Schema does (coerce.ts).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { apiError, sent } from '../protocol/errors.js'
import { MAX_BODY_DEPTH, xmlTooDeepAt } from './body-depth.js'
import { eachMarkup } from './xml-markup.js'

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: false,
  commentPropName: false
})

const DOCTYPE = /<!DOCTYPE/i
/** A closing tag as XML has it: its name, and white space at most (`</name >`). */
const CLOSING_TAG = /^<\/[^\s<>"'/=]+\s*>$/
/** A reference in text the validator let through: it refuses a `&` that starts none. */
const REFERENCE = /&([^&;\s]*);/g
const NUMERIC = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/
/** fast-xml-parser's refusal of an element named `__proto__`, `constructor` or `prototype`. */
const RESERVED_NAME = /^\[SECURITY\] Invalid name: "([^"]*)"/
// Keys that would reach an object's prototype if assigned: refused as a field's name, never assigned.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

export function parseXmlBody(text: string): unknown {
  if (text.trim() === '') return undefined
  const prepared = forParser(text)
  if (prepared.doctype) throw apiError('E_XML_DOCTYPE')
  if (prepared.closing !== undefined) throw apiError('E_MALFORMED_XML', { detail: `the closing tag ${sent(prepared.closing)} holds more than its name: write </name>` })
  if (prepared.strayCdataEnd) throw apiError('E_MALFORMED_XML', { detail: 'text holds "]]>", which may only end a CDATA section: write "]]&gt;"' })
  if (prepared.declaration !== undefined) {
    throw apiError('E_MALFORMED_XML', { detail: `${sent(prepared.declaration)} is markup XML allows only in a DTD: in a body, \`<!\` starts a comment (\`<!--\`) or a CDATA section (\`<![CDATA[\`)` })
  }
  const deep = xmlTooDeepAt(text)
  if (deep !== undefined) throw apiError('E_BODY_TOO_DEEP', { most: MAX_BODY_DEPTH, at: deep + 1, what: 'elements' })
  const valid = XMLValidator.validate(text)
  if (valid !== true) {
    throw apiError('E_MALFORMED_XML', { detail: MULTIPLE_ROOTS.test(valid.err.msg) ? MORE_THAN_ONE_ROOT : `${validatorMessage(valid.err.msg)}, at line ${valid.err.line}` })
  }
  if (textAfterRoot(text)) throw apiError('E_MALFORMED_XML', { detail: 'text after the root element: a body is one element, and nothing but comments after it' })
  let document: Record<string, unknown>
  try {
    document = parser.parse(prepared.text) as Record<string, unknown>
  } catch (error) {
    // The parser refuses elements named as an object's prototype keys, with a message for programmers.
    const reserved = RESERVED_NAME.exec((error as Error).message)
    if (reserved !== null) throw apiError('E_XML_RESERVED_NAME', { name: reserved[1] })
    // It refuses some other inputs the validator lets through.
    throw apiError('E_MALFORMED_XML', { detail: (error as Error).message })
  }
  const roots = Object.keys(document)
  // Two roots of one name come as a list of them.
  if (roots.length !== 1 || Array.isArray(document[roots[0]])) throw apiError('E_MALFORMED_XML', { detail: MORE_THAN_ONE_ROOT })
  return toPlain(document[roots[0]], roots[0])
}

/**
 * The text the parser reads, and what refuses the body, from one walk over its markup in order
 * (xml-markup.ts):
 * - each CDATA section (its text literal, `&` and `<` included: XML 1.0, 2.7) stands as the same
 *   text outside one (escapeText), where it is markup: one inside a quoted attribute value is that
 *   value's text, which checkAttributes then judges;
 * - processing instructions are left out (the parser drops them anyway, ignorePiTags): the parser
 *   ends one at the first `?>` outside quotes, where XML, the validator and this walk end it at the
 *   first `?>`;
 * - any other `<!` markup (`<!ELEMENT`, `<![IGNORE[`) belongs in a DTD, which a body may not have,
 *   and a closing tag holds its name alone: either is noted (`declaration`, `closing`) and refused,
 *   as the parser reads them otherwise (`<![X[` as CDATA to `]]>`, `<!X` as an element, a closing
 *   tag to its first `>` whatever the quotes) and would read markup this walk reads as text;
 * - `strayCdataEnd`: text between markup holds `]]>`, which XML allows only as a CDATA section's end
 *   (1.0, 2.4: character data holds no `]]>`); the parser and the validator took it as text;
 * - `doctype`: the text the parser gets holds `<!DOCTYPE` anywhere, in a comment too. Taken from
 *   that text, not from this walk: reviews found four places where the parser reads markup apart
 *   from XML (above), each of which let a DOCTYPE the walk read as a comment's text reach the
 *   parser; with none in its text, it can read none, however it reads the rest. `<!DOCTYPE html>`
 *   in a CDATA section (a verbatim configuration of an HTML page) is text, escaped as all of it.
 */
export function forParser(text: string): { text: string; doctype: boolean; declaration?: string; closing?: string; strayCdataEnd?: true } {
  let out = ''
  let copied = 0
  let declaration: string | undefined
  let closing: string | undefined
  let strayCdataEnd = false
  /** where the text between the markup before and this one starts */
  let textFrom = 0
  /** the first `]]>` at or past textFrom (looked for again only once passed: one walk over the text) */
  let nextCdataEnd = -1
  eachMarkup(text, (kind, start, end) => {
    if (nextCdataEnd !== Infinity && nextCdataEnd < textFrom) {
      const found = text.indexOf(']]>', textFrom)
      nextCdataEnd = found === -1 ? Infinity : found
    }
    if (nextCdataEnd + 3 <= start) {
      strayCdataEnd = true
      return true
    }
    textFrom = end
    if (kind === 'close' && !CLOSING_TAG.test(text.slice(start, end))) {
      closing = text.slice(start, Math.min(end, start + 40))
      return true
    }
    if (kind === 'declaration') {
      declaration = text.slice(start, Math.min(end, start + 40))
      return true
    }
    if (kind !== 'cdata' && kind !== 'pi') return
    out += text.slice(copied, start)
    if (kind === 'cdata') out += escapeText(text.slice(start + '<![CDATA['.length, end - ']]>'.length))
    copied = end
  })
  const parsed = copied === 0 ? text : out + text.slice(copied)
  return {
    text: parsed,
    doctype: DOCTYPE.test(parsed),
    ...(declaration === undefined ? {} : { declaration }),
    ...(closing === undefined ? {} : { closing }),
    ...(strayCdataEnd ? { strayCdataEnd: true as const } : {})
  }
}

/** XML's white space: space, tab, line feed, carriage return (not what String.prototype.trim takes). */
const XML_SPACE = /^[ \t\r\n]*$/
/** The XML declaration: a processing instruction named `xml` (`<?xml-stylesheet` is another). */
const XML_DECLARATION = /^<\?xml[ \t\r\n?]/i

/**
 * Whether anything but white space, comments and processing instructions follows the root
 * element (`<agent/>junk`, `</agent>&amp;`, `</agent><?xml version="1.0"?>`), which the validator
 * takes: after a root that closes itself, an entity reference, or a declaration. A second element
 * is left to the check for one root, which says so.
 */
function textAfterRoot(text: string): boolean {
  let depth = 0
  let rootEnd = -1
  let after = false
  let anotherElement = false
  eachMarkup(text, (kind, start, end) => {
    if (rootEnd === -1) {
      if (kind === 'open') depth++
      else if (kind === 'close' && --depth === 0) rootEnd = end
      else if (kind === 'empty' && depth === 0) rootEnd = end
      return
    }
    if (!XML_SPACE.test(text.slice(rootEnd, start)) || (kind === 'pi' && XML_DECLARATION.test(text.slice(start, end)))) return (after = true)
    if (kind === 'open' || kind === 'empty' || kind === 'close') return (anotherElement = true)
    // A CDATA section is text (the parser gets it as such, forParser), which no root has after it.
    if (kind !== 'comment' && kind !== 'pi') return (after = true)
    rootEnd = end
  })
  return after || (!anotherElement && rootEnd !== -1 && !XML_SPACE.test(text.slice(rootEnd)))
}

const MORE_THAN_ONE_ROOT = 'more than one root element: a body is one element (<agent>…</agent>), its fields inside it'
/** The validator's refusal of a second root after one that does not close itself (the check for one root says it of the others). */
const MULTIPLE_ROOTS = /^Multiple possible root nodes found/

/** The validator's list of the elements left open at the end (`Invalid '["agent", "name"]' found`), every name in it. */
const LEFT_OPEN = /^Invalid '\[([\s\S]*)\]' found\.?$/
/** Elements left open a message names at most, and characters of each. */
const OPEN_NAMED = 3
const NAME_SHOWN = 64

/**
 * The validator's message, as a sentence that says what is wrong: elements left open are named
 * (the first few), where the validator listed every one of them, so that a body of 9,000 open
 * elements got an error of a megabyte that named no problem.
 */
function validatorMessage(message: string): string {
  const open = LEFT_OPEN.exec(message)
  if (open === null) return (message.length > 300 ? `${message.slice(0, 300)}…` : message).replace(/\.$/, '')
  const names = open[1].split(',').map((name) => name.trim().replace(/^"|"$/g, ''))
  const shown = names.slice(0, OPEN_NAMED).map((name) => `<${name.length > NAME_SHOWN ? `${name.slice(0, NAME_SHOWN)}…` : name}>`)
  const more = names.length > OPEN_NAMED ? ` and ${names.length - OPEN_NAMED} more` : ''
  return `${names.length === 1 ? 'element' : 'elements'} ${shown.join(', ')}${more} never closed (a CDATA section or a comment left open takes the rest of the body)`
}

/**
 * A CDATA section's text as the same text outside one (escaped where markup would start), so the
 * parser and decode() read it as any other text: its characters are kept in their place between
 * the text around it, where a section apart from the text would lose the order of the two.
 */
function escapeText(literal: string): string {
  return literal.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function decode(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(REFERENCE, (whole, name: string) => {
    switch (name) {
      case 'lt':
        return '<'
      case 'gt':
        return '>'
      case 'amp':
        return '&'
      case 'quot':
        return '"'
      case 'apos':
        return "'"
    }
    const numeric = NUMERIC.exec(name)
    // Without a DTD (refused) no other entity is declared: XML makes its use an error, not text.
    if (numeric === null) throw apiError('E_MALFORMED_XML', { detail: `${sent(whole)} is no entity XML defines without a DTD: write & as &amp;, or a character as &#NNNN;` })
    const code = numeric[1] !== undefined ? parseInt(numeric[1], 16) : parseInt(numeric[2], 10)
    if (!isXmlChar(code)) throw apiError('E_MALFORMED_XML', { detail: `${sent(whole)} refers to a character XML does not allow` })
    return String.fromCodePoint(code)
  })
}

/** XML 1.0's Char: tab, newline, carriage return and the rest of Unicode but the surrogates, U+FFFE and U+FFFF. */
function isXmlChar(code: number): boolean {
  return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff)
}

/** A `&` that starts no reference (a name or a character number, then `;`). */
const BARE_AMPERSAND = /&(?![A-Za-z_:][\w.:-]*;|#[0-9]+;|#x[0-9a-fA-F]+;)/

/**
 * Refuses an attribute value XML does not allow, which the validator lets through: a `<` in it,
 * a `&` that starts no reference, or a reference decode() refuses (XML 1.0, 3.1: AttValue). Read
 * or not (only a field's `name` is), a body that is not XML is refused as any other.
 */
function checkAttributes(element: Record<string, unknown>): void {
  for (const key of Object.keys(element)) {
    if (!key.startsWith('@_')) continue
    const value = String(element[key])
    const attribute = key.slice(2)
    if (value.includes('<')) throw apiError('E_MALFORMED_XML', { detail: `the value of attribute ${sent(attribute)} holds a "<", which no attribute may: write it as &lt;` })
    if (BARE_AMPERSAND.test(value)) throw apiError('E_MALFORMED_XML', { detail: `the value of attribute ${sent(attribute)} holds a "&" that starts no reference: write & as &amp;` })
    decode(value)
  }
}

/** XML Schema's instance namespace, whose attributes (`nil`, `type`) say how to read an element, not a value. */
const XSI = 'http://www.w3.org/2001/XMLSchema-instance'
/** Namespace prefixes in scope, each with its namespace (declared by `xmlns:p` on an element or above). */
type Prefixes = ReadonlyMap<string, string>
const NO_PREFIXES: Prefixes = new Map()

/**
 * Refuses an attribute that would carry a value (`<agent name="web-1">`, as a serializer that
 * maps fields to attributes writes it), which the body's object has no place for: dropped with
 * nothing said, the request went on without it ("name is required" with the name right there, or
 * a modify that silently kept a value). Namespace declarations, XML's own attributes
 * (`xml:lang`) and XML Schema's instance ones (`xsi:nil`, `i:nil` as .NET writes it: judged by the
 * namespace its prefix is bound to; `xsi` bound to none is taken as the usual one), which
 * serializers add and which carry no value, are read as nothing; a `<field>`'s `name` is its key.
 * Returns the prefixes in scope for the element's children.
 */
function refuseValueAttributes(element: Record<string, unknown>, name: string, keyedByName: boolean, inScope: Prefixes): Prefixes {
  let prefixes = inScope
  for (const key of Object.keys(element)) {
    if (!key.startsWith('@_xmlns:')) continue
    if (prefixes === inScope) prefixes = new Map(inScope)
    ;(prefixes as Map<string, string>).set(key.slice('@_xmlns:'.length), decode(String(element[key])))
  }
  for (const key of Object.keys(element)) {
    if (!key.startsWith('@_')) continue
    const attribute = key.slice(2)
    if (attribute === 'xmlns' || attribute.startsWith('xmlns:')) continue
    const colon = attribute.indexOf(':')
    const prefix = colon === -1 ? undefined : attribute.slice(0, colon)
    if (prefix === 'xml') continue
    if (prefix !== undefined && (prefixes.get(prefix) ?? (prefix === 'xsi' ? XSI : undefined)) === XSI) continue
    if (keyedByName && attribute === 'name') continue
    throw apiError('E_XML_ATTRIBUTE', { element: name, attribute, local: attribute.slice(colon + 1) })
  }
  return prefixes
}

/**
 * `name`: the element's; `keyedByName`: a `<field>` below the root, whose `name` attribute is its
 * key; `prefixes`: the namespace prefixes declared above it.
 */
function toPlain(node: unknown, name: string, keyedByName = false, inScope: Prefixes = NO_PREFIXES): unknown {
  if (typeof node === 'string') return decode(node)
  if (node === null || typeof node !== 'object') return node === undefined ? '' : decode(String(node))
  const element = node as Record<string, unknown>
  checkAttributes(element)
  const prefixes = refuseValueAttributes(element, name, keyedByName, inScope)
  const children = Object.keys(element).filter((key) => !key.startsWith('@_') && key !== '#text')
  if (children.length === 0) return element['#text'] === undefined ? '' : decode(String(element['#text']))
  const out: Record<string, unknown> = {}
  for (const key of children) {
    // A serializer that qualifies elements (`<ns0:name>`) names keys the operation does not have:
    // read as they are, the body lacked its fields ("name is required") with the name right there.
    const colon = key.indexOf(':')
    if (colon !== -1) throw apiError('E_XML_NAMESPACE', { element: key, local: key.slice(colon + 1) })
    const value = element[key]
    const items = Array.isArray(value) ? value : [value]
    if (key === 'field') {
      // `<field name="the service">` carries a key that is not a valid XML name.
      for (const item of items) {
        const name = item !== null && typeof item === 'object' ? (item as Record<string, unknown>)['@_name'] : undefined
        if (typeof name !== 'string') {
          assign(out, 'field', toPlain(item, key, false, prefixes))
          continue
        }
        const named = decode(name)
        // Refused as an element of that name is, rather than dropped with nothing said.
        if (FORBIDDEN_KEYS.has(named)) throw apiError('E_XML_RESERVED_NAME', { name: named, field: true })
        assign(out, named, toPlain(item, key, true, prefixes))
      }
      continue
    }
    assign(out, key, Array.isArray(value) ? value.map((item) => toPlain(item, key, false, prefixes)) : toPlain(value, key, false, prefixes))
  }
  return out
}

function assign(target: Record<string, unknown>, key: string, value: unknown): void {
  if (FORBIDDEN_KEYS.has(key)) return
  target[key] = value
}
