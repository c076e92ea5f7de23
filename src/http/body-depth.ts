/**
 * How deep a request body may nest, checked on its text before it is parsed: no body of the
 * interface nests more than a few levels (a scenario uploaded as JSON, about ten), while a body of
 * a million `[` or `<a>` held every other request while it was parsed far longer than a body of
 * its size nested a few levels. Both formats get E_BODY_TOO_DEEP at the same depth.
 */

/** Arrays and objects a JSON body may nest, and elements an XML body may nest. */
export const MAX_BODY_DEPTH = 64

/**
 * Where (the character's offset, from 0) a JSON text opens its (MAX_BODY_DEPTH + 1)-th nested
 * array or object, outside strings; undefined if it never does. One pass, no allocation.
 */
export function tooDeepAt(text: string): number | undefined {
  let depth = 0
  let inString = false
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k)
    if (inString) {
      if (c === 0x5c) k++ // a backslash: the next character is escaped
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_BODY_DEPTH) return k
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return undefined
}

/**
 * What ends the markup at `at` if it opens no element: a comment, a CDATA section, a processing
 * instruction or a declaration; undefined for a tag.
 */
function endOfOther(text: string, at: number): string | undefined {
  const next = text.charCodeAt(at + 1)
  if (next === 0x3f) return '?>'
  if (next !== 0x21) return undefined
  if (text.startsWith('<!--', at)) return '-->'
  if (text.startsWith('<![CDATA[', at)) return ']]>'
  return '>'
}

/**
 * Where an XML text opens its (MAX_BODY_DEPTH + 1)-th nested element; undefined if it never does.
 * Comments, CDATA sections, processing instructions and declarations open none, nor does an
 * element that closes itself (`<a/>`, a `>` inside a quoted attribute value not ending it). The
 * text's syntax is the validator's to judge after: this only counts.
 */
export function xmlTooDeepAt(text: string): number | undefined {
  let depth = 0
  for (let k = text.indexOf('<'); k !== -1; k = text.indexOf('<', k + 1)) {
    const close = endOfOther(text, k)
    if (close !== undefined) {
      const end = text.indexOf(close, k + 2)
      if (end === -1) return undefined
      k = end + close.length - 1
      continue
    }
    if (text.charCodeAt(k + 1) === 0x2f) {
      depth--
      continue
    }
    const end = tagEnd(text, k)
    if (end === -1) return undefined
    if (text.charCodeAt(end - 1) !== 0x2f && ++depth > MAX_BODY_DEPTH) return k
    k = end
  }
  return undefined
}

/** The `>` that ends the tag opened at `at` (one inside a quoted attribute value does not), or -1. */
export function tagEnd(text: string, at: number): number {
  let quote = 0
  for (let k = at + 1; k < text.length; k++) {
    const c = text.charCodeAt(k)
    if (quote !== 0) {
      if (c === quote) quote = 0
    } else if (c === 0x22 || c === 0x27) quote = c
    else if (c === 0x3e) return k
  }
  return -1
}
