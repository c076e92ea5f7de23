/**
 * The validator compiler of every route: TypeBox's compiled checker, preceded by the text
 * coercion of query strings and the lenient conversions (src/protocol/lenient.ts), and
 * followed by the naming rule on body fields that name a new agent, template or label
 * (names.ts) and the request rules (withRules), with failures turned into catalogue errors here, so
 * the error handler never sees a raw validation error.
 */
import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { coerce } from './coerce.js'
import { convertLenient } from '../protocol/lenient.js'
import { ApiError, apiError, shown, type Where } from '../protocol/errors.js'
import { NAME_RULE, nameError, type NameKind } from './names.js'
import { xmlCarries } from './xml-writer.js'
import { suggest } from '../lib/suggest.js'

interface RawError {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
  message: string
}

interface SchemaNode {
  type?: string
  items?: SchemaNode
  properties?: Record<string, SchemaNode>
  title?: string
  [NAME_RULE]?: NameKind
  [REQUEST_RULES]?: readonly RequestRule[]
}

/**
 * A rule of a request that its schema cannot say (one field required unless another is given,
 * a value that must be the manager's CA): given the request's part as received, typed or not,
 * it returns its error or nothing, and must not throw on a part of the wrong shape. Run by the
 * validator next to the schema, so every failed rule of a request is reported together
 * (docs/protocol.md, The envelope) instead of the handler's first one after the schema's.
 */
export type RequestRule = (data: unknown) => ApiError | undefined

/** Where withRules keeps a schema's request rules (a symbol: no JSON, so not in /openapi.json). */
export const REQUEST_RULES: unique symbol = Symbol('fleetsim.requestRules')

/** The schema with request rules the validator applies after it. */
export function withRules<T extends TSchema>(schema: T, ...rules: RequestRule[]): T {
  return { ...schema, [REQUEST_RULES]: rules }
}

/** The object a rule looks into, or undefined when the part is not an object. */
export function fieldsOf(data: unknown): Record<string, unknown> | undefined {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined
}

/**
 * @param maxListItems the largest number of items a list query parameter may hold; checked
 *   here (not in the schema) so the limit is an option of the app, not of every route schema
 */
export function createValidatorCompiler(maxListItems: number): FastifySchemaCompiler<TSchema> {
  return ({ schema, httpPart, url }) => {
    const checker = Compile(schema)
    const isQuery = httpPart === 'querystring'
    const node = schema as SchemaNode
    const listParams = isQuery ? listParameters(node) : []
    const nameFields = isQuery ? [] : nameFieldsOf(node)
    // What the manager stores and shows: the REST operations' bodies (not the admin API's). The
    // name fields have their own, stricter rule (checkNames).
    const storedText = !isQuery && url.includes('/restservice/')
    const ruledNames = new Set(nameFields.map(([field]) => field))
    const rules = node[REQUEST_RULES] ?? []
    const context: Context = {
      part: isQuery ? 'querystring' : 'body',
      operation: operationOf(url),
      body: node.title ?? 'request'
    }
    // Fastify turns a throwing validator into a 500, so every failure is *returned*.
    return (value: unknown) => {
      // Then the forms a Spring MVC manager converts too (`"port": "4041"`, `yes` for true):
      // accepted in every mode; --strict refuses them before this, by rule lenient-conversion
      // (bodies) or boolean-syntax (query), and the journal names them (src/protocol/lenient.ts).
      const data = convertLenient(isQuery ? coerce(value ?? {}, node, 'query') : value, node).value
      if (listParams.length > 0) {
        const tooMany = checkListSizes(data as Record<string, unknown>, listParams, maxListItems)
        if (tooMany !== undefined) return { error: tooMany }
      }
      const badNames = nameFields.length === 0 ? [] : checkNames(data, nameFields)
      const broken = [...ruleErrors(rules, data), ...(storedText ? textErrors(data, ruledNames) : [])]
      if (checker.Check(data)) return badNames.length + broken.length === 0 ? { value: data } : { error: combined([...badNames, ...broken]) }
      let errors = [...checker.Errors(data)] as RawError[]
      if (badNames.length > 0) {
        // The naming rule's message says more than the schema's about the same field (an
        // empty name breaks both); the other fields' problems are reported after it.
        const named = new Set(nameFields.map(([field]) => `/${field}`))
        errors = errors.filter((error) => !named.has(error.instancePath))
        if (errors.length === 0) return { error: combined([...badNames, ...broken]) }
      }
      const rest = toApiError(errors, data, context)
      return { error: combined([...badNames, rest, ...rest.more, ...broken]) }
    }
  }
}

