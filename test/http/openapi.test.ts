import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OPERATIONS } from '../../src/protocol/operations.js'
import { harness, REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(2)
})
afterAll(() => h.close())

describe('the OpenAPI document', () => {
  it('describes every operation at /openapi.json without credentials', async () => {
    const response = await h.app.inject({ url: '/openapi.json' })
    expect(response.statusCode).toBe(200)
    const paths = Object.keys(response.json().paths)
    for (const operation of Object.keys(OPERATIONS)) expect(paths).toContain(`${REST}/${operation}`)
  })
})
