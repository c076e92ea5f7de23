import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, harness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(20)
})
afterAll(() => h.close())

async function certificateOf(name: string) {
  const certs = (await call(h.app, 'GET', 'certificateinfo')).json().values
  return certs.find((c: { name: string }) => c.name === name)
}

describe('deleteagent', () => {
  it('answers 204 with no content and revokes the certificate when revokeCert is true', async () => {
    const name = h.fleet.name(1)
    const response = await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.fleet.uuid(1)}&revokeCert=true`)
    expect(response.statusCode).toBe(204)
    expect(response.body).toBe('')
    expect(h.fleet.findByName(name)).toBeUndefined()
    expect((await certificateOf(name)).status).toBe('REVOKED')
  })

  it('answers a warning envelope without links when revokeCert is false', async () => {
    const name = h.fleet.name(2)
    const response = await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.fleet.uuid(2)}&revokeCert=false`)
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body.links).toBeUndefined()
    expect(body.values).toHaveLength(2)
    expect(body.values[0].message).toMatch(/^Warning: /)
    expect(body.values[1].message).toBe(`Agent "${name}" deleted.`)
    expect((await certificateOf(name)).status).toBe('VALID')
  })

  it('refuses a request without revokeCert', async () => {
    const response = await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.fleet.uuid(3)}`)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_PARAMETER', message: expect.stringContaining('"revokeCert"') })
  })
})