/** Top-level body fields that carry a new name, with the kind of name (schemas.ts, NewName). */
function nameFieldsOf(schema: SchemaNode): Array<[string, NameKind]> {
  const out: Array<[string, NameKind]> = []
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    const kind = property[NAME_RULE]
    if (kind !== undefined) out.push([field, kind])
  }
  return out
}

/** E_INVALID_NAME for each name field holding a string that breaks the naming rule. */
function checkNames(data: unknown, fields: Array<[string, NameKind]>): ApiError[] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return []
  const errors: ApiError[] = []
  for (const [field, kind] of fields) {
    const value = Object.hasOwn(data, field) ? (data as Record<string, unknown>)[field] : undefined
    // Anything but a string is the schema's to report (wrong type, missing field).
    const error = typeof value === 'string' ? nameError(kind, value) : undefined
    if (error !== undefined) errors.push(error)
  }
  return errors
}

/**
 * E_INVALID_VALUE for each string of a body that holds a character XML answers cannot carry
 * (xmlCarries): such an address, verbatim or description would read one way in JSON and come
 * back as U+FFFD in XML, so it is refused as names are (names.ts, whose rule is stricter and
 * reports the name fields, `skip`).
 */
function textErrors(data: unknown, skip: ReadonlySet<string>): ApiError[] {
  const errors: ApiError[] = []
  // A stack, not recursion: a body may nest 100,000 levels deep (the schema refuses it after).
  const pending: Array<[unknown, string]> = [[data, '']]
  while (pending.length > 0 && errors.length < MAX_TEXT_ERRORS) {
    const [value, path] = pending.pop() as [unknown, string]
    if (typeof value === 'string') {
      if (!xmlCarries(value)) {
        errors.push(apiError('E_INVALID_VALUE', { where: 'body field', name: path, rule: 'must hold only characters XML answers can carry (no control character but tab, line feed and carriage return, no U+FFFE or U+FFFF, no lone surrogate)', got: shown(value) }))
      }
    } else if (Array.isArray(value)) {
      for (let k = value.length - 1; k >= 0; k--) pending.push([value[k], `${path}[${k}]`])
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value).filter(([key]) => path !== '' || !skip.has(key))
      for (let k = entries.length - 1; k >= 0; k--) pending.push([entries[k][1], path === '' ? entries[k][0] : `${path}.${entries[k][0]}`])
    }
  }
  return errors
}

/** Fields reported at most for text XML cannot carry: the envelope names a few, not every item of a long list. */
const MAX_TEXT_ERRORS = 10

function ruleErrors(rules: readonly RequestRule[], data: unknown): ApiError[] {
  const errors: ApiError[] = []
  for (const rule of rules) {
    const error = rule(data)
    if (error !== undefined) errors.push(error)
  }
  return errors
}

/** Several errors as one: the first, carrying the others, for one envelope. */
function combined(errors: ApiError[]): ApiError {
  const [first, ...rest] = errors
  return rest.length === 0 ? first : new ApiError(first.code, first.message, rest)
}

function listParameters(schema: SchemaNode): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.type === 'array')
    .map(([name]) => name)
}

function checkListSizes(query: Record<string, unknown>, names: string[], limit: number): ApiError | undefined {
  for (const name of names) {
    const items = query[name]
    if (Array.isArray(items) && items.length > limit) return apiError('E_TOO_MANY_ITEMS', { name, limit })
  }
  return undefined
}

/** `/manager/mvc/restservice/agentinfo.json` → `agentinfo` */
function operationOf(url: string): string {
  const last = url.slice(url.lastIndexOf('/') + 1)
  const dot = last.indexOf('.')
  return dot === -1 ? last : last.slice(0, dot)
}

interface Context {
  part: 'querystring' | 'body'
  operation: string
  /** what the body is called in the spec's parameter table, e.g. `agent` */
  body: string
}

