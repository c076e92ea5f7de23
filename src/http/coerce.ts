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
 * - in an XML body, a boolean or a number with spaces or line breaks around it is read without
 *   them, as XML Schema reads these types (`<port> 4041 </port>`); a string keeps them
 * - array: a single value becomes a list; in query strings every item is also split on commas
 *   (the spec's comma-delimited lists), so `a,b` and `x=a&x=b` both give `[a, b]`; empty items
 *   are dropped
 * - object: an empty XML element (`<global-config/>`, or one holding only spaces and line
 *   breaks) becomes `{}`
 */

import { INTEGER, NUMBER, type Schema } from '../protocol/lenient.js'

/** Where the text comes from: a query string (lists split on commas) or an XML body. */
export type TextSource = 'query' | 'xml'

export function coerce(value: unknown, schema: Schema, source: TextSource): unknown {
  switch (schema.type) {
    case 'boolean': {
      const text = scalarText(value, source)
      if (text !== undefined) {
        const lower = text.toLowerCase()
        if (lower === 'true') return true
        if (lower === 'false') return false
      }
      return value
    }
    case 'integer': {
      const text = scalarText(value, source)
      return text !== undefined && INTEGER.test(text) ? Number(text) : value
    }
    case 'number': {
      const text = scalarText(value, source)
      return text !== undefined && NUMBER.test(text) ? Number(text) : value
    }
    case 'array':
      return coerceArray(value, schema.items ?? {}, source)
    case 'object':
      return coerceObject(value, schema, source)
    default:
      return value
  }
}

/** The text a boolean, a number or an empty object is read from: an XML body's without the spaces around it. */
function scalarText(value: unknown, source: TextSource): string | undefined {
  if (typeof value !== 'string') return undefined
  return source === 'xml' ? value.trim() : value
}

function coerceArray(value: unknown, items: Schema, source: TextSource): unknown[] {
  const raw = Array.isArray(value) ? value : [value]
  const out: unknown[] = []
  for (const item of raw) {
    if (source === 'query' && typeof item === 'string') {
      for (const part of item.split(',')) {
        const trimmed = part.trim()
        if (trimmed !== '') out.push(coerce(trimmed, items, source))
      }
    } else {
      out.push(coerce(item, items, source))
    }
  }
  return out
}

function coerceObject(value: unknown, schema: Schema, source: TextSource): unknown {
  if (scalarText(value, source) === '') return {}
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const properties = schema.properties
  if (properties === undefined) return value
  const fields = value as Record<string, unknown>
  // Copy into a fresh object (never mutate the parsed input); only own keys of the schema are
  // converted, the rest is kept as received.
  const out: Record<string, unknown> = { ...fields }
  for (const key of Object.keys(properties)) {
    if (Object.hasOwn(fields, key) && fields[key] !== undefined) {
      out[key] = coerce(fields[key], properties[key], source)
    }
  }
  return out
}
