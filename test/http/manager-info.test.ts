import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, harness, LINK_REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(30)
})
afterAll(() => h.close())

describe('manager operations', () => {
  it('reports the listener with the real connected count and the connector in agentmanager', async () => {
    const body = (await call(h.app, 'GET', 'agentmanager')).json()
    expect(body).toEqual({
      servicename: 'agentmanager',
      values: [
        { message: `Agent Manager listener is accepting connections on 0.0.0.0:4041\n${h.fleet.connectedCount()} agents connected` },
        { message: 'Agent Manager connector not started.' }
      ],
      links: [{ rel: 'self', href: `${LINK_REST}/agentmanager` }]
    })
  })

  it('answers appinfo with the manager info fields and their types', async () => {
    await h.fleet.advance(90)
    const body = (await call(h.app, 'GET', 'appinfo')).json()
    expect(body.values[0]).toEqual({
      mgrUptime: 90,
      licenseState: 'VALID/PERMANENT',
      licenseExpireDate: 0,
      appVersion: expect.any(String),
      appRevisionNumber: expect.any(String)
    })
    expect(body.links).toEqual([{ rel: 'self', href: `${LINK_REST}/appinfo` }])
  })

  it('returns the created field with its ids and no links', async () => {
    const field = { name: 'host', type: 'STRING', fieldDescription: { description: 'host name' }, persist: true, lookup: false }
    const body = (await call(h.app, 'POST', 'createfield', field)).json()
    expect(body).toEqual({
      servicename: 'createfield',
      values: [{ ...field, fieldDescription: { description: 'host name', id: 1 }, id: 1 }]
    })
  })

  it('refuses a field type outside the allowed values', async () => {
    const response = await call(h.app, 'POST', 'createfield', { name: 'f', type: 'TEXT' })
    expect(response.json().errors[0]).toMatchObject({ code: 'E_NOT_IN_ENUM', message: expect.stringContaining('"STRING"') })
  })

  it('refuses a second field with the same name', async () => {
    await call(h.app, 'POST', 'createfield', { name: 'dup', type: 'STRING' })
    const response = await call(h.app, 'POST', 'createfield', { name: 'dup', type: 'STRING' })
    expect(response.statusCode).toBe(409)
  })
})