/** All failed rules as one error (the first) carrying the others, for one envelope. */
export function toApiError(raw: RawError[], data: unknown, context: Context): ApiError {
  const seen = new Set<string>()
  const mapped: ApiError[] = []
  for (const error of raw) {
    for (const apiErr of mapOne(error, data, context)) {
      if (seen.has(apiErr.message)) continue
      seen.add(apiErr.message)
      mapped.push(apiErr)
    }
  }
  if (mapped.length === 0) mapped.push(apiError('E_BAD_REQUEST', { detail: 'validation failed' }))
  const [first, ...rest] = mapped
  return new ApiError(first.code, first.message, rest)
}

function mapOne(error: RawError, data: unknown, context: Context): ApiError[] {
  const isQuery = context.part === 'querystring'
  const path = error.instancePath
  // Fastify validates a request without a body as null: JSON's `null` cannot be told from it here
  // (the error handler tells them apart by the text received: sentJsonNull, error-handler.ts).
  if (!isQuery && path === '' && (data === null || data === undefined)) {
    return [apiError('E_MISSING_BODY', { operation: context.operation, body: context.body })]
  }
  const where: Where = isQuery ? 'query parameter' : path === '' ? 'request body' : 'body field'
  // A query's lists come from comma-separated values: `agentstate[1]` would name a place the
  // client never wrote, so a query item is named by its parameter.
  const name = isQuery ? displayPath(path).replace(/\[\d+\]$/, '') : displayPath(path)
  const value = valueAt(data, path)
  const got = shown(value)
  switch (error.keyword) {
    case 'required': {
      const missing = (error.params.requiredProperties as string[] | undefined) ?? []
      return missing.map((property) => {
        const full = name === '' ? property : `${name}.${property}`
        return isQuery ? apiError('E_MISSING_PARAMETER', { name: full, ...nearKey(data, full) }) : apiError('E_MISSING_FIELD', { name: full })
      })
    }
    case 'type':
      return [apiError('E_WRONG_TYPE', { where, name, expected: article(String(error.params.type)), got })]
    case 'enum': {
      const allowed = (error.params.allowedValues as unknown[] | undefined) ?? []
      const sameButCase = typeof value === 'string' ? allowed.find((one) => typeof one === 'string' && one.toUpperCase() === value.toUpperCase()) : undefined
      if (sameButCase !== undefined) return [apiError('E_NOT_IN_ENUM', { where, name, allowed, got, sameButCase: sameButCase as string })]
      const near = typeof value === 'string' ? suggest(value, allowed.filter((one): one is string => typeof one === 'string')) : undefined
      return [apiError('E_NOT_IN_ENUM', { where, name, allowed, got, ...(near === undefined ? {} : { near }) })]
    }
    case 'minItems': {
      // `agentUuids=,,,` is a list once its empty items are dropped: "got a list" said nothing.
      const count = Array.isArray(value) ? value.length : 0
      const limit = Number(error.params.limit)
      const rule = `must name at least ${limit === 1 ? 'one value' : `${limit} values`}${isQuery ? ' (empty items between commas are dropped)' : ''}`
      return [apiError('E_INVALID_VALUE', { where, name, rule, got: count === 0 ? 'none' : `${count}` })]
    }
    default:
      return [apiError('E_INVALID_VALUE', { where, name, rule: error.message, got })]
  }
}

/** A name the query has that is a plausible typo of `name` (`agentUuid`, `agentuuids`), for the message. */
export function nearKey(query: unknown, name: string): { near?: string } {
  if (query === null || typeof query !== 'object') return {}
  const near = Object.keys(query).find((key) => key !== name && suggest(key, [name]) === name)
  return near === undefined ? {} : { near }
}

function article(type: string): string {
  switch (type) {
    case 'integer':
      return 'an integer'
    case 'object':
      return 'an object'
    case 'array':
      return 'a list'
    default:
      return `a ${type}`
  }
}

/** `/global-config/port` → `global-config.port`; `/agentstate/1` → `agentstate[1]`. */
function displayPath(pointer: string): string {
  if (pointer === '') return ''
  const parts = pointer.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  let out = ''
  for (const part of parts) {
    if (/^\d+$/.test(part) && out !== '') out += `[${part}]`
    else out += out === '' ? part : `.${part}`
  }
  return out
}

function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data
  let current: unknown = data
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}
