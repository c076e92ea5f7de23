/**
 * The OpenAPI document (served at /openapi.json and /openapi.yaml, written to docs/openapi.json
 * by `npm run openapi:write`). @fastify/swagger builds it from the route schemas; the options
 * here add what the schemas cannot say, so the document describes fleetsim as it answers:
 * - every body and answer of an operation in JSON and in XML (the `.json`/`.xml` suffix routes
 *   in their one format), with `xml` names matching src/http/xml-writer.ts: the root element
 *   `<result servicename="…">`, arrays as repeated elements named by their key, keys that are
 *   no XML name (`the service`) as `<field name="the service">`;
 * - list parameters comma-delimited (`style: form, explode: false`, the spec's form), but
 *   agentstate, repeated (`explode: true`), as the spec gives it;
 * - an operationId on every operation (the operation's name, `agentinfoJson` for a suffix
 *   route), the `restservice` or `admin` tag, 401 and 4xx answers in the error envelope, the
 *   optional REST-TENANT header; the admin routes' own query parameters and answers (describeAdmin);
 * - servers from the app path, the licence, examples of real answers (addExamples).
 */
import type { SwaggerOptions } from '@fastify/swagger'
import { isOperation } from '../protocol/operations.js'
import { ErrorEnvelope } from './schemas.js'
import { OPENAPI_EXAMPLES, type OpenApiExamples } from './openapi-examples.js'

export type { OpenApiExamples }

export const JSON_MEDIA = 'application/json'
export const XML_MEDIA = 'application/xml'
export const REST_TAG = 'restservice'
export const ADMIN_TAG = 'admin'

/** Routes that serve the document or metrics: not operations of the document. */
export const UNDOCUMENTED = { hide: true } as const

export interface OpenApiSettings {
  /** `/manager/mvc`: the operations live under `${appPath}/restservice/` */
  appPath: string
  version: string
}

type Json = Record<string, unknown>

/** Where a request for the document came to, as fastify reads it from the connection and Host. */
export interface ServedTo {
  protocol: 'http' | 'https'
  /** the Host header's host, without its port ('' when there is none) */
  hostname: string
  /** the Host header's port, if it names one */
  port: number | null
  /** the connection, whose local address and port are the server's when the request names no host (HTTP/1.0 without Host) */
  socket?: { localAddress?: string; localPort?: number } | null
}

/**
 * The document as served to a request: its server's scheme, host and port default to where the
 * request came (`http` with --http, the port of --port), so a client generated from a running
 * fleetsim calls that fleetsim. The document written to docs/ is a default server's, asked at
 * https://localhost:9443. The document itself is not changed: it is built once.
 */
/** An address as a URL's host: IPv6 in brackets. */
function hostOf(address: string | undefined): string | undefined {
  if (address === undefined || address === '') return undefined
  return address.includes(':') ? `[${address}]` : address
}

export function servedTo<D extends object>(document: D, to: ServedTo): D {
  const servers = (document as Json).servers
  if (!Array.isArray(servers) || !isObject(servers[0]) || !isObject(servers[0].variables)) return document
  const [server, ...others] = servers as Json[]
  const variables = server.variables as Record<string, Json>
  // A Host without a port names the scheme's; no Host at all names nothing, and the port the request came to is the server's.
  const port = to.port ?? (to.hostname === '' ? to.socket?.localPort : undefined) ?? (to.protocol === 'https' ? 443 : 80)
  const served: Record<string, Json> = {
    ...variables,
    scheme: { ...variables.scheme, default: to.protocol },
    host: { ...variables.host, default: to.hostname !== '' ? to.hostname : hostOf(to.socket?.localAddress) ?? variables.host.default },
    port: { ...variables.port, default: String(port) }
  }
  return { ...document, servers: [{ ...server, variables: served }, ...others] }
}
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

