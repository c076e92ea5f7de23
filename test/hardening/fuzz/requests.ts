/**
 * fast-check arbitraries for whole requests to the manager facade: every operation of the
 * spec (and its suffix variants), random methods and paths, well-formed and malformed query
 * strings and list parameters, JSON and XML bodies (valid, mutated, deeply nested, huge,
 * prototype keys, DOCTYPE and entity tricks, invalid UTF-8), and odd headers.
 *
 * Requests refer to agents by names and UUIDs drawn from a pool taken from the fleet at the
 * start, so a good share of them reach the operations' logic instead of stopping at a 404.
 * A few families aimed at known attacks (hostile.ts) are mixed in: names list parameters
 * cannot address, huge URLs without credentials, and scenario bombs.
 */
import fc from 'fast-check'
import { OPERATIONS, type OperationName } from '../../../src/protocol/operations.js'
import { AGENT_STATES } from '../../../src/protocol/states.js'
import { FAMILY_WEIGHTS, hostileNameRequest, hugeUrlRequest, scenarioBombRequest } from './hostile.js'

export interface FuzzRequest {
  method: string
  /** path and query, as sent */
  url: string
  headers: Record<string, string | string[]>
  payload?: string | Buffer
  /** the operation the path names ('' for a random path), for the report */
  operation: string
  /** which generator made it: `mix` (the random mix below) or a family of hostile.ts */
  family: string
}

export interface Pool {
  /** application path, e.g. `/manager/mvc` */
  appPath: string
  user: string
  password: string
  caFingerprint: string
  names: readonly string[]
  uuids: readonly string[]
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const
const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[]
/** Operations that wait for agents to reconnect (10 virtual seconds). */
export const WAITING_OPERATIONS = new Set(['updateandreloadagent', 'assigntemplatetoagent'])

const QUERY_KEYS = [
  'agentname', 'agentstate', 'agentwithmodules', 'agentUuids', 'templateName', 'subTemplateNames', 'updateAgents',
  'forceOverrideLocalChanges', 'revokeCert', 'agentName', 'oldName', 'setForAgentsOnly', 'scheduledUpdate', 'labelNames',
  'masterTemplateName', 'subTemplateName', 'name', 'expirein'
]
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', '__proto__[polluted]', 'constructor[prototype][polluted]', 'a[b][c]', 'toString', 'hasOwnProperty']
const BAD_PERCENT = ['%', '%z', '%zz', '%C0%AF', '%FF%FE', '%00', '%E2%82', '%ED%A0%80', '%2', '+%+', '%25%']

/** Printable ASCII without control characters: what a header value may carry. */
const headerText = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength })

