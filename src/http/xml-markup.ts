/**
 * The markup of an XML text in order, as XML reads it: comments, CDATA sections, processing
 * instructions and declarations are read to their first closer (whatever they hold, `<` and
 * quotes included), an opening tag to its `>` outside quoted attribute values, and a closing tag
 * to its first `>` (it holds no values). What the body's text goes through before it is parsed
 * (how deep elements nest, CDATA sections made text, PIs dropped, markup a body may not hold:
 * xml-reader.ts) walks it this way, so that what one piece of markup holds is never taken for
 * markup of its own: a `<a>` in a comment opens no element. One pass, linear in the text.
 */

export type MarkupKind = 'comment' | 'cdata' | 'pi' | 'doctype' | 'declaration' | 'close' | 'empty' | 'open'

/**
 * Calls `visit` with each piece of markup's kind, where it starts (its `<`) and where it ends
 * (the index after its last character), in order, until `visit` returns true or the text ends.
 * Markup never closed ends the walk: the text is malformed, which the validator says after.
 * Returns where that markup starts, or undefined when the walk was not ended so.
 */
export function eachMarkup(text: string, visit: (kind: MarkupKind, start: number, end: number) => boolean | void): number | undefined {
  for (let k = text.indexOf('<'); k !== -1; ) {
    const next = text.charCodeAt(k + 1)
    let kind: MarkupKind
    let end: number
    if (next === 0x3f || next === 0x21) {
      // Its closer is looked for past its opener: in `<!-->` the comment's `-->` is not yet its end.
      let opener = 2
      let closer = '>'
      if (next === 0x3f) {
        kind = 'pi'
        closer = '?>'
      } else if (text.startsWith('<!--', k)) {
        kind = 'comment'
        opener = 4
        closer = '-->'
      } else if (text.startsWith('<![CDATA[', k)) {
        kind = 'cdata'
        opener = 9
        closer = ']]>'
      } else kind = text.slice(k + 2, k + 9).toUpperCase() === 'DOCTYPE' ? 'doctype' : 'declaration'
      const found = text.indexOf(closer, k + opener)
      if (found === -1) return k
      end = found + closer.length
    } else {
      // A closing tag ends at its first `>`, as the parser ends it (it holds no quoted values);
      // one holding more than its name is malformed (xml-reader.ts refuses it), and the validator
      // took `</q a='…'/>` as an element that closes itself, reading past it where the parser did not.
      const close = next === 0x2f ? text.indexOf('>', k + 2) : tagEnd(text, k)
      if (close === -1) return k
      kind = next === 0x2f ? 'close' : text.charCodeAt(close - 1) === 0x2f ? 'empty' : 'open'
      end = close + 1
    }
    if (visit(kind, k, end) === true) return undefined
    k = text.indexOf('<', end)
  }
  return undefined
}

/** The `>` that ends the tag opened at `at` (one inside a quoted attribute value does not), or -1. */
function tagEnd(text: string, at: number): number {
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