const VALID_XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/
/** The error envelope's schema, a fresh copy per use (annotateXml writes into it). */
const errorSchema = (): Json => JSON.parse(JSON.stringify(ErrorEnvelope)) as Json
const ANSWER = 'The answer in the envelope'
const ANY_OBJECT = { type: 'object', additionalProperties: true }

/** The @fastify/swagger options for an app serving its operations under `appPath`. */
export function openApiOptions(settings: OpenApiSettings): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'fleetsim agent manager REST service',
        description:
          'Simulated agent manager (fleetsim). Every operation needs the REST_USER and REST_PASSWORD headers, but the health check GET /__admin/health. ' +
          'Bodies and answers are JSON or XML: the Accept and Content-Type headers choose, or the `.json`/`.xml` suffix where an operation has one. ' +
          'List parameters are comma-delimited (`agentstate=ONLINE,ERROR`); the repeated form (`agentstate=ONLINE&agentstate=ERROR`) is accepted too. ' +
          'Booleans are `true` or `false`; as the manager\'s converters do, fleetsim also reads `on`/`off`, `yes`/`no` and `1`/`0` (any case), and numbers sent as text, which the journal reports and --strict refuses.',
        version: settings.version,
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' }
      },
      servers: [
        {
          url: '{scheme}://{host}:{port}',
          description: `fleetsim serve; the operations are under ${settings.appPath}/restservice/ (--app-path)`,
          variables: {
            scheme: { enum: ['https', 'http'], default: 'https', description: 'http with --http' },
            host: { default: 'localhost' },
            port: { default: '9443', description: '--port' }
          }
        }
      ],
      tags: [
        { name: REST_TAG, description: `The agent manager's REST operations, under ${settings.appPath}/restservice/` },
        { name: ADMIN_TAG, description: "fleetsim's own admin API (docs/admin.md): the virtual clock, scenarios, faults, a health check; JSON only" }
      ],
      components: {
        securitySchemes: {
          restUser: { type: 'apiKey', in: 'header', name: 'REST_USER' },
          restPassword: { type: 'apiKey', in: 'header', name: 'REST_PASSWORD' }
        }
      },
      security: [{ restUser: [], restPassword: [] }]
    },
    transform: ({ schema, url, route }) => {
      const operation = (route.config as { operation?: unknown } | undefined)?.operation
      if (typeof operation !== 'string' || !isOperation(operation) || schema === undefined) return { schema, url }
      const format = (route.config as { format?: string }).format
      const byPath = url.endsWith('/:name') ? 'ByPath' : ''
      const suffix = format === undefined ? '' : format === 'json' ? 'Json' : 'Xml'
      return { schema: { ...schema, operationId: `${operation}${byPath}${suffix}`, tags: [REST_TAG] }, url }
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject
      const document = documentObject.openapiObject as Json
      const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>
      for (const [path, item] of Object.entries(paths)) {
        for (const [method, operation] of Object.entries(item)) {
          if (!isObject(operation) || !Array.isArray(operation.tags)) continue
          if (operation.tags.includes(ADMIN_TAG)) describeAdmin(operation, method)
          else if (operation.tags.includes(REST_TAG)) describeRest(path, operation)
        }
      }
      return addExamples(document, OPENAPI_EXAMPLES)
    }
  }
}

/**
 * Sets each REST operation's 200 examples from `examples`, replacing any there: the document
 * served, and the one `npm run openapi:write` writes with fresh answers.
 */
export function addExamples<D extends Json>(document: D, examples: OpenApiExamples): D {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (!isObject(operation) || !Array.isArray(operation.tags) || !operation.tags.includes(REST_TAG)) continue
      const example = examples[String(operation.operationId).replace(/(ByPath)?(Json|Xml)?$/, '')]
      const ok = ((operation.responses ?? {}) as Record<string, Json>)['200']
      if (example === undefined || !isObject(ok?.content)) continue
      const content = ok.content as Record<string, Json>
      if (content[JSON_MEDIA] !== undefined && example.json !== undefined) content[JSON_MEDIA].example = example.json
      // An XML example is text, which validators (Redocly, Prism) check against the object
      // schema as if it were JSON and refuse: it goes in the description instead.
      if (content[XML_MEDIA] !== undefined && example.xml !== undefined) ok.description = `${ANSWER}. Example in XML:\n\n\`\`\`xml\n${example.xml}\n\`\`\``
    }
  }
  return document
}