export function requestArbitrary(pool: Pool): fc.Arbitrary<FuzzRequest> {
  const rest = `${pool.appPath}/restservice`
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...pool.names) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'a,b', ' ', 'x'.repeat(300)) }
  )
  const uuid = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...pool.uuids) },
    { weight: 1, arbitrary: fc.constantFrom(...pool.uuids).map((u) => u.toUpperCase()) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) }
  )
  const scalar = fc.oneof(
    { weight: 3, arbitrary: name },
    { weight: 3, arbitrary: uuid },
    { weight: 2, arbitrary: fc.constantFrom(...AGENT_STATES, 'online', 'BOGUS') },
    { weight: 2, arbitrary: fc.constantFrom('true', 'false', '1', '0', 'yes', '', 'TRUE', 'null') },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 3000 }).map((n) => 'x'.repeat(n)) }
  )
  const list = fc.oneof(
    { weight: 12, arbitrary: fc.array(scalar, { minLength: 1, maxLength: 5 }).map((items) => items.join(',')) },
    { weight: 1, arbitrary: fc.constantFrom(',', ',,,', 'a,,b', ',a', 'a,') },
    // More items than the fuzz app's list limit (1000), short enough for its query limit.
    { weight: 1, arbitrary: fc.integer({ min: 900, max: 2500 }).map((n) => new Array(n).fill('a').join(',')) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...pool.uuids), { minLength: 2, maxLength: 20 }).map((items) => items.join(',')) }
  )
  const encodedPair = fc
    .tuple(
      fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) }),
      fc.oneof(scalar, list),
      fc.nat(9),
      fc.constantFrom(...BAD_PERCENT)
    )
    .map(([key, value, mode, bad]) => {
      if (mode === 0) return `${encodeURIComponent(key)}=${encodeURIComponent(value)}${bad}`
      if (mode === 1) return encodeURIComponent(key)
      if (mode === 2) return `${encodeURIComponent(key)}=${encodeURI(value).replace(/[#&]/g, '')}`
      return `${encodeURIComponent(key)}=${encodeURIComponent(value)}`
    })
  const query = fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 24, arbitrary: fc.array(encodedPair, { minLength: 1, maxLength: 5 }).map((pairs) => `?${pairs.join('&')}`) },
    { weight: 2, arbitrary: fc.constantFrom('?', '??', '?&&&', '?=', '?a==b', '?%', '?;', `?${'k=v&'.repeat(3000)}`) },
    // Past the fuzz app's query limit (8 KiB): 414.
    { weight: 1, arbitrary: fc.integer({ min: 8200, max: 12000 }).map((n) => `?agentname=${'n'.repeat(n)}`) }
  )

  const path = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constantFrom(...OPERATION_NAMES).chain((operation) => {
        const variants = OPERATIONS[operation].suffix ? ['', '.json', '.xml'] : ['', '.json']
        return fc.constantFrom(...variants).map((suffix) => ({ operation, path: `${rest}/${operation}${suffix}` }))
      })
    },
    { weight: 1, arbitrary: name.map((n) => ({ operation: 'viewagentortemplate', path: `${rest}/viewagentortemplate/${encodeURIComponent(n)}` })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => ({ operation: '', path: `${rest}/${encodeURIComponent(s)}` })) },
    { weight: 1, arbitrary: fc.constantFrom(`${rest}/agentinfo/extra`, `${rest}//agentinfo`, `${rest}/%`, `${rest}/%zz`, '/', '/manager', `${rest}/`, `${rest}/AGENTINFO`, `${rest}/agentinfo.txt`).map((p) => ({ operation: '', path: p })) }
  )

  type Headers = Record<string, string | string[]>
  const auth: fc.Arbitrary<Headers> = fc.oneof(
    { weight: 40, arbitrary: fc.constant({ REST_USER: pool.user, REST_PASSWORD: pool.password }) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant({ REST_USER: pool.user }) },
    { weight: 1, arbitrary: headerText(20).map((p) => ({ REST_USER: pool.user, REST_PASSWORD: p })) },
    { weight: 1, arbitrary: fc.constant({ REST_USER: pool.user, REST_PASSWORD: 'p'.repeat(20_000) }) },
    { weight: 1, arbitrary: fc.constant<Headers>({ REST_USER: [pool.user, pool.user], REST_PASSWORD: [pool.password, 'other'] }) },
    { weight: 1, arbitrary: fc.constant({ rest_user: pool.user, 'REST-PASSWORD': pool.password }) }
  )
  const accept = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/xml') },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('*/*', 'text/html', 'application/json;q=0', 'application/xml;q=0.1, application/json;q=0.9', 'application/json;q=abc', 'text/xml', 'application/problem+json', ';;;', ',', '')
    },
    { weight: 1, arbitrary: headerText(40) }
  )

  const wellFormed = wellFormedQuery(pool, uuid, name)
  const body = bodyArbitrary(pool)
  const mix = fc
    .record({
      target: path.chain((target) =>
        fc.oneof({ weight: 1, arbitrary: query }, { weight: 1, arbitrary: wellFormed(target.operation) }).map((q) => ({ ...target, query: q }))
      ),
      methodPick: fc.nat(9),
      otherMethod: fc.constantFrom(...METHODS),
      auth,
      accept,
      body,
      // Mostly the body's own type; one request in eight gets another.
      contentTypeOverride: fc.oneof(
        { weight: 7, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.oneof(
            fc.constantFrom('text/plain', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/vnd.x+json', 'application/xml; charset=utf-16', 'application/json', 'application/xml', ''),
            headerText(30)
          )
        }
      )
    })
    .map(({ target, methodPick, otherMethod, auth, accept, body, contentTypeOverride }) => {
      const defined = target.operation === '' ? undefined : OPERATIONS[target.operation as OperationName]
      const method = defined !== undefined && methodPick < 8 ? defined.method : otherMethod
      const headers: Record<string, string | string[]> = { ...auth }
      if (accept !== undefined) headers.accept = accept
      const sendsBody = body !== undefined && method !== 'GET' && method !== 'HEAD'
      const contentType = contentTypeOverride ?? (sendsBody ? body.type : undefined)
      if (contentType !== undefined && contentType !== null) headers['content-type'] = contentType
      return {
        method,
        url: `${target.path}${target.query}`,
        headers,
        operation: target.operation,
        family: 'mix',
        ...(sendsBody ? { payload: body.payload } : {})
      }
    })
  return fc.oneof(
    { weight: FAMILY_WEIGHTS.mix, arbitrary: mix },
    { weight: FAMILY_WEIGHTS['bad-name'], arbitrary: hostileNameRequest(pool) },
    { weight: FAMILY_WEIGHTS['huge-url'], arbitrary: hugeUrlRequest(pool) },
    { weight: FAMILY_WEIGHTS['scenario-bomb'], arbitrary: scenarioBombRequest(pool) }
  )
}

/** Names of labels and templates requests create and use, so later requests find them. */
const LABELS = ['l1', 'l2', 'l3']
const TEMPLATES = ['t1', 't2', 's1', 's2']

