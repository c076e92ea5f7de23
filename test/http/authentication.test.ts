import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OPERATIONS } from '../../src/protocol/operations.js'
import { AUTH, harness, REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(3)
})
afterAll(() => h.close())

describe('authentication', () => {
  it('answers 401 in the envelope on every operation without credentials', async () => {
    for (const [operation, { method }] of Object.entries(OPERATIONS)) {
      const response = await h.app.inject({ method, url: `${REST}/${operation}`, headers: { accept: 'application/json' } })
      expect(response.statusCode, operation).toBe(401)
      expect(response.json()).toMatchObject({ servicename: operation, errors: [{ status: 401, code: 'E_UNAUTHORIZED' }] })
    }
  })

  it('answers 401 for a wrong password', async () => {
    const response = await h.app.inject({ url: `${REST}/appinfo.json`, headers: { ...AUTH, REST_PASSWORD: 'wrong' } })
    expect(response.statusCode).toBe(401)
  })

  it('accepts and ignores a REST-TENANT header', async () => {
    const response = await h.app.inject({ url: `${REST}/appinfo.json`, headers: { ...AUTH, 'REST-TENANT': 'acme' } })
    expect(response.statusCode).toBe(200)
  })
})
