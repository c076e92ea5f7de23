import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, CA, call, harness, REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(5)
})
afterAll(() => h.close())

const codes = (body: { errors: Array<{ code: string; status: number }> }) => body.errors.map((e) => e.code)
const WRONG_CA = '00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33'

describe('every failed rule of a request is reported together', () => {
  it('reports a missing name and a port of the wrong type of one JSON body', async () => {
    const response = await call(h.app, 'POST', 'addagent', { 'global-config': { address: '192.0.2.1', port: 'x', 'ca-fingerprint': CA.fingerprint } })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors).toEqual([
      { status: 400, code: 'E_WRONG_TYPE', message: 'The body field "global-config.port" must be an integer, got "x".' },
      { status: 400, code: 'E_MISSING_FIELD', message: 'Body field "name" is required: add it to the request body.' }
    ])
  })

  it('reports a wrong CA fingerprint with the schema\'s errors in XML', async () => {
    const xml = `<agent><name>two-errors</name><global-config><address>192.0.2.1</address><port>70000</port><ca-fingerprint>${WRONG_CA}</ca-fingerprint></global-config></agent>`
    const response = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: { ...AUTH, 'content-type': 'application/xml', accept: 'application/xml' }, payload: xml })
    expect(response.statusCode).toBe(400)
    expect(response.body).toContain('<errors><status>400</status><message>The body field &quot;global-config.port&quot; must be &lt;= 65535, got 70000.</message><code>E_INVALID_VALUE</code></errors>')
    expect(response.body).toContain('<code>E_UNKNOWN_CA_FINGERPRINT</code>')
    expect(h.fleet.findByName('two-errors')).toBeUndefined()
  })

  it('reports a wrong CA fingerprint and a name the naming rule refuses of a valid-typed body', async () => {
    const body = { name: 'web,01', 'global-config': { address: '192.0.2.1', port: 4041, 'ca-fingerprint': WRONG_CA } }
    const response = await call(h.app, 'PUT', `modifyagent?agentName=${h.fleet.name(0)}`, body)
    expect(codes(response.json())).toEqual(['E_INVALID_NAME', 'E_UNKNOWN_CA_FINGERPRINT'])
  })

  it('reports exclusive agentinfo parameters with a wrong boolean', async () => {
    const response = await call(h.app, 'GET', `agentinfo?agentname=${h.fleet.name(0)}&agentstate=ONLINE&agentwithmodules=maybe`)
    expect(codes(response.json())).toEqual(['E_WRONG_TYPE', 'E_EXCLUSIVE_PARAMETERS'])
  })

  it('reports a wrong CA fingerprint of a master template with its missing address', async () => {
    const response = await call(h.app, 'POST', 'addmastertemplate', { name: 'tpl-two', 'global-config': { port: 4041, 'ca-fingerprint': WRONG_CA } })
    expect(codes(response.json())).toEqual(['E_MISSING_FIELD', 'E_UNKNOWN_CA_FINGERPRINT'])
  })

  it('reports nothing to assign with a wrong boolean', async () => {
    const response = await call(h.app, 'POST', `assigntemplatetoagent?agentUuids=${h.fleet.uuid(0)}&updateAgents=maybe`)
    expect(codes(response.json())).toEqual(['E_WRONG_TYPE', 'E_NOTHING_TO_ASSIGN'])
  })

  it('still reports a single failed rule alone', async () => {
    const response = await call(h.app, 'GET', 'agentinfo')
    expect(response.json().errors).toEqual([{ status: 400, code: 'E_AGENTINFO_NO_PARAMETER', message: expect.stringContaining('agentinfo needs at least one query parameter') }])
  })
})