/** List parameters the spec gives by repeating the parameter (`agentstate=ONLINE&agentstate=ERROR`). */
const REPEATED_LISTS: ReadonlySet<string> = new Set(['agentstate'])

/** Which formats an operation's path serves: the suffix fixes one, else both. */
function mediaTypes(path: string): string[] {
  if (path.endsWith('.json')) return [JSON_MEDIA]
  if (path.endsWith('.xml')) return [XML_MEDIA]
  return [JSON_MEDIA, XML_MEDIA]
}

/** The header multi-tenant managers read (manager facts); accepted and ignored (docs/protocol.md). */
const TENANT_HEADER = {
  name: 'REST-TENANT',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'The tenant the request applies to, on multi-tenant managers; accepted and ignored: fleetsim has one tenant'
}

function describeRest(path: string, operation: Json): void {
  const media = mediaTypes(path)
  operation.parameters = [...((operation.parameters ?? []) as Json[]), { ...TENANT_HEADER }]
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    if (parameter.in === 'query' && isObject(parameter.schema) && parameter.schema.type === 'array') {
      parameter.style = 'form'
      // The spec's lists are comma-delimited, but agentstate, whose states are "given by
      // repeating the parameter" (the server reads both forms of either).
      parameter.explode = REPEATED_LISTS.has(String(parameter.name))
    }
  }
  const body = operation.requestBody
  if (isObject(body) && isObject(body.content)) {
    const schema = (body.content as Record<string, Json>)[JSON_MEDIA]?.schema as Json
    const root = typeof schema.title === 'string' ? schema.title : 'body'
    annotateXml(schema, root, false)
    body.content = Object.fromEntries(media.map((type) => [type, { schema }]))
  }
  const responses = (operation.responses ?? {}) as Record<string, Json>
  responses['401'] = { description: 'REST_USER or REST_PASSWORD missing or wrong' }
  // @fastify/swagger writes the route schemas' `4xx`/`5xx` as `4XX`/`5XX`.
  responses['4XX'] = { description: 'A request error: what was wrong and how to fix it' }
  responses['5XX'] = { description: 'A server error (or an injected API fault)' }
  for (const [status, response] of Object.entries(responses)) {
    // 204 No Content has no body (deleteagent with revokeCert=true).
    if (status === '204') {
      delete response.content
      continue
    }
    const schema = status === '200' ? ((response.content as Record<string, Json> | undefined)?.[JSON_MEDIA]?.schema as Json | undefined) : errorSchema()
    if (schema === undefined) continue
    if (status === '200') response.description = ANSWER
    annotateXml(schema, 'result', true)
    response.content = Object.fromEntries(media.map((type) => [type, { schema }]))
  }
}

/**
 * An admin route's request and answers, from the `x-fleetsim-*` keys of its schema
 * (src/admin/openapi.ts, src/journal/plugin.ts), which are removed: its body; `-public`, open
 * without credentials; `-query`, query parameters it reads itself (no fastify schema checks them);
 * `-status`, 204 where it answers no content; `-html`, an HTML answer besides JSON. HEAD (the
 * health check's) answers the headers only.
 */
