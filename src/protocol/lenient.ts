/**
 * Lenient scalar conversion: the values a Spring MVC manager's converters turn into the type a
 * field asks for although the client sent another type. fleetsim accepts them in every mode
 * (the validator converts, src/http/validation.ts), and the strict rule `lenient-conversion`
 * (src/journal/rules.ts) names the fields so converted, so a client can be told it relies on
 * a leniency.
 *
 * - integer / number fields: decimal text (`"port": "4041"`);
 * - boolean fields: the texts of Spring's StringToBooleanConverter, any case (`true`, `on`,
 *   `yes`, `1` / `false`, `off`, `no`, `0`), and the JSON numbers 1 and 0.
 *
 * What the reading of text itself gives (query strings and XML bodies carry only text:
 * `true`/`false` and decimal numbers, src/http/coerce.ts) happens before and is no conversion
 * here: the walk sees only values that are still of another type than the field's.
 */

/** The part of a JSON schema the conversions read. */
export interface Schema {
  type?: string
  items?: Schema
  properties?: Record<string, Schema>
}

/** Decimal text of an integer and of a number: what text-to-number conversion takes. */
export const INTEGER = /^[-+]?\d+$/
export const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/
const BOOLEAN_TEXT: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['on', true],
  ['yes', true],
  ['1', true],
  ['false', false],
  ['off', false],
  ['no', false],
  ['0', false]
])

/** One converted value: where (`global-config.port`), what was sent and what it became. */
export interface Conversion {
  path: string
  from: string | number
  to: number | boolean
}

/** The value converted to the scalar type, or undefined when it is not a lenient form of it. */
function convertScalar(value: unknown, type: string | undefined): number | boolean | undefined {
  switch (type) {
    case 'integer':
      return typeof value === 'string' && INTEGER.test(value) ? Number(value) : undefined
    case 'number':
      return typeof value === 'string' && NUMBER.test(value) ? Number(value) : undefined
    case 'boolean':
      if (typeof value === 'string') return BOOLEAN_TEXT.get(value.toLowerCase())
      return value === 1 ? true : value === 0 ? false : undefined
    default:
      return undefined
  }
}

/**
 * `value` with every lenient form converted where `schema` asks for a number or a boolean, and
 * the conversions made. Never mutates `value`; returns it as it is when nothing converts.
 */
export function convertLenient(value: unknown, schema: Schema): { value: unknown; conversions: Conversion[] } {
  const conversions: Conversion[] = []
  return { value: walk(value, schema, '', conversions), conversions }
}

function walk(value: unknown, schema: Schema, path: string, out: Conversion[]): unknown {
  if (schema.type === 'object' && schema.properties !== undefined && isRecord(value)) {
    let copy: Record<string, unknown> | undefined
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!Object.hasOwn(value, key)) continue
      const converted = walk(value[key], property, path === '' ? key : `${path}.${key}`, out)
      if (converted !== value[key]) {
        copy ??= { ...value }
        copy[key] = converted
      }
    }
    return copy ?? value
  }
  if (schema.type === 'array' && schema.items !== undefined && Array.isArray(value)) {
    const items = schema.items
    let changed = false
    const converted = value.map((item, k) => {
      const next = walk(item, items, `${path}[${k}]`, out)
      if (next !== item) changed = true
      return next
    })
    return changed ? converted : value
  }
  const converted = convertScalar(value, schema.type)
  if (converted === undefined) return value
  out.push({ path, from: value as string | number, to: converted })
  return converted
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
