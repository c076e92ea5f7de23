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

  describe('says what was wrong with the credentials, never which of two values sent', () => {
    const problem = async (headers: Record<string, string>, query = '') => {
      const response = await h.app.inject({ url: `${REST}/appinfo.json${query}`, headers })
      expect(response.statusCode).toBe(401)
      const message = response.json().errors[0].message as string
      return message.slice(message.indexOf('(') + 1, message.indexOf('):'))
    }

    it('a wrong user or password', async () => {
      expect(await problem({ ...AUTH, REST_PASSWORD: 'wrong' })).toBe('the user name or password is wrong')
      expect(await problem({ ...AUTH, REST_USER: 'nobody' })).toBe('the user name or password is wrong')
    })

    it('no header, or one of the two', async () => {
      expect(await problem({})).toBe('the request has no REST_USER or REST_PASSWORD header')
      expect(await problem({ REST_USER: AUTH.REST_USER })).toBe('the request has no REST_PASSWORD header')
    })

    it('headers named with dashes or a prefix', async () => {
      expect(await problem({ 'REST-USER': AUTH.REST_USER, 'REST-PASSWORD': AUTH.REST_PASSWORD })).toBe(
        'the request has no REST_USER or REST_PASSWORD header, but has "rest-user" and "rest-password": the header names are REST_USER and REST_PASSWORD, with an underscore (a proxy in between may drop names with underscores)'
      )
      expect(await problem({ REST_USER: AUTH.REST_USER, 'X-Rest-Password': AUTH.REST_PASSWORD })).toContain('but has "x-rest-password"')
    })

    it('credentials in the query string or in an Authorization header', async () => {
      expect(await problem({}, `?REST_USER=${AUTH.REST_USER}&REST_PASSWORD=x`)).toBe(
        'the request has no REST_USER or REST_PASSWORD header; credentials in the query string are not read: send them as headers'
      )
      expect(await problem({ authorization: 'Basic YWRtaW46YWRtaW4=' })).toBe(
        'the request has no REST_USER or REST_PASSWORD header; an Authorization header is not read: send REST_USER and REST_PASSWORD headers instead'
      )
    })
  })

  it('accepts and ignores a REST-TENANT header', async () => {
    const response = await h.app.inject({ url: `${REST}/appinfo.json`, headers: { ...AUTH, 'REST-TENANT': 'acme' } })
    expect(response.statusCode).toBe(200)
  })
})
