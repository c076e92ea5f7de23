/**
 * The strict-mode rules: what a request may do beyond what the server needs to answer it.
 * Each rule has a stable id, a sentence for reports, and the catalogue code it is rejected
 * with. Rules marked `strictOnly` are answered normally in lenient mode (and recorded); the
 * others describe requests the server rejects in any mode (405, 415, ...), recorded so the
 * report can name them.
 *
 * `checkRequest` is a pure function of the request's facts, so every rule is testable
 * without a server.
 */
import { suggest } from '../lib/suggest.js'
import type { ErrorCode } from '../protocol/errors.js'
import type { Conversion } from '../protocol/lenient.js'
import { preferenceOf } from '../protocol/negotiation.js'
import { OPERATIONS, OPERATION_NAMES, isOperation, splitSuffix, withSuffix } from '../protocol/operations.js'
import type { JournalViolation } from './journal.js'

export interface Rule {
  readonly id: string
  /** what the rule says, for reports */
  readonly sentence: string
  /** the catalogue code of the 400 (strict-only rules) or of the answer every mode gives */
  readonly code: ErrorCode
  readonly strictOnly: boolean
}

const rule = (id: string, code: ErrorCode, strictOnly: boolean, sentence: string): Rule => ({ id, code, strictOnly, sentence })

export const RULES: readonly Rule[] = Object.freeze([
  rule('unknown-parameter', 'E_STRICT_UNKNOWN_PARAMETER', true, 'Send only the query parameters the operation defines.'),
  rule('field-in-query', 'E_STRICT_FIELD_IN_QUERY', true, 'Body fields (agent, template, label, field objects) travel in the request body, not in the query string.'),
  rule('parameter-in-body', 'E_STRICT_PARAMETER_IN_BODY', true, 'Scalar and list parameters travel in the query string, not in the request body.'),
  rule('unexpected-body', 'E_STRICT_UNEXPECTED_BODY', true, 'Operations without a body object take no request body.'),
  rule('list-repeated', 'E_STRICT_LIST_REPEATED', true, 'List parameters are one comma-delimited value (a,b); only agentstate may be repeated.'),
  rule('list-syntax', 'E_STRICT_LIST_SYNTAX', true, 'List parameters are comma-delimited text, not JSON arrays (["a","b"]) or bracketed names (name[]).'),
  rule('empty-list-item', 'E_STRICT_EMPTY_LIST_ITEM', true, 'Comma-delimited lists have no empty items (a,,b or a trailing comma).'),
  rule('scalar-repeated', 'E_STRICT_SCALAR_REPEATED', true, 'A single-valued parameter is given once.'),
  rule('boolean-syntax', 'E_STRICT_BOOLEAN_SYNTAX', true, 'Boolean parameters are written true or false.'),
  rule('missing-accept', 'E_STRICT_MISSING_ACCEPT', true, 'Requests name their format with accept: application/json or application/xml, or with the .json/.xml suffix where the operation has one.'),
  rule('suffix-accept-conflict', 'E_STRICT_SUFFIX_ACCEPT_CONFLICT', true, 'The .json/.xml suffix replaces the accept header; an accept header naming the other format contradicts it.'),
  rule('lenient-conversion', 'E_STRICT_LENIENT_CONVERSION', true, 'Body fields have the type the operation defines: numbers as numbers ("port": 4041, not "4041"), booleans as true or false (not 1, yes or on).'),
  rule('query-encoding', 'E_STRICT_QUERY_ENCODING', true, 'The query string is percent-encoded as UTF-8: a % starts an escape of two hex digits, and a % within a value is sent as %25.'),
  rule('credentials-in-query', 'E_STRICT_CREDENTIALS_IN_QUERY', true, 'Credentials travel only in the REST_USER and REST_PASSWORD headers, never in the query string.'),
  rule('credential-headers', 'E_UNAUTHORIZED', false, 'Credentials travel in headers named REST_USER and REST_PASSWORD, with underscores: not REST-USER, X-REST-User or an Authorization header, which the manager does not read.'),
  rule('agentname-with-agentstate', 'E_EXCLUSIVE_PARAMETERS', false, 'agentinfo takes agentname or agentstate, not both.'),
  rule('missing-content-type', 'E_UNSUPPORTED_MEDIA_TYPE', false, 'A request with a body names its type with Content-Type: application/json or application/xml.'),
  rule('unknown-operation', 'E_UNKNOWN_OPERATION', false, 'Call only the operations of the interface; GET /openapi.json lists them.'),
  rule('suffix-not-supported', 'E_UNKNOWN_OPERATION', false, 'Only agentinfo, agentmanager and appinfo (and certificateinfo) take the .json/.xml suffix.'),
  rule('wrong-method', 'E_METHOD_NOT_ALLOWED', false, 'Each operation has one method (GET, POST, PUT or DELETE).')
] satisfies Rule[])

