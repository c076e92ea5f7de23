/**
 * Values as JSON text, written the way JSON.stringify and fast-json-stringify write them, for
 * the answers written straight to text (item-writer.ts, item-fragment.ts). xml-writer.ts is the
 * XML side.
 */
/** What JSON.stringify escapes in a string: `"`, `\`, control characters, lone surrogates (here any surrogate). */
// eslint-disable-next-line no-control-regex -- the control characters JSON escapes must be matched
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * JSON text of a string, as JSON.stringify (and fast-json-stringify) write it: quoted as it is
 * when nothing in it needs escaping, which a test costs about half of what JSON.stringify does.
 */
export function str(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : '"' + value + '"'
}

/**
 * JSON text of a string made only of characters JSON never escapes: a state name, a date
 * (formatLocalMinute) or a number's digits. test/http/item-writer.test.ts holds every such
 * field against the generic path, over any state, date and load.
 */
export function plain(value: string): string {
  return '"' + value + '"'
}

/** An integer field as fast-json-stringify writes one (a fraction is cut off). */
export function int(n: number): string {
  return Number.isInteger(n) ? '' + n : '' + Math.trunc(n)
}

/** A number field: non-finite numbers are null in JSON. */
export function num(n: number): string {
  return Number.isFinite(n) ? '' + n : 'null'
}
