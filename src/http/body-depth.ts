/**
 * How deep a request body may nest, checked on its text before it is parsed: no body of the
 * interface nests more than a few levels (a scenario uploaded as JSON, about ten), while a body of
 * a million `[` or `<a>` held every other request while it was parsed far longer than a body of
 * its size nested a few levels. Both formats get E_BODY_TOO_DEEP at the same depth.
 */
import { eachMarkup } from './xml-markup.js'

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
 * Where an XML text opens its (MAX_BODY_DEPTH + 1)-th nested element; undefined if it never does.
 * Comments, CDATA sections, processing instructions and declarations open none, nor does an
 * element that closes itself (xml-markup.ts reads the markup in order). The text's syntax is the
 * validator's to judge after: this only counts.
 */
export function xmlTooDeepAt(text: string): number | undefined {
  let depth = 0
  let at: number | undefined
  eachMarkup(text, (kind, start) => {
    if (kind === 'close') depth--
    else if (kind === 'open' && ++depth > MAX_BODY_DEPTH) {
      at = start
      return true
    }
  })
  return at
}