export const RULES_BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((r) => [r.id, r]))

/** Property types of a route schema: `{agentUuids: 'array', revokeCert: 'boolean'}`. */
export type SchemaProperties = Readonly<Record<string, string>>

/** What the rules look at; gathered by the plugin from the fastify request. */
export interface RequestFacts {
  method: string
  /** the spec's operation, '' when the path names none */
  operation: string
  /** true when a route of the operation answered (not a 404/405) */
  routed: boolean
  /** the status of the answer, when known (post-hoc rules: 404, 405) */
  status?: number
  /** the operation name as written in the path, with its suffix */
  pathName: string
  suffix?: 'json' | 'xml'
  /** the raw query string without `?` */
  rawQuery: string
  accept?: string
  contentType?: string
  /** the request carried body bytes */
  hasBody: boolean
  /** the parsed body, when there was one */
  body?: unknown
  queryProperties: SchemaProperties
  /** undefined: the operation takes no body */
  bodyProperties?: SchemaProperties
  /** body fields whose value only a lenient conversion gives the field's type (src/protocol/lenient.ts) */
  conversions?: readonly Conversion[]
  /** credentials sent under header names the manager does not read (misnamedCredentials, src/protocol/credential-problem.ts) */
  misnamedCredentials?: string
}

/** Names that look like credentials, as a regular expression's alternatives (query keys, body fields). */
export const CREDENTIAL_KEYS = 'rest[_-]?user|rest[_-]?password|user(?:name)?|password|passwd|pwd|token|api[_-]?key|secret'

/** Query keys (decoded) that look like credentials, with a list's brackets or without; their values are never recorded. */
export const CREDENTIAL_KEY = new RegExp(`^(?:${CREDENTIAL_KEYS})(?:\\[\\])?$`, 'i')

/** Whether a query key as written in a URL (`REST%5FPASSWORD`, `password[]`) looks like a credential once decoded. */
export function isCredentialKey(written: string): boolean {
  return CREDENTIAL_KEY.test(safeDecode(written))
}

export function parseQuery(rawQuery: string): Map<string, string[]> {
  const params = new Map<string, string[]>()
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    const values = params.get(key)
    if (values === undefined) params.set(key, [value])
    else values.push(value)
  }
  return params
}

export function checkRequest(facts: RequestFacts): JournalViolation[] {
  const found: JournalViolation[] = []
  const add = (ruleId: string, detail: string) => found.push({ rule: ruleId, detail })

  if (facts.status === 405) add('wrong-method', `${facts.operation} does not take ${facts.method}`)
  // A 404 under the REST service (outside it the path names no operation: `operation` is '').
  if (facts.status === 404 && facts.operation !== '' && !facts.routed && !isOperation(facts.pathName)) {
    const { name, suffix } = splitSuffix(facts.pathName)
    if (!isOperation(name)) {
      const nearest = suggest(name, OPERATION_NAMES)
      add('unknown-operation', `unknown operation ${facts.pathName}${nearest === undefined ? '' : `; did you mean ${withSuffix(nearest, suffix)}?`}`)
    } else if (suffix !== undefined && !OPERATIONS[name].suffix) {
      add('suffix-not-supported', `${facts.pathName} has a suffix ${name} does not take`)
    }
  }

  const params = parseQuery(facts.rawQuery)
  for (const [key, values] of params) {
    if (CREDENTIAL_KEY.test(key)) continue
    if (!facts.routed) continue
    const bracketed = key.endsWith('[]') ? key.slice(0, -2) : undefined
    const type = facts.queryProperties[bracketed ?? key]
    if (type === undefined) {
      if (facts.bodyProperties !== undefined && Object.hasOwn(facts.bodyProperties, key)) add('field-in-query', `body field "${key}" sent as a query parameter`)
      else add('unknown-parameter', `"${key}" is not a parameter of ${facts.operation}`)
      continue
    }
    if (bracketed !== undefined) {
      add('list-syntax', `"${key}" written with brackets`)
      continue
    }
    if (type === 'array') {
      if (values.length > 1 && key !== 'agentstate') add('list-repeated', `"${key}" given ${values.length} times`)
      if (values.some(writtenAsArray)) add('list-syntax', `"${key}" written as a JSON array`)
      else if (values.some((v) => v.split(',').some((item) => item.trim() === ''))) add('empty-list-item', `"${key}" has an empty item`)
    } else {
      if (values.length > 1) add('scalar-repeated', `"${key}" given ${values.length} times`)
      if (type === 'boolean' && values.some((v) => v !== 'true' && v !== 'false')) {
        add('boolean-syntax', `"${key}" is ${JSON.stringify(values.find((v) => v !== 'true' && v !== 'false'))}`)
      }
    }
  }
  const badlyEncoded = badEscape(facts.rawQuery)
  if (badlyEncoded !== undefined) add('query-encoding', badlyEncoded)
  // One finding per request, however many credentials it carries: the report counts findings.
  const credentialKeys = [...params.keys()].filter((key) => CREDENTIAL_KEY.test(key))
  if (facts.misnamedCredentials !== undefined) add('credential-headers', facts.misnamedCredentials)
  if (credentialKeys.length > 0) add('credentials-in-query', `query ${credentialKeys.length === 1 ? 'parameter' : 'parameters'} ${credentialKeys.map((key) => `"${key}"`).join(' and ')}`)
  if (facts.routed && params.has('agentname') && params.has('agentstate')) add('agentname-with-agentstate', 'both agentname and agentstate given')

  if (facts.hasBody) {
    if (facts.contentType === undefined || facts.contentType === '') add('missing-content-type', 'a body without Content-Type')
    if (facts.routed && facts.bodyProperties === undefined) {
      const keys = bodyKeys(facts.body)
      const misplaced = keys.filter((k) => Object.hasOwn(facts.queryProperties, k))
      if (misplaced.length > 0) add('parameter-in-body', `${misplaced.map((k) => `"${k}"`).join(', ')} sent in the body`)
      else add('unexpected-body', `${facts.operation} takes no body`)
    }
    if (facts.conversions !== undefined && facts.conversions.length > 0) {
      add('lenient-conversion', facts.conversions.map((c) => `"${c.path}" ${JSON.stringify(c.from)} read as ${String(c.to)}`).join(', '))
    }
  }

  if (facts.routed || facts.operation !== '') {
    const preference = facts.accept === undefined || facts.accept === '' ? undefined : preferenceOf(facts.accept)
    if (facts.suffix === undefined && preference === undefined) {
      add('missing-accept', facts.accept === undefined ? 'no accept header' : `accept ${JSON.stringify(facts.accept)} names no format`)
    }
    if (facts.suffix !== undefined && facts.routed && preference !== undefined && preference !== null && preference !== facts.suffix) {
      add('suffix-accept-conflict', `.${facts.suffix} suffix with accept ${JSON.stringify(facts.accept)}`)
    }
  }
  return found
}

