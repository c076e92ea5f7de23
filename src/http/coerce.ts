/**
 * Schema-guided reading of text into the types a schema asks for. Query strings and XML bodies
 * carry only text, so reading `true` or `80` there is no conversion; JSON bodies are typed and
 * are not read here. What a Spring manager would also convert (`"port": "80"` in JSON, `yes`
 * for a boolean) is src/protocol/lenient.ts, which strict mode reports.
 *
 * Rules, applied only where the schema asks for the type (anything else is left alone so the
 * validator reports it with the received value):
 * - boolean: `true` / `false` (any case)
 * - integer / number: decimal text
 * - array: a single value becomes a list; in query strings every item is also split on commas
 *   (the spec's comma-delimited lists), so `a,b` and `x=a&x=b` both give `[a, b]`; empty items
 *   are dropped
 * - object: an empty XML element (`<global-config/>`) becomes `{}`
 */

import { INTEGER, NUMBER, type Schema } from '../protocol/lenient.js'

export function coerce(value: unknown, schema: Schema, splitCommas: boolean): unknown {
  switch (schema.type) {
    case 'boolean':
      if (typeof value === 'string') {
        const lower = value.toLowerCase()
        if (lower === 'true') return true
        if (lower === 'false') return false
      }
      return value
    case 'integer':
      return typeof value === 'string' && INTEGER.test(value) ? Number(value) : value
    case 'number':
      return typeof value === 'string' && NUMBER.test(value) ? Number(value) : value
    case 'array':
      return coerceArray(value, schema.items ?? {}, splitCommas)
    case 'object':
      return coerceObject(value, schema, splitCommas)
    default:
      return value
  }
}

function coerceArray(value: unknown, items: Schema, splitCommas: boolean): unknown[] {
  const raw = Array.isArray(value) ? value : [value]
  const out: unknown[] = []
  for (const item of raw) {
    if (splitCommas && typeof item === 'string') {
      for (const part of item.split(',')) {
        const trimmed = part.trim()
        if (trimmed !== '') out.push(coerce(trimmed, items, splitCommas))
      }
    } else {
      out.push(coerce(item, items, splitCommas))
    }
  }
  return out
}

function coerceObject(value: unknown, schema: Schema, splitCommas: boolean): unknown {
  if (value === '') return {}
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const properties = schema.properties
  if (properties === undefined) return value
  const source = value as Record<string, unknown>
  // Copy into a fresh object (never mutate the parsed input); only own keys of the schema are
  // converted, the rest is kept as received.
  const out: Record<string, unknown> = { ...source }
  for (const key of Object.keys(properties)) {
    if (Object.hasOwn(source, key) && source[key] !== undefined) {
      out[key] = coerce(source[key], properties[key], splitCommas)
    }
  }
  return out
}
