import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, CA, harness, REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(5)
})
afterAll(() => h.close())

describe('JSON and XML', () => {
  it('answers XML when there is no accept header and no suffix', async () => {
    const response = await h.app.inject({ url: `${REST}/appinfo`, headers: AUTH })
    expect(response.headers['content-type']).toBe('application/xml; charset=utf-8')
    expect(response.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><result servicename="appinfo"><values><mgrUptime>/)
  })

  it('answers JSON for the .json suffix whatever the accept header says', async () => {
    const response = await h.app.inject({ url: `${REST}/agentmanager.json`, headers: { ...AUTH, accept: 'application/xml' } })
    expect(response.json().servicename).toBe('agentmanager')
  })

  it('answers XML for the .xml suffix', async () => {
    const response = await h.app.inject({ url: `${REST}/agentinfo.xml?agentname=${h.fleet.name(0)}`, headers: { ...AUTH, accept: 'application/json' } })
    expect(response.body).toContain('<field name="the service">')
  })

  it('reads an XML request body and converts its text to the schema types', async () => {
    const xml = `<agent><name>xml-agent</name><global-config><address>10.1.1.1</address><port>4041</port>
      <ca-fingerprint>${CA.fingerprint}</ca-fingerprint><is-log-to-file>false</is-log-to-file></global-config></agent>`
    const response = await h.app.inject({
      method: 'POST',
      url: `${REST}/addagent`,
      headers: { ...AUTH, 'content-type': 'application/xml', accept: 'application/xml' },
      payload: xml
    })
    expect(response.statusCode).toBe(200)
    expect(response.body).toContain('<message>Agent &quot;xml-agent&quot; added.</message>')
    const index = h.fleet.findByName('xml-agent') as number
    expect(h.fleet.config(index)).toMatchObject({ port: 4041, isLogToFile: false })
  })

  it('reads a body in the charset its Content-Type declares, and refuses bytes that are not in it', async () => {
    const xml = (name: string) => `<agent><name>${name}</name><global-config><address>10.1.1.1</address><port>4041</port><ca-fingerprint>${CA.fingerprint}</ca-fingerprint></global-config></agent>`
    const latin1 = await h.app.inject({
      method: 'POST',
      url: `${REST}/addagent`,
      headers: { ...AUTH, 'content-type': 'application/xml; charset=iso-8859-1', accept: 'application/json' },
      payload: Buffer.from(xml('latin-café'), 'latin1')
    })
    expect(latin1.statusCode).toBe(200)
    expect(h.fleet.findByName('latin-café')).toBeDefined()
    // The same bytes without the charset are not UTF-8: refused, and no agent named with U+FFFD.
    const undeclared = await h.app.inject({
      method: 'POST',
      url: `${REST}/addagent`,
      headers: { ...AUTH, 'content-type': 'application/xml', accept: 'application/json' },
      payload: Buffer.from(xml('bad-café'), 'latin1')
    })
    expect([undeclared.statusCode, undeclared.json().errors[0].code]).toEqual([400, 'E_BODY_ENCODING'])
    expect(h.fleet.findByName('bad-caf\ufffd')).toBeUndefined()
    const json = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: { ...AUTH, 'content-type': 'application/json' }, payload: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]) })
    expect(json.json().errors[0]).toMatchObject({ status: 400, code: 'E_BODY_ENCODING', message: expect.stringContaining('(from byte 2)') })
  })

  it('answers a JSON body with JSON when accept is a wildcard', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: `${REST}/setcustomlabel`,
      headers: { ...AUTH, 'content-type': 'application/json', accept: '*/*' },
      payload: { name: 'l', value: 'v' }
    })
    expect(response.json().servicename).toBe('setcustomlabel')
  })

  it('answers errors in the negotiated format', async () => {
    const response = await h.app.inject({ url: `${REST}/agentinfo.xml`, headers: AUTH })
    expect(response.statusCode).toBe(400)
    expect(response.body).toContain('<errors><status>400</status>')
    expect(response.body).toContain('<code>E_AGENTINFO_NO_PARAMETER</code>')
  })

  it('answers 406 when the client accepts neither JSON nor XML', async () => {
    const response = await h.app.inject({ url: `${REST}/appinfo`, headers: { ...AUTH, accept: 'text/html' } })
    expect(response.statusCode).toBe(406)
    expect(response.body).toContain('E_NOT_ACCEPTABLE')
  })
})
