/**
 * What the journal keeps of a request's text, and what an entry is charged against
 * `--journal-max-bytes`.
 *
 * Why: the ring bounds the count of entries, and a client decides how long its URL, headers
 * and body are. Kept whole, requests with a 1 MB query (within --max-query-length) or a 1 MB
 * body grew the heap by a megabyte each until the process died (issue 13). So each text field
 * is kept up to a cap, cut with a visible marker that says how long it was, and each entry is
 * charged at least the bytes it holds once read, from lengths the recorder has at hand (never
 * by serialising the entry), so the journal can also be bounded in bytes.
 */
import type { BodyShape, JournalViolation, Truncated } from './entry.js'

/** The request URL (path and query) is kept up to this many bytes. */
export const URL_CAP = 8 * 1024
/** Each journalled header (`accept`, `content-type`) is kept up to this many bytes. */
export const HEADER_CAP = 1024
/** A key of a body shape is kept up to this many characters. */
export const SHAPE_KEY_CAP = 256
/** A body shape shows this many levels of objects and arrays; deeper ones are `'object'` / `'array'`. */
export const SHAPE_DEPTH = 4
/** A body shape shows at most this many keys of one object... */
export const SHAPE_KEYS_PER_OBJECT = 50
/** ...and this many keys in all. */
export const SHAPE_KEYS = 200
/** Each request and answer body is kept up to this many bytes by default (--journal-body-bytes; kept-body.ts)... */
export const DEFAULT_BODY_BYTES = 4 * 1024
/** ...and at most this many: the least --journal-max-bytes, so that an entry always fits. */
export const MAX_BODY_BYTES = 1024 * 1024
/** An entry keeps at most this many violations (the first ones found)... */
export const MAX_VIOLATIONS = 100
/** ...each with a detail of at most this many characters. */
export const DETAIL_CAP = 1024

/**
 * Charges, in bytes, of what an entry holds besides its text: the entry object with its
 * dates, arrays and call key (ENTRY_BYTES), one query parameter (PARAM_BYTES), one violation
 * or partial failure found when the request was answered (ITEM_BYTES). Set above the heap
 * built entries hold, which test/journal/journal-charges.heap.test.ts measures and compares with
 * their charges: for ordinary requests, and for a kept URL full of two-character parameters.
 */
export const ENTRY_BYTES = 2048
export const PARAM_BYTES = 192
export const ITEM_BYTES = 128

/**
 * A kept text that was cut ends with this; `length` is the length it had. ASCII, so that a
 * cut URL stays a one-byte string (one non-Latin-1 character would double its size), and
 * without a comma, so that it stays whole in a comma-delimited list parameter.
 */
export function cutMarker(length: number, unit: 'bytes' | 'characters'): string {
  return `...[truncated: ${length} ${unit}]`
}

/** Matches the end of a cut text (a URL or header, in bytes). */
export const CUT_BYTES = /\.\.\.\[truncated: \d+ bytes\]$/

/**
 * `text` if it is at most `cap` long, else its first `cap` characters and the marker. The cut
 * text is a copy: V8 keeps a slice of a long string as a view of the whole, so a slice of a
 * 1 MB URL would hold the 1 MB.
 */
export function cut(text: string, cap: number, unit: 'bytes' | 'characters'): string {
  return text.length <= cap ? text : structuredClone(text.slice(0, cap) + cutMarker(text.length, unit))
}

/** Query parameters of a URL: one more than its `&` after the `?` (a few indexOf calls). */
export function paramCount(url: string): number {
  let at = url.indexOf('?')
  if (at === -1 || at === url.length - 1) return 0
  let count = 1
  while ((at = url.indexOf('&', at + 1)) !== -1) count++
  return count
}

/**
 * The charge of an entry for a request with this kept URL and headers: the entry, the URL
 * twice (as kept, and again as path, query values and violation details once read), and a
 * parameter's query entry and violation for each parameter.
 */
export function requestCharge(url: string, accept: string | undefined, contentType: string | undefined): number {
  return ENTRY_BYTES + 2 * url.length + PARAM_BYTES * paramCount(url) + (accept?.length ?? 0) + (contentType?.length ?? 0)
}

/**
 * Violations as an entry keeps them: the first MAX_VIOLATIONS, details cut at DETAIL_CAP; when
 * some were left out, `truncated.violations` says how many were found.
 */
export function keptViolations(found: JournalViolation[], truncated: Truncated | undefined): { violations: JournalViolation[]; truncated: Truncated | undefined } {
  let violations = found.length > MAX_VIOLATIONS ? found.slice(0, MAX_VIOLATIONS) : found
  if (violations.some((v) => v.detail.length > DETAIL_CAP)) violations = violations.map((v) => ({ rule: v.rule, detail: cut(v.detail, DETAIL_CAP, 'characters') }))
  return { violations, truncated: violations.length < found.length ? { ...truncated, violations: found.length } : truncated }
}

/** The charge of violations or partial failures kept when the request was answered. */
export function itemsCharge(items: ReadonlyArray<{ detail?: string; message?: string; agent?: string }>): number {
  let bytes = 0
  for (const item of items) bytes += ITEM_BYTES + (item.detail?.length ?? 0) + (item.message?.length ?? 0) + (item.agent?.length ?? 0)
  return bytes
}

/** Charge of one key of a body shape besides its characters (the property and its value). */
export const SHAPE_KEY_BYTES = 32

/** A body's shape and its charge. */
export interface MeasuredShape {
  shape: BodyShape
  bytes: number
}

/**
 * A body's shape: `{name: 'string', 'global-config': {port: 'number'}}`; arrays show their
 * first item. Bounded whatever the body: SHAPE_DEPTH levels (so a body nested 100,000 deep
 * costs five calls, not a stack overflow), SHAPE_KEYS_PER_OBJECT keys of an object,
 * SHAPE_KEYS in all, keys cut at SHAPE_KEY_CAP characters.
 */
export function measureShape(value: unknown): MeasuredShape {
  const budget = { keys: SHAPE_KEYS, bytes: 0 }
  const shape = shapeAt(value, 0, budget)
  return { shape, bytes: budget.bytes }
}

function shapeAt(value: unknown, depth: number, budget: { keys: number; bytes: number }): BodyShape {
  // Deep bodies are summarised: the journal is for reading, not for replaying.
  if (value === null) return 'null'
  if (Array.isArray(value)) {
    if (depth >= SHAPE_DEPTH) return 'array'
    return value.length === 0 ? [] : [shapeAt(value[0], depth + 1, budget)]
  }
  if (typeof value === 'object') {
    if (depth >= SHAPE_DEPTH) return 'object'
    const out: Record<string, BodyShape> = {}
    const keys = Object.keys(value)
    const shown = Math.min(keys.length, SHAPE_KEYS_PER_OBJECT, budget.keys)
    budget.keys -= shown
    for (let k = 0; k < shown; k++) {
      const key = cut(keys[k], SHAPE_KEY_CAP, 'characters')
      budget.bytes += SHAPE_KEY_BYTES + key.length
      out[key] = shapeAt((value as Record<string, unknown>)[keys[k]], depth + 1, budget)
    }
    return out
  }
  return typeof value
}
