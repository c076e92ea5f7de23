import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, call, harness, REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(3, { bodyLimit: 512, maxListItems: 3 })
})
afterAll(() => h.close())

describe('requests the simulator cannot read', () => {
  it('answers 400 for malformed JSON with the parser message', async () => {
    const response = await call(h.app, 'POST', 'createfield', '{"name": ')
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].code).toBe('E_MALFORMED_JSON')
    expect(response.json().errors[0].message).toBe(
      'The request body is not valid JSON: Unexpected end of JSON input. Fix the syntax, or send the Content-Type that matches the body.'
    )
  })

  it('answers 400 for malformed XML, with the parser message as a sentence of its own', async () => {
    const response = await call(h.app, 'POST', 'createfield', '<field><name>x</field>', { 'content-type': 'application/xml' })
    expect(response.json().errors[0].code).toBe('E_MALFORMED_XML')
    expect(response.json().errors[0].message).toBe(
      "The request body is not well-formed XML: Expected closing tag 'name' (opened in line 1, col 8) instead of closing tag 'field', at line 1. Fix the syntax, or send the Content-Type that matches the body."
    )
  })

  it('refuses XML with a DOCTYPE', async () => {
    const response = await call(h.app, 'POST', 'createfield', '<!DOCTYPE a [<!ENTITY x "y">]><a/>', { 'content-type': 'text/xml' })
    expect(response.json().errors[0].code).toBe('E_XML_DOCTYPE')
  })

  it('refuses an XML body whose elements have a namespace prefix, in the XML envelope', async () => {
    const response = await call(h.app, 'POST', 'createfield', '<ns0:field xmlns:ns0="urn:x"><ns0:name>x</ns0:name><ns0:type>STRING</ns0:type></ns0:field>', {
      'content-type': 'application/xml',
      accept: 'application/xml'
    })
    expect(response.statusCode).toBe(400)
    expect(response.body).toContain('<code>E_XML_NAMESPACE</code>')
    expect(response.body).toContain('&quot;&lt;ns0:name&gt;&quot; is one')
  })

  it('answers 413 for a body over the limit', async () => {
    const response = await call(h.app, 'POST', 'createfield', { name: 'x'.repeat(600), type: 'STRING' })
    expect(response.statusCode).toBe(413)
    expect(response.json().errors[0]).toMatchObject({ status: 413, code: 'E_BODY_TOO_LARGE' })
  })

  it('reads a +json or +xml type with parameters as it reads the type without them', async () => {
    // Fastify tests these types' RegExp on the whole header, parameters included: they got 415.
    for (const type of ['application/problem+json; charset=utf-8', 'application/vnd.api+json;charset="UTF-8"', 'application/vnd.x+json']) {
      const response = await call(h.app, 'POST', 'createfield', '{"name": ', { 'content-type': type })
      expect(response.json().errors[0].code, type).toBe('E_MALFORMED_JSON')
    }
    for (const type of ['application/vnd.foo+xml; charset=utf-8', 'application/vnd.foo+XML', 'application/atom+xml ; a=b']) {
      const response = await call(h.app, 'POST', 'createfield', '<field><name>x</field>', { 'content-type': type })
      expect(response.json().errors[0].code, type).toBe('E_MALFORMED_XML')
    }
    const stopped = await h.app.inject({
      method: 'POST',
      url: `${REST}/stopagent?agentUuids=${h.fleet.uuid(0)}`,
      headers: { ...AUTH, 'content-type': 'application/vnd.api+json; charset=utf-8', accept: 'application/json' }
    })
    expect(stopped.statusCode).toBe(200)
    // A type that only ends like one is not one.
    const other = await call(h.app, 'POST', 'createfield', '{}', { 'content-type': 'application/vnd.x+jsonx; charset=utf-8' })
    expect(other.statusCode).toBe(415)
  })

  it('answers 415 for a body of another media type', async () => {
    const response = await call(h.app, 'POST', 'createfield', 'name=x', { 'content-type': 'text/plain' })
    expect(response.statusCode).toBe(415)
    expect(response.json().errors[0].code).toBe('E_UNSUPPORTED_MEDIA_TYPE')
  })

  it('says a body came without a Content-Type, rather than that the type "" is not supported', async () => {
    const response = await h.app.inject({ method: 'POST', url: `${REST}/createfield`, headers: { ...AUTH, accept: 'application/json' }, payload: Buffer.from('{"name":"x"}') })
    expect(response.statusCode).toBe(415)
    expect(response.json().errors[0]).toMatchObject({
      code: 'E_UNSUPPORTED_MEDIA_TYPE',
      message: 'The body comes without a Content-Type: send it as application/json or application/xml, and say so in Content-Type.'
    })
  })

  it('accepts an empty body with a JSON Content-Type on operations without a body', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: `${REST}/stopagent?agentUuids=${h.fleet.uuid(0)}`,
      headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json' }
    })
    expect(response.statusCode).toBe(200)
  })

  it('answers 400 when a list parameter has more items than allowed', async () => {
    const response = await call(h.app, 'POST', 'stopagent?agentUuids=a,b,c,d')
    expect(response.json().errors[0]).toMatchObject({ code: 'E_TOO_MANY_ITEMS' })
  })

  it('answers 404 in the envelope for an unknown operation', async () => {
    const response = await call(h.app, 'GET', 'nosuchop')
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ servicename: 'nosuchop', errors: [{ status: 404, code: 'E_UNKNOWN_OPERATION' }] })
  })

  it('answers 405 with an Allow header for a known operation and the wrong method', async () => {
    const response = await call(h.app, 'GET', 'addagent')
    expect(response.statusCode).toBe(405)
    expect(response.headers.allow).toBe('POST')
    expect(response.json().errors[0].code).toBe('E_METHOD_NOT_ALLOWED')
  })

  it('names the allowed value a misspelt one is nearest', async () => {
    const response = await call(h.app, 'POST', 'createfield', { name: 'f', type: 'STRNG' })
    expect(response.json().errors[0].message).toBe(
      'The body field "type" must be one of "STRING", "INTEGER", "BOOLEAN", "DATETIME", "IPADDR", "BINARY", got "STRNG" (did you mean "STRING"?).'
    )
  })

  it('reports every failed rule of a body in one envelope', async () => {
    const response = await call(h.app, 'POST', 'createfield', { type: 'TEXT', persist: 'perhaps' })
    const codes = response.json().errors.map((e: { code: string }) => e.code)
    expect(codes).toEqual(expect.arrayContaining(['E_MISSING_FIELD', 'E_NOT_IN_ENUM', 'E_WRONG_TYPE']))
  })

  // JSON.parse reads 9007199254740993 as ...992 and 1e400 as Infinity: the value read is not what was sent.
  it.each([
    ['9007199254740993', '<= 65535', 'a number past 2^53, which reads only approximately (as 9007199254740992)'],
    ['1e400', 'an integer', 'a number beyond ±1.8e308, which reads as Infinity'],
    ['-1e400', 'an integer', 'a number beyond ±1.8e308, which reads as -Infinity'],
  ])('does not misquote the number %s it could not read exactly', async (number, rule, got) => {
    const body = `{"name":"huge","global-config":{"address":"192.0.2.1","port":${number},"ca-fingerprint":"x"}}`
    const response = await call(h.app, 'POST', 'addagent', body, { 'content-type': 'application/json' })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors.map((e: { message: string }) => e.message)).toContain(`The body field "global-config.port" must be ${rule}, got ${got}.`)
  })
})
