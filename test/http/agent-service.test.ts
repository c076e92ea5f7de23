import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, agentBody, call, harness, REST, type Harness } from './helpers.js'
import { serviceOf } from '../../src/fleet/agent-view.js'

let h: Harness
beforeAll(async () => {
  h = await harness(30)
})
afterAll(() => h.close())

const serviceIn = async (name: string): Promise<string> => (await call(h.app, 'GET', `agentinfo?agentname=${name}`)).json().values[0].content['the service']

describe('the service of an agent', () => {
  it('uses the port an added agent was configured with', async () => {
    expect((await call(h.app, 'POST', 'addagent', agentBody('svc-v4', { address: '192.0.2.5', port: 5555 }))).statusCode).toBe(200)
    expect(await serviceIn('svc-v4')).toBe('192.0.2.5:5555')
    const view = (await call(h.app, 'GET', 'viewagentortemplate/svc-v4')).json()
    expect(view.values[0].content['the service']).toBe('192.0.2.5:5555')
  })

  it('brackets an IPv6 address, in JSON and XML', async () => {
    expect((await call(h.app, 'POST', 'addagent', agentBody('svc-v6', { address: 'fd00:3::1', port: 5555 }))).statusCode).toBe(200)
    expect(await serviceIn('svc-v6')).toBe('[fd00:3::1]:5555')
    const xml = await h.app.inject({ url: `${REST}/viewagentortemplate?name=svc-v6`, headers: { ...AUTH, accept: 'application/xml' } })
    expect(xml.body).toContain('<field name="the service">[fd00:3::1]:5555</field>')
  })

  it('follows the port when modifyagent changes it', async () => {
    await call(h.app, 'POST', 'addagent', agentBody('svc-mod', { address: '192.0.2.6', port: 5555 }))
    const modified = await call(h.app, 'PUT', 'modifyagent?agentName=svc-mod', agentBody('svc-mod', { address: '192.0.2.6', port: 6000 }))
    expect(modified.statusCode).toBe(200)
    expect(await serviceIn('svc-mod')).toBe('192.0.2.6:6000')
  })

  it('keeps generated agents on port 4041, with IPv6 ones in brackets', async () => {
    const services = await Promise.all([...Array(30).keys()].map((i) => serviceIn(h.fleet.name(i))))
    for (const service of services) expect(service).toMatch(/^(\d+\.\d+\.\d+\.\d+|\[[0-9a-f:]+\]):4041$/)
    expect(services.some((s) => s.startsWith('['))).toBe(true)
  })
})

describe('serviceOf', () => {
  it('writes an IPv4 address or a host name as address:port', () => {
    expect(serviceOf('10.16.0.1', 4041)).toBe('10.16.0.1:4041')
    expect(serviceOf('agent.example.corp', 80)).toBe('agent.example.corp:80')
  })

  it('writes an IPv6 address in brackets', () => {
    expect(serviceOf('fd00:3:0::1', 4041)).toBe('[fd00:3:0::1]:4041')
  })
})
