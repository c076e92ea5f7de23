/**
 * Assertions on a manager's answers, shared by the checks. Each throws CheckFailure with a
 * sentence naming the answer, what the spec expects and what came.
 */
import { CheckFailure, type Answer, type Context } from './context.js'

export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message)
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
export const isInteger = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v)
/** The manager's date format: local time to the minute. */
export const LOCAL_MINUTE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/
/** The root of an XML answer: `<result servicename="agentmanager">`, after an optional declaration. */
export const XML_AGENTMANAGER_ROOT = /^\s*(<\?xml[^>]*\?>\s*)?<result servicename="agentmanager">/

export const q = encodeURIComponent

export function status(answer: Answer, expected: number, what: string): void {
  ensure(answer.status === expected, `${what}: expected HTTP ${expected}, got ${answer.status} ${answer.body.slice(0, 200)}`)
}

/** The JSON envelope of a successful answer, with its servicename checked. */
export function envelope(answer: Answer, servicename: string): Record<string, unknown> {
  status(answer, 200, servicename)
  ensure(isObject(answer.json), `${servicename}: the answer is not a JSON object`)
  ensure(answer.json.servicename === servicename, `${servicename}: servicename is ${JSON.stringify(answer.json.servicename)}`)
  return answer.json
}

export function messages(env: Record<string, unknown>, what: string): string[] {
  ensure(Array.isArray(env.values), `${what}: values is not an array`)
  const texts: string[] = []
  for (const item of env.values) {
    ensure(isObject(item) && typeof item.message === 'string', `${what}: a values item has no string message`)
    texts.push(item.message)
  }
  return texts
}

export interface Link {
  rel: string
  href: string
}

export function links(value: unknown, what: string): Link[] {
  ensure(Array.isArray(value), `${what}: links is not an array`)
  const all: Link[] = []
  for (const link of value) {
    ensure(isObject(link) && typeof link.rel === 'string' && typeof link.href === 'string', `${what}: a link lacks a string rel or href`)
    all.push({ rel: link.rel, href: link.href })
  }
  return all
}

/** The path of a link address, checked to carry the doubled `mvc`: `{base_url}/mvc/restservice/...`. */
export function linkPath(context: Context, href: string, what: string): string {
  let path: string
  try {
    path = decodeURIComponent(new URL(href).pathname)
  } catch {
    throw new CheckFailure(`${what}: link ${JSON.stringify(href)} is not an absolute URL`)
  }
  const prefix = `${context.basePath}/mvc/restservice/`
  ensure(path.startsWith(prefix), `${what}: link path ${path} does not start with ${prefix} (the real manager repeats the mvc segment)`)
  return path.slice(prefix.length)
}

/** The `name` query parameter of a link, or undefined when the link or its address is missing. */
export function nameInLink(link: Link | undefined): string | null | undefined {
  if (link === undefined) return undefined
  try {
    return new URL(link.href).searchParams.get('name')
  } catch {
    return undefined
  }
}

export function noLinks(env: Record<string, unknown>, what: string): void {
  ensure(env.links === undefined || (Array.isArray(env.links) && env.links.length === 0), `${what}: the answer has links, the spec shows none`)
}

const TYPES = {
  string: (v: unknown) => typeof v === 'string',
  integer: isInteger,
  number: (v: unknown) => typeof v === 'number',
  boolean: (v: unknown) => typeof v === 'boolean',
  object: isObject,
  array: Array.isArray
} satisfies Record<string, (v: unknown) => boolean>

export type FieldType = keyof typeof TYPES

/** The record, checked to have each field of `spec` with its type. */
export function fields(record: unknown, spec: Readonly<Record<string, FieldType>>, what: string): Record<string, unknown> {
  ensure(isObject(record), `${what}: not an object`)
  for (const [key, type] of Object.entries(spec)) {
    ensure(Object.hasOwn(record, key), `${what}: field "${key}" is missing`)
    ensure(TYPES[type](record[key]), `${what}: field "${key}" is ${JSON.stringify(record[key])}, not ${type === 'integer' ? 'an' : 'a'} ${type}`)
  }
  return record
}
