/**
 * Text from a scenario (names, descriptions, paths) put into SVG or HTML. Everything that
 * could open a tag, an entity or an attribute becomes a numeric character reference, which
 * both languages read back as the same character.
 */
export function escapeMarkup(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * JSON to put inside a <script> element: `<` is written as \u003c so no `</script>` or
 * `<!--` in the data can end or change the element, and U+2028/U+2029 are escaped for old
 * parsers. JSON.parse and JavaScript read the same value back.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** A script file inlined into a <script> element: `</script` in it is written `<\/script`. */
export function inlineScript(source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1')
}
