import { describe, expect, it } from 'vitest'
import { misnamedCredentials } from '../../src/protocol/credential-problem.js'
import { ERRORS } from '../../src/protocol/errors.js'
import { RULES, checkRequest, type RequestFacts } from '../../src/journal/rules.js'

const base: RequestFacts = {
  method: 'POST',
  operation: 'startagent',
  routed: true,
  pathName: 'startagent',
  rawQuery: 'agentUuids=a,b',
  accept: 'application/json',
  hasBody: false,
  queryProperties: { agentUuids: 'array' }
}
const agentinfo: RequestFacts = {
  ...base,
  method: 'GET',
  operation: 'agentinfo',
  pathName: 'agentinfo',
  rawQuery: 'agentstate=ONLINE',
  queryProperties: { agentname: 'array', agentstate: 'array', agentwithmodules: 'boolean' }
}
const addagent: RequestFacts = { ...base, operation: 'addagent', pathName: 'addagent', rawQuery: '', queryProperties: {}, bodyProperties: { name: 'string', 'global-config': 'object' } }
const rules = (facts: Partial<RequestFacts>, from: RequestFacts = base) => checkRequest({ ...from, ...facts }).map((v) => v.rule)

describe('the strict-mode rules', () => {
  it('has a catalogue code for every rule, naming the rule in the strict message', () => {
    for (const rule of RULES) {
      expect(ERRORS[rule.code], rule.id).toBeDefined()
      if (rule.strictOnly) expect(ERRORS[rule.code].message({ detail: 'x' } as never), rule.id).toContain(`rule ${rule.id}:`)
    }
  })

  it('finds nothing wrong with a well-formed request', () => {
    expect(rules({})).toEqual([])
    expect(rules({}, agentinfo)).toEqual([])
  })

  it('unknown-parameter: a parameter the operation does not define', () => {
    expect(rules({ rawQuery: 'agentUuids=a&force=true' })).toEqual(['unknown-parameter'])
  })

  it('field-in-query: a body field sent in the query string', () => {
    expect(rules({ rawQuery: 'name=web-01', hasBody: true, contentType: 'application/json', body: {} }, addagent)).toEqual(['field-in-query'])
  })

  it('lenient-conversion: a body field only a lenient conversion gives its type', () => {
    const conversions = [{ path: 'global-config.port', from: '4041', to: 4041 }]
    expect(rules({ hasBody: true, contentType: 'application/json', body: {}, conversions }, addagent)).toEqual(['lenient-conversion'])
    expect(checkRequest({ ...addagent, hasBody: true, contentType: 'application/json', body: {}, conversions })[0].detail).toBe('"global-config.port" "4041" read as 4041')
  })

  it('parameter-in-body: a query parameter sent in the body', () => {
    expect(rules({ rawQuery: '', hasBody: true, contentType: 'application/json', body: { agentUuids: ['a'] } })).toEqual(['parameter-in-body'])
  })

  it('unexpected-body: a body on an operation without one', () => {
    expect(rules({ hasBody: true, contentType: 'application/json', body: { x: 1 } })).toEqual(['unexpected-body'])
  })

  it('list-repeated: a list parameter repeated, except agentstate', () => {
    expect(rules({ rawQuery: 'agentUuids=a&agentUuids=b' })).toEqual(['list-repeated'])
    expect(rules({ rawQuery: 'agentstate=ONLINE&agentstate=ERROR' }, agentinfo)).toEqual([])
  })

  it('list-syntax: a JSON array or a bracketed name', () => {
    expect(rules({ rawQuery: 'agentUuids=["a","b"]' })).toEqual(['list-syntax'])
    expect(rules({ rawQuery: 'agentUuids[]=a' })).toEqual(['list-syntax'])
    expect(rules({ rawQuery: 'agentUuids=[a,b]' })).toEqual(['list-syntax'])
    expect(rules({ rawQuery: 'agentUuids=["a"]' })).toEqual(['list-syntax'])
  })

  it('list-syntax: not a name that begins with a bracket, which the naming rule takes', () => {
    expect(rules({ rawQuery: 'agentname=%5Blab%5D%20web-1' }, agentinfo)).toEqual([])
    expect(rules({ rawQuery: 'agentname=%5Blab%5D' }, agentinfo)).toEqual([])
    expect(rules({ rawQuery: 'agentUuids=%5Bx%5D' })).toEqual([])
    expect(rules({ rawQuery: 'agentUuids=%5Bx%5D,%5By%5D' })).toEqual([])
    expect(rules({ rawQuery: 'agentUuids=%5B1%5D' })).toEqual([])
  })

  it('empty-list-item: an empty item in a comma list', () => {
    expect(rules({ rawQuery: 'agentUuids=a,,b' })).toEqual(['empty-list-item'])
    expect(rules({ rawQuery: 'agentUuids=a,' })).toEqual(['empty-list-item'])
  })

  it('scalar-repeated: a single-valued parameter given twice', () => {
    expect(rules({ rawQuery: 'agentwithmodules=true&agentwithmodules=false' }, agentinfo)).toEqual(['scalar-repeated'])
  })

  it('boolean-syntax: a boolean other than true or false', () => {
    expect(rules({ rawQuery: 'agentwithmodules=1' }, agentinfo)).toEqual(['boolean-syntax'])
    expect(rules({ rawQuery: 'agentwithmodules=TRUE' }, agentinfo)).toEqual(['boolean-syntax'])
  })

  it('missing-accept: no accept header, or only wildcards, and no suffix', () => {
    expect(rules({ accept: undefined })).toEqual(['missing-accept'])
    expect(rules({ accept: '*/*' })).toEqual(['missing-accept'])
    expect(rules({ accept: undefined, suffix: 'json', pathName: 'agentinfo.json' }, agentinfo)).toEqual([])
  })

  it('suffix-accept-conflict: a suffix and an accept header naming the other format', () => {
    expect(rules({ accept: 'application/xml', suffix: 'json', pathName: 'agentinfo.json' }, agentinfo)).toEqual(['suffix-accept-conflict'])
  })

  it('query-encoding: a % without two hex digits, or escapes that are not UTF-8, named by the parameter', () => {
    const detail = (rawQuery: string) => checkRequest({ ...agentinfo, rawQuery }).find((v) => v.rule === 'query-encoding')?.detail
    expect(detail('agentname=web%ZZ')).toBe('the value of "agentname" holds "%ZZ", a "%" without two hex digits after it (send a "%" as %25)')
    expect(detail('agentstate=ONLINE&agentname=50%')).toBe('the value of "agentname" holds "%", a "%" without two hex digits after it (send a "%" as %25)')
    expect(detail('agentname=caf%E9')).toBe('the value of "agentname" holds percent-escapes that are not UTF-8 (encode the text as UTF-8 before escaping it)')
    expect(detail('agent%Gname=x')).toBe('the parameter name "agent%Gname" holds "%Gn", a "%" without two hex digits after it (send a "%" as %25)')
    // A credential's value is not shown (credentials-in-query names the key too).
    expect(detail('agentname=a&password=se%cret')).toBe('the value of "password" is not percent-encoded UTF-8')
    // Well encoded: escapes of UTF-8, %25 for a "%", "+" for a space.
    for (const rawQuery of ['agentname=%E6%9D%B1%E4%BA%AC-01', 'agentname=50%25', 'agentname=a+b', 'agentname=web%2dx']) expect(detail(rawQuery), rawQuery).toBeUndefined()
  })

  it('credentials-in-query: credentials in the query string', () => {
    expect(rules({ rawQuery: 'agentUuids=a&REST_PASSWORD=x' })).toEqual(['credentials-in-query'])
    // Once per request, naming both: the report counted such a request twice.
    expect(checkRequest({ ...base, rawQuery: 'REST_USER=a&agentUuids=a&REST_PASSWORD=x' }).filter((v) => v.rule === 'credentials-in-query')).toEqual([
      { rule: 'credentials-in-query', detail: 'query parameters "REST_USER" and "REST_PASSWORD"' }
    ])
  })

  it('credential-headers: credentials under header names the manager does not read', () => {
    const named = (headerNames: string[]) => {
      const misnamed = misnamedCredentials(Object.fromEntries(headerNames.map((name) => [name, 'x'])))
      return checkRequest({ ...base, ...(misnamed === undefined ? {} : { misnamedCredentials: misnamed }) }).filter((v) => v.rule === 'credential-headers')
    }
    expect(named(['host', 'rest-user', 'rest-password'])).toEqual([{ rule: 'credential-headers', detail: 'credentials in "rest-user" and "rest-password", not REST_USER and REST_PASSWORD' }])
    expect(named(['host', 'authorization'])).toEqual([{ rule: 'credential-headers', detail: 'credentials in an Authorization header, not REST_USER and REST_PASSWORD' }])
    // The right headers, with an Authorization header besides (a proxy's): nothing misnamed.
    expect(named(['host', 'rest_user', 'rest_password', 'authorization'])).toEqual([])
    expect(named(['host'])).toEqual([])
  })

  it('agentname-with-agentstate: both filters of agentinfo', () => {
    expect(rules({ rawQuery: 'agentname=a&agentstate=ONLINE' }, agentinfo)).toEqual(['agentname-with-agentstate'])
  })

  it('missing-content-type: a body without Content-Type', () => {
    expect(rules({ hasBody: true, body: undefined }, addagent)).toEqual(['missing-content-type'])
  })

  it('suffix-not-supported: a suffix on an operation without one (404)', () => {
    expect(rules({ routed: false, status: 404, suffix: 'json', pathName: 'startagent.json' })).toEqual(['suffix-not-supported'])
  })

  it('suffix-not-supported names the operation without the suffix the path gave it', () => {
    const [violation] = checkRequest({ ...base, operation: 'startagent.json', routed: false, status: 404, suffix: 'json', pathName: 'startagent.json' })
    expect(violation).toEqual({ rule: 'suffix-not-supported', detail: 'startagent.json has a suffix startagent does not take' })
  })

  it('unknown-operation: a name that is no operation (404), with the nearest one in the suffix used', () => {
    const typo = { ...agentinfo, operation: 'agentinf.json', routed: false, status: 404, suffix: 'json', pathName: 'agentinf.json', rawQuery: '' } as const
    expect(checkRequest(typo)).toEqual([{ rule: 'unknown-operation', detail: 'unknown operation agentinf.json; did you mean agentinfo.json?' }])
    expect(checkRequest({ ...base, operation: 'nosuchop', routed: false, status: 404, pathName: 'nosuchop', rawQuery: '' })).toEqual([
      { rule: 'unknown-operation', detail: 'unknown operation nosuchop' }
    ])
  })

  it('says nothing of a 404 outside the REST service or after a known operation', () => {
    expect(rules({ operation: '', routed: false, status: 404, pathName: 'agentinf', rawQuery: '' })).toEqual([])
    expect(rules({ operation: 'startagent', routed: false, status: 404, pathName: 'startagent' })).toEqual([])
    expect(rules({ operation: 'agentinfo', routed: false, status: 404, suffix: 'json', pathName: 'agentinfo.json' }, agentinfo)).toEqual([])
  })

  it('wrong-method: another method than the operation takes (405)', () => {
    expect(rules({ routed: false, status: 405, method: 'GET' })).toEqual(['wrong-method'])
  })
})
