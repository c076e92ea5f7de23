import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, harness, LINK_REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(10)
})
afterAll(() => h.close())

describe('custom label operations', () => {
  it('answers setcustomlabel with servicename and links only', async () => {
    const response = await call(h.app, 'POST', `setcustomlabel?agentUuids=${h.fleet.uuid(0)}`, { name: 'env', value: 'prod' })
    expect(response.json()).toEqual({
      servicename: 'setcustomlabel',
      links: [{ rel: 'self', href: `${LINK_REST}/setcustomlabel?agentUuids=${h.fleet.uuid(0)}` }]
    })
  })

  it('renames a label with oldName', async () => {
    await call(h.app, 'POST', 'setcustomlabel', { name: 'a', value: '1' })
    const response = await call(h.app, 'POST', 'setcustomlabel?oldName=a', { name: 'b', value: '1' })
    expect(response.statusCode).toBe(200)
  })

  it('refuses a label body without value', async () => {
    const response = await call(h.app, 'POST', 'setcustomlabel', { name: 'x' })
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_FIELD', message: expect.stringContaining('"value"') })
  })

  it('answers removecustomlabel with servicename and links only', async () => {
    await call(h.app, 'POST', 'setcustomlabel', { name: 'gone', value: '1' })
    const body = (await call(h.app, 'POST', 'removecustomlabel?labelNames=gone')).json()
    expect(Object.keys(body)).toEqual(['servicename', 'links'])
  })

  it('answers 404 for an unknown label', async () => {
    const response = await call(h.app, 'POST', 'removecustomlabel?labelNames=never')
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_LABEL')
  })
})
