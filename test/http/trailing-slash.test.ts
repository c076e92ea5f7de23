import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, harness, JSON_HEADERS, REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(5)
})
afterAll(() => h.close())

describe('a trailing slash after the operation', () => {
  it('serves GET …/appinfo/ as appinfo in JSON', async () => {
    const response = await h.app.inject({ url: `${REST}/appinfo/`, headers: JSON_HEADERS })
    expect(response.statusCode).toBe(200)
    expect(response.json().servicename).toBe('appinfo')
  })

  it('serves GET …/appinfo/ as appinfo in XML', async () => {
    const response = await h.app.inject({ url: `${REST}/appinfo/`, headers: { ...AUTH, accept: 'application/xml' } })
    expect(response.statusCode).toBe(200)
    expect(response.body).toContain('<result servicename="appinfo">')
  })

  it('keeps the suffix format of …/agentinfo.xml/ with its query', async () => {
    const name = h.fleet.name(0)
    const response = await h.app.inject({ url: `${REST}/agentinfo.xml/?agentname=${name}`, headers: { ...AUTH, accept: 'application/json' } })
    expect(response.statusCode).toBe(200)
    expect(response.body).toContain('<result servicename="agentinfo">')
  })

  it('serves …/appinfo.json/ in JSON whatever the accept header says', async () => {
    const response = await h.app.inject({ url: `${REST}/appinfo.json/`, headers: { ...AUTH, accept: 'application/xml' } })
    expect(response.statusCode).toBe(200)
    expect(response.json().servicename).toBe('appinfo')
  })

  it('still answers another method with 405 naming the right one', async () => {
    const response = await h.app.inject({ method: 'DELETE', url: `${REST}/appinfo/`, headers: JSON_HEADERS })
    expect(response.statusCode).toBe(405)
    expect(response.json().errors[0].message).toBe('Operation "appinfo" does not accept DELETE: use GET.')
  })

  it('answers 404, not a 405 naming the method used, for a longer path under the operation', async () => {
    for (const path of ['appinfo/extra', 'appinfo//']) {
      const response = await h.app.inject({ url: `${REST}/${path}`, headers: JSON_HEADERS })
      expect(response.statusCode, path).toBe(404)
      expect(response.json().errors[0].code).toBe('E_UNKNOWN_OPERATION')
      expect(response.headers.allow).toBeUndefined()
    }
    const xml = await h.app.inject({ url: `${REST}/appinfo/extra`, headers: { ...AUTH, accept: 'application/xml' } })
    expect(xml.body).toContain('<code>E_UNKNOWN_OPERATION</code>')
  })

  it('records the operation in the journal', async () => {
    h.built.traffic.journal.clear()
    await h.app.inject({ url: `${REST}/agentmanager/`, headers: JSON_HEADERS })
    const entries = h.built.traffic.journal.entries()
    expect(entries.at(-1)).toMatchObject({ operation: 'agentmanager', status: 200, path: `${REST}/agentmanager/` })
  })
})
