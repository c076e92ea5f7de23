import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentBody, AUTH, CA, call, harness, LINK_REST, REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(20)
})
afterAll(() => h.close())

describe('addagent', () => {
  it('creates an agent and links to it through viewagentortemplate', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('new-agent-1'))
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      servicename: 'addagent',
      values: [{ message: 'Agent "new-agent-1" added.' }],
      links: [{ rel: 'self', href: `${LINK_REST}/viewagentortemplate?name=new-agent-1` }]
    })
    expect(h.fleet.findByName('new-agent-1')).toBeDefined()
  })

  it('issues a new certificate named after the agent when cert-fingerprint is omitted', async () => {
    await call(h.app, 'POST', 'addagent', agentBody('new-agent-2'))
    const certs = (await call(h.app, 'GET', 'certificateinfo')).json().values
    const cert = certs.find((c: { name: string }) => c.name === 'new-agent-2')
    const index = h.fleet.findByName('new-agent-2') as number
    expect(cert).toMatchObject({ type: 'CERT', status: 'VALID', id: index + 2 })
    expect(cert.fingerprint).toBe(h.fleet.config(index).certFingerprint)
  })

  it('takes the certificate name as agent name when name is omitted', async () => {
    // A certificate issued to "cert-owner", whose agent then took another name and was deleted
    // without revoking it: the certificate is no agent's now, and its name is free.
    await call(h.app, 'POST', 'addagent', agentBody('cert-owner'))
    const owner = h.fleet.findByName('cert-owner') as number
    const fingerprint = h.fleet.config(owner).certFingerprint
    await call(h.app, 'PUT', 'modifyagent?agentName=cert-owner', agentBody('cert-owner-renamed'))
    expect((await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.fleet.uuid(owner)}&revokeCert=false`)).statusCode).toBe(200)
    const body = agentBody('x', { 'cert-fingerprint': fingerprint }) as Record<string, unknown>
    delete body.name
    const response = await call(h.app, 'POST', 'addagent', body)
    expect(response.statusCode).toBe(200)
    expect(response.json().values[0].message).toBe('Agent "cert-owner" added.')
  })

  it('refuses an agent without name and without cert-fingerprint', async () => {
    const body = agentBody('x') as Record<string, unknown>
    delete body.name
    const response = await call(h.app, 'POST', 'addagent', body)
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_FIELD' })
  })

  it('refuses a name an agent already has', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody(h.fleet.name(0)))
    expect(response.statusCode).toBe(409)
    expect(response.json().errors[0].code).toBe('E_DUPLICATE_NAME')
  })

  it('refuses an unknown ca-fingerprint', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('y', { 'ca-fingerprint': 'AA:BB' }))
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_CA_FINGERPRINT')
    expect(response.json().errors[0].message).toContain(CA.fingerprint)
  })

  it('refuses the certificate of another agent with 409, so revoking it cannot leave a second agent on it', async () => {
    const fingerprint = h.fleet.config(1).certFingerprint
    const added = await call(h.app, 'POST', 'addagent', agentBody('copycat', { 'cert-fingerprint': fingerprint }))
    expect(added.statusCode).toBe(409)
    expect(added.json().errors[0]).toMatchObject({ code: 'E_CERTIFICATE_IN_USE', message: expect.stringContaining(h.fleet.name(1)) })
    expect(h.fleet.findByName('copycat')).toBeUndefined()
    // modifyagent: another agent's certificate is refused, the agent's own kept.
    const other = await call(h.app, 'PUT', `modifyagent?agentName=${h.fleet.name(2)}`, agentBody(h.fleet.name(2), { 'cert-fingerprint': fingerprint }))
    expect(other.statusCode).toBe(409)
    expect(h.fleet.config(2).certFingerprint).not.toBe(fingerprint)
    const own = await call(h.app, 'PUT', `modifyagent?agentName=${h.fleet.name(1)}`, agentBody(h.fleet.name(1), { 'cert-fingerprint': fingerprint }))
    expect(own.statusCode).toBe(200)
  })

  it('keeps an XML body\'s text as sent: a verbatim\'s indentation and CDATA, a name refused for its spaces as in JSON', async () => {
    const xml = (name: string, verbatim: string) =>
      `<agent>\n  <name>${name}</name>\n  <global-config>\n    <address>192.0.2.1</address>\n    <port> 4041 </port>\n    <ca-fingerprint>${CA.fingerprint}</ca-fingerprint>\n    <verbatim>${verbatim}</verbatim>\n  </global-config>\n</agent>\n`
    const post = (body: string) => h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: { ...AUTH, 'content-type': 'application/xml', accept: 'application/json' }, payload: body })
    const added = await post(xml('xml-verbatim', '\n  input {\n    path = "<![CDATA[/var/log/a&b]]>"\n  }\n'))
    expect(added.statusCode).toBe(200)
    const config = h.fleet.config(h.fleet.findByName('xml-verbatim') as number)
    expect(config.verbatim).toBe('\n  input {\n    path = "/var/log/a&b"\n  }\n')
    expect(config.port).toBe(4041)
    const padded = await post(xml('  padded  ', ''))
    expect(padded.statusCode).toBe(400)
    expect(padded.json().errors[0].code).toBe('E_INVALID_NAME')
  })

  it('refuses text XML answers could not carry in any field it stores, naming the field, and stores nothing', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('ctl-agent', { address: '192.0.2.1\u0001', verbatim: 'ok\tand\r\nlines\ud800' }))
    expect(response.statusCode).toBe(400)
    expect(response.json().errors).toEqual([
      { status: 400, code: 'E_INVALID_VALUE', message: 'The body field "global-config.address" must hold only characters XML answers can carry (no control character but tab, line feed and carriage return, no U+FFFE or U+FFFF, no lone surrogate), got "192.0.2.1\\u0001".' },
      expect.objectContaining({ code: 'E_INVALID_VALUE', message: expect.stringContaining('"global-config.verbatim"') })
    ])
    expect(h.fleet.findByName('ctl-agent')).toBeUndefined()
    // Tabs and line breaks are text: kept.
    const kept = await call(h.app, 'POST', 'addagent', agentBody('ctl-agent', { verbatim: 'a\tb\r\nc' }))
    expect(kept.statusCode).toBe(200)
  })

  it('reads a JSON body after a byte order mark, as Windows PowerShell 5 saves UTF-8', async () => {
    const payload = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(agentBody('bom-agent')))])
    const response = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json' }, payload })
    expect(response.statusCode).toBe(200)
    expect(h.fleet.findByName('bom-agent')).toBeDefined()
  })

  it('refuses an unknown cert-fingerprint', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('y', { 'cert-fingerprint': 'AA:BB' }))
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_CERT_FINGERPRINT')
  })

  it('refuses a port of the wrong type', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('y', { port: '4041/tcp' }))
    expect(response.json().errors[0]).toMatchObject({ code: 'E_WRONG_TYPE', message: 'The body field "global-config.port" must be an integer, got "4041/tcp".' })
  })

  it('refuses a log-level outside the allowed values', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('y', { 'log-level': 'LOUD' }))
    expect(response.json().errors[0].code).toBe('E_NOT_IN_ENUM')
  })

  it('refuses a body without global-config', async () => {
    const response = await call(h.app, 'POST', 'addagent', { name: 'y' })
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_FIELD', message: 'Body field "global-config" is required: add it to the request body.' })
  })

  it('says the body itself must be an object when it is text, in JSON or XML (it was named "body", a field it has not)', async () => {
    const json = await call(h.app, 'POST', 'addagent', '"hello"')
    expect(json.json().errors[0]).toMatchObject({ code: 'E_WRONG_TYPE', message: 'The request body must be an object, got "hello".' })
    const xml = await call(h.app, 'POST', 'addagent', '<agent>hello</agent>', { 'content-type': 'application/xml' })
    expect(xml.json().errors[0]).toMatchObject({ code: 'E_WRONG_TYPE', message: 'The request body must be an object, got "hello".' })
  })

  it('refuses a request without body', async () => {
    const response = await call(h.app, 'POST', 'addagent')
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_BODY' })
    expect(response.json().errors[0].message).toContain('"addagent"')
  })

  it('says a body of JSON null must be an object, where it was told it had none', async () => {
    const before = h.fleet.counts().agents
    const response = await call(h.app, 'POST', 'addagent', 'null')
    expect(response.statusCode).toBe(400)
    expect(response.json().errors).toEqual([{ status: 400, code: 'E_WRONG_TYPE', message: 'The request body must be an object, got null.' }])
    expect(h.fleet.counts().agents).toBe(before)
    // The journal keeps the body as the null it was (the parser took it), not as no body.
    expect(h.built.traffic.journal.entries().at(-1)).toMatchObject({ errorCodes: ['E_WRONG_TYPE'], body: { shape: 'null' } })
  })
})

describe('modifyagent', () => {
  it('renames an agent and links to the new name', async () => {
    const old = h.fleet.name(5)
    const response = await call(h.app, 'PUT', `modifyagent?agentName=${old}`, agentBody('renamed-5', { mode: 'Listen' }))
    expect(response.statusCode).toBe(200)
    expect(response.json().links).toEqual([{ rel: 'self', href: `${LINK_REST}/viewagentortemplate?name=renamed-5` }])
    expect(h.fleet.findByName('renamed-5')).toBe(5)
    expect(h.fleet.config(5).mode).toBe('Listen')
  })

  it('keeps the name when the body repeats it', async () => {
    const name = h.fleet.name(6)
    const response = await call(h.app, 'PUT', `modifyagent?agentName=${name}`, agentBody(name))
    expect(response.statusCode).toBe(200)
  })

  it('answers 404 for an unknown agent', async () => {
    const response = await call(h.app, 'PUT', 'modifyagent?agentName=ghost', agentBody('ghost'))
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_AGENT')
  })

  it('refuses a request without agentName', async () => {
    const response = await call(h.app, 'PUT', 'modifyagent', agentBody('z'))
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_PARAMETER', message: 'Query parameter "agentName" is required: add ?agentName=... to the request.' })
  })

  it('refuses renaming onto the name of another agent', async () => {
    const response = await call(h.app, 'PUT', `modifyagent?agentName=${h.fleet.name(7)}`, agentBody(h.fleet.name(8)))
    expect(response.statusCode).toBe(409)
  })
})