function describeAdmin(operation: Json, method: string): void {
  const body = operation['x-fleetsim-body']
  delete operation['x-fleetsim-body']
  const query = operation['x-fleetsim-query']
  delete operation['x-fleetsim-query']
  if (Array.isArray(query)) {
    const parameters = (operation.parameters ?? []) as Json[]
    for (const parameter of query as Json[]) parameters.push({ in: 'query', required: false, schema: { type: 'string' }, ...parameter })
    operation.parameters = parameters
  }
  const noContent = operation['x-fleetsim-status'] === 204
  delete operation['x-fleetsim-status']
  const html = operation['x-fleetsim-html'] === true
  delete operation['x-fleetsim-html']
  if (body === 'json') operation.requestBody = { required: false, content: { [JSON_MEDIA]: { schema: ANY_OBJECT } } }
  if (body === 'scenario' || body === 'fault-rule') {
    operation.requestBody = {
      required: true,
      description: body === 'scenario' ? 'the scenario (docs/scenarios.md)' : "one fault rule, written as an entry of a scenario's faults (docs/scenarios.md#faults)",
      content: Object.fromEntries(['application/yaml', 'text/yaml', JSON_MEDIA].map((type) => [type, { schema: ANY_OBJECT }]))
    }
  }
  // Open without credentials (GET /__admin/health): no security requirement, no 401.
  const open = operation['x-fleetsim-public'] === true
  delete operation['x-fleetsim-public']
  if (open) operation.security = []
  // The answer's schema where the route declares one, else any object.
  const declared = (((operation.responses ?? {}) as Record<string, Json>)['200']?.content as Record<string, Json> | undefined)?.[JSON_MEDIA]?.schema
  const errors = { [JSON_MEDIA]: { schema: errorSchema() } }
  const answer = noContent
    ? { '204': { description: 'Done; no content' } }
    : method === 'head'
      ? { '200': { description: 'The headers of the GET answer, no body' } }
      : { '200': { description: 'The answer (docs/admin.md)', content: { [JSON_MEDIA]: { schema: declared ?? ANY_OBJECT }, ...(html ? { 'text/html': { schema: { type: 'string' } } } : {}) } } }
  operation.responses = {
    ...answer,
    ...(open ? {} : { '401': { description: 'REST_USER or REST_PASSWORD missing or wrong', content: errors } }),
    '4XX': { description: 'A request error: what was wrong and how to fix it', content: errors },
    '5XX': { description: 'A server error', content: errors }
  }
}

/**
 * Adds the `xml` names of xml-writer.ts to a schema, in place: the root element's name, the
 * envelope's `servicename` attribute, arrays as repeated elements named by their key. The
 * annotations do not change what JSON validates, so one schema serves both media types.
 */
function annotateXml(schema: Json, root: string, envelope: boolean): void {
  schema.xml = { name: root }
  const properties = schema.properties
  if (!isObject(properties)) return
  for (const [key, value] of Object.entries(properties)) {
    if (!isObject(value)) continue
    if (envelope && key === 'servicename') value.xml = { attribute: true }
    else annotateProperty(key, value)
  }
}

function annotateProperty(key: string, schema: Json): void {
  if (!VALID_XML_NAME.test(key) || key.toLowerCase().startsWith('xml')) {
    schema.xml = { name: 'field' }
    const note = `in XML: <field name="${key}">`
    // Schemas may be shared between operations: note it once.
    if (typeof schema.description !== 'string') schema.description = note
    else if (!schema.description.includes(note)) schema.description = `${schema.description}; ${note}`
  }
  if (schema.type === 'array' && isObject(schema.items)) {
    // Repeated elements with no wrapper, each named by the array's key.
    schema.xml = { wrapped: false }
    schema.items.xml = { name: key }
    annotateChildren(schema.items)
  } else {
    annotateChildren(schema)
  }
}

function annotateChildren(schema: Json): void {
  // Each alternative of a union is a shape of its own (viewagentortemplate: an agent's item or a template's).
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const alternatives = schema[keyword]
    if (Array.isArray(alternatives)) for (const alternative of alternatives) if (isObject(alternative)) annotateChildren(alternative)
  }
  if (!isObject(schema.properties)) return
  for (const [key, value] of Object.entries(schema.properties)) if (isObject(value)) annotateProperty(key, value)
}
