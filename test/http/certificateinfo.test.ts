import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CA, call, harness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(10)
})
afterAll(() => h.close())

describe('certificateinfo', () => {
  it('lists the CA and every agent certificate with the kebab-case keys and a fingerprint', async () => {
    const body = (await call(h.app, 'GET', 'certificateinfo')).json()
    expect(body.values).toHaveLength(11)
    expect(Object.keys(body.values[0])).toEqual([
      'name', 'country', 'state', 'city', 'organization', 'organization-unit', 'activation', 'expiration', 'use-as-default-ca',
      'status', 'id', 'issuer', 'subject', 'serial-number', 'sig-alg-name', 'type', 'fingerprint'
    ])
    expect(body.values[0]).toMatchObject({ type: 'CA', fingerprint: CA.fingerprint, activation: '2026-01-01 00:00' })
  })

  it('keeps only certificates expiring within the largest expirein value', async () => {
    const none = (await call(h.app, 'GET', 'certificateinfo?expirein=30')).json()
    expect(none.values).toEqual([])
    const agents = (await call(h.app, 'GET', 'certificateinfo?expirein=30&expirein=700')).json()
    expect(agents.values).toHaveLength(10)
  })

  it('refuses an expirein that is not an integer', async () => {
    const response = await call(h.app, 'GET', 'certificateinfo?expirein=soon')
    // Named by its parameter: `expirein[0]` named a place in a list the client never wrote.
    expect(response.json().errors[0]).toMatchObject({ code: 'E_WRONG_TYPE', message: expect.stringContaining('The query parameter "expirein" must be') })
  })

  it('answers in XML with the .xml suffix', async () => {
    const response = await call(h.app, 'GET', 'certificateinfo.xml')
    expect(response.headers['content-type']).toBe('application/xml; charset=utf-8')
    expect(response.body).toContain('<use-as-default-ca>true</use-as-default-ca>')
  })
})