function bodyKeys(body: unknown): string[] {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : []
}

/** `%` followed by anything but two hex digits. */
const BROKEN_ESCAPE = /%(?![0-9A-Fa-f]{2})/

/**
 * What is wrong with the first key or value of the query whose percent-encoding does not decode,
 * or undefined: a `%` without two hex digits after it (a `%` sent unencoded, as `50%` or `%zz`),
 * or escapes that are not UTF-8 (`%E6` alone, a Latin-1 `%E9`). The routes read such a value as it
 * came, `%` and all (the journal's `query`, read by parseQuery, shows U+FFFD for escapes that are
 * not UTF-8), which is rarely what the client meant. A credential's value is not shown.
 */
function badEscape(rawQuery: string): string | undefined {
  if (!rawQuery.includes('%')) return undefined
  for (const pair of rawQuery.split('&')) {
    const equals = pair.indexOf('=')
    const key = equals === -1 ? pair : pair.slice(0, equals)
    for (const [part, text] of [['key', key], ['value', equals === -1 ? '' : pair.slice(equals + 1)]] as const) {
      if (!text.includes('%')) continue
      try {
        decodeURIComponent(text)
        continue
      } catch {
        // below
      }
      const shownKey = JSON.stringify(safeDecode(key).slice(0, 100))
      const broken = BROKEN_ESCAPE.exec(text)
      const what = part === 'key' ? `the parameter name ${shownKey}` : `the value of ${shownKey}`
      if (isCredentialKey(key) && part === 'value') return `${what} is not percent-encoded UTF-8`
      if (broken !== null) return `${what} holds ${JSON.stringify(text.slice(broken.index, broken.index + 3))}, a "%" without two hex digits after it (send a "%" as %25)`
      return `${what} holds percent-escapes that are not UTF-8 (encode the text as UTF-8 before escaping it)`
    }
  }
  return undefined
}

/** The key as far as it decodes: its escapes decoded where they are whole, for naming it. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}

/**
 * A list parameter's value written as an array (`["a","b"]`, `[a,b]`, `[]`): bracketed whole, and
 * a JSON array of strings, or items between commas that are not each bracketed. A name may begin
 * or end with a bracket (`[lab] web-1`, `[lab]`, a list `[lab],[ops]`: the naming rule takes
 * them), and was called an array.
 */
function writtenAsArray(value: string): boolean {
  const text = value.trim()
  if (!text.startsWith('[') || !text.endsWith(']')) return false
  if (text.includes(',')) return !text.split(',').every((item) => /^\s*\[.*\]\s*$/.test(item))
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')
  } catch {
    return false
  }
}