/** The query an operation expects, with values from the pool: these reach the operation's logic. */
function wellFormedQuery(pool: Pool, uuid: fc.Arbitrary<string>, name: fc.Arbitrary<string>): (operation: string) => fc.Arbitrary<string> {
  const uuids = fc.array(uuid, { minLength: 1, maxLength: 3 }).map((items) => items.map(encodeURIComponent).join(','))
  const bool = fc.constantFrom('true', 'false')
  const q = (...parts: Array<fc.Arbitrary<string>>) => fc.tuple(...parts).map((items) => `?${items.filter((item) => item !== '').join('&')}`)
  const optional = (part: fc.Arbitrary<string>) => fc.oneof(fc.constant(''), part)
  const label = fc.constantFrom(...LABELS)
  const template = fc.constantFrom(...TEMPLATES)
  return (operation) => {
    switch (operation) {
      case 'agentinfo':
        return fc.oneof(
          q(fc.array(name, { minLength: 1, maxLength: 3 }).map((n) => `agentname=${n.map(encodeURIComponent).join(',')}`), optional(bool.map((b) => `agentwithmodules=${b}`))),
          q(fc.constantFrom(...AGENT_STATES).map((state) => `agentstate=${state}`)),
          fc.constant('?agentwithmodules=true')
        )
      case 'assigntemplatetoagent':
        return q(uuids.map((u) => `agentUuids=${u}`), optional(template.map((t) => `templateName=${t}`)), optional(template.map((t) => `subTemplateNames=${t}`)), optional(bool.map((b) => `updateAgents=${b}`)))
      case 'updateandreloadagent':
        return q(uuids.map((u) => `agentUuids=${u}`))
      case 'deleteagent':
        return q(uuids.map((u) => `agentUuids=${u}`), bool.map((b) => `revokeCert=${b}`))
      case 'modifyagent':
        return q(name.map((n) => `agentName=${encodeURIComponent(n)}`))
      case 'startagent':
      case 'stopagent':
        return q(uuids.map((u) => `agentUuids=${u}`))
      case 'setcustomlabel':
        return q(optional(uuids.map((u) => `agentUuids=${u}`)), optional(label.map((l) => `oldName=${l}`)))
      case 'removecustomlabel':
        return q(fc.array(label, { minLength: 1, maxLength: 2 }).map((l) => `labelNames=${l.join(',')}`), optional(uuids.map((u) => `agentUuids=${u}`)))
      case 'modifymastertemplate':
        return template.map((t) => `?masterTemplateName=${t}`)
      case 'modifysubtemplate':
        return template.map((t) => `?subTemplateName=${t}`)
      case 'viewagentortemplate':
        return fc.oneof(name, template).map((n) => `?name=${encodeURIComponent(n)}`)
      case 'certificateinfo':
        return fc.constantFrom('', '?expirein=30', '?expirein=0,365')
      default:
        return fc.constant(pool.names.length > 0 ? '' : '?')
    }
  }
}

interface Body {
  type: string
  payload: string | Buffer
}

function bodyArbitrary(pool: Pool): fc.Arbitrary<Body | undefined> {
  const agent = fc.record({
    name: fc.oneof(fc.constantFrom(...pool.names), fc.string({ minLength: 1, maxLength: 16 })),
    'global-config': fc.record(
      {
        address: fc.oneof(fc.ipV4(), fc.ipV6(), fc.domain()),
        port: fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.integer()),
        'ca-fingerprint': fc.oneof({ weight: 4, arbitrary: fc.constant(pool.caFingerprint) }, { weight: 1, arbitrary: fc.string() }),
        'is-log-to-file': fc.boolean(),
        'log-level': fc.constantFrom('DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL', 'LOUD'),
        mode: fc.constantFrom('Connect', 'Listen', 'Unmanaged', 'Sideways'),
        verbatim: fc.string({ maxLength: 40 })
      },
      { requiredKeys: ['address', 'port', 'ca-fingerprint'] }
    )
  })
  const template = fc.record({
    name: fc.oneof(fc.constantFrom(...TEMPLATES), fc.string({ minLength: 1, maxLength: 12 })),
    description: fc.string({ maxLength: 20 }),
    'global-config': fc.record({ address: fc.ipV4(), port: fc.integer({ min: 1, max: 65535 }), 'ca-fingerprint': fc.constant(pool.caFingerprint), verbatim: fc.string({ maxLength: 20 }) })
  })
  const label = fc.record({ name: fc.oneof(fc.constantFrom(...LABELS), fc.string({ minLength: 1, maxLength: 8 })), value: fc.string({ maxLength: 8 }) })
  const field = fc.record({
    name: fc.string({ minLength: 1, maxLength: 8 }),
    type: fc.constantFrom('STRING', 'INTEGER', 'NOPE'),
    fieldDescription: fc.record({ description: fc.string({ maxLength: 10 }) }),
    persist: fc.boolean(),
    lookup: fc.boolean()
  })
  const wellShaped: fc.Arbitrary<Record<string, unknown>> = fc.oneof(agent, template, label, field)
  // A well-shaped body with one value replaced by anything JSON can hold.
  const mutated = fc.tuple(wellShaped, fc.string({ maxLength: 16 }), fc.jsonValue({ maxDepth: 3 })).map(([object, key, value]) => {
    const keys = Object.keys(object)
    const target = keys.length > 0 && key.length % 2 === 0 ? keys[key.length % keys.length] : key
    return { ...object, [target]: value }
  })

  const json = (value: unknown): Body => ({ type: 'application/json', payload: JSON.stringify(value) })
  const xml = (text: string): Body => ({ type: 'application/xml', payload: text })

  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 6, arbitrary: wellShaped.map(json) },
    { weight: 3, arbitrary: mutated.map(json) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(json) },
    { weight: 3, arbitrary: wellShaped.map((value) => xml(toXml('agent', value))) },
    { weight: 2, arbitrary: mutated.map((value) => xml(toXml('body', value))) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_JSON).map((payload) => ({ type: 'application/json', payload })) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_XML).map(xml) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 200_000 }).map((depth) => deepJson(depth)) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((depth) => xml(`${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`)) },
    // Huge strings: some within the fuzz app's 64 KiB body limit, some past it (413).
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 100_000 }).map((size) => json({ name: 'x'.repeat(size), value: 'v' })) },
    { weight: 1, arbitrary: fc.tuple(wellShaped, fc.nat()).map(([value, cut]) => truncate(JSON.stringify(value), cut)) },
    { weight: 2, arbitrary: fc.tuple(wellShaped, fc.uint8Array({ minLength: 1, maxLength: 6 }), fc.nat(), fc.boolean()).map(([value, bytes, at, asXml]) => invalidUtf8(value, bytes, at, asXml)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((payload) => ({ type: 'application/json', payload })) }
  )
}

const HOSTILE_JSON = [
  '{"__proto__":{"polluted":"yes"},"name":"p1","value":"v"}',
  '{"constructor":{"prototype":{"polluted":"yes"}},"name":"p2","value":"v"}',
  '{"name":"p3","global-config":{"__proto__":{"polluted":"yes"},"address":"a","port":1,"ca-fingerprint":"x"}}',
  '{"name":{"toString":"x"},"value":[]}',
  '{"name":"dup","name":"dup2","value":"v"}',
  '{"prototype":{"polluted":"yes"},"name":"p4","value":"v"}',
  '[]', 'null', 'true', '0', '"string"', '{}', '{"name":null}', '{"name":""}', '{"name":1e400}', '{"name":"\\u0000"}',
  '{"name":"\\ud800"}', '\uFEFF{"name":"bom","value":"v"}', '{', '{"a":', '{"a":1,}', "{'a':1}", 'NaN', '{"port":-0}'
]

const HOSTILE_XML = [
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><agent><name>&lol2;</name></agent>',
  '<!DOCTYPE agent SYSTEM "file:///etc/passwd"><agent><name>x</name></agent>',
  '<?xml version="1.0"?><!doctype x [<!ENTITY xxe SYSTEM "http://127.0.0.1:1/">]><label><name>&xxe;</name><value>v</value></label>',
  '<agent><__proto__><polluted>yes</polluted></__proto__><name>p5</name></agent>',
  '<agent><constructor><prototype><polluted>yes</polluted></prototype></constructor><name>p6</name></agent>',
  '<label><field name="__proto__"><polluted>yes</polluted></field><name>p7</name><value>v</value></label>',
  '<label><name><![CDATA[<cdata & stuff>]]></name><value>v</value></label>',
  '<label><name>&#0;</name><value>&#xFFFFFFFF;</value></label>',
  '<label><name>&#x110000;</name><value>&unknown;</value></label>',
  '<label><name>a</name><name>b</name><value>v</value></label>',
  '<label><?pi data?><name>pi</name><value>v</value></label>',
  '<label><name>a</name>', '<a></b>', '<', '<a', '<?xml version="1.0"?>', '<a/><b/>', 'just text', '<label name="attr"/>',
  '<agent xmlns:x="urn:x"><x:name>ns</x:name></agent>',
  '<agent><global-config><port>not-a-port</port><address/><ca-fingerprint/></global-config></agent>'
]

function deepJson(depth: number): Body {
  const asObject = depth % 2 === 0
  const payload = asObject ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`
  return { type: 'application/json', payload }
}

function truncate(text: string, cut: number): Body {
  return { type: 'application/json', payload: text.slice(0, Math.max(1, cut % Math.max(1, text.length))) }
}

function invalidUtf8(value: Record<string, unknown>, bytes: Uint8Array, at: number, asXml: boolean): Body {
  const text = Buffer.from(asXml ? toXml('agent', value) : JSON.stringify(value))
  // 0x80-0xFF bytes in isolation are never valid UTF-8; force at least one of them.
  const bad = Buffer.from([...bytes].map((b, k) => (k === 0 ? 0x80 | b : b)))
  const where = at % (text.length + 1)
  return { type: asXml ? 'application/xml' : 'application/json', payload: Buffer.concat([text.subarray(0, where), bad, text.subarray(where)]) }
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** A plain object as the XML the facade reads (keys that are not XML names become `<field name>`). */
export function toXml(root: string, value: unknown): string {
  const element = (key: string, item: unknown): string => {
    const valid = /^[A-Za-z_][\w.-]*$/.test(key)
    const open = valid ? `<${key}>` : `<field name="${escapeXml(key).replace(/"/g, '&quot;')}">`
    const close = valid ? `</${key}>` : '</field>'
    if (Array.isArray(item)) return item.map((entry) => element(key, entry)).join('')
    if (item !== null && typeof item === 'object') return `${open}${Object.entries(item).map(([k, v]) => element(k, v)).join('')}${close}`
    return `${open}${escapeXml(String(item ?? ''))}${close}`
  }
  return `<?xml version="1.0" encoding="UTF-8"?>${element(root, value)}`
}
