import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MAX_ADVANCE_SECONDS } from '../../src/admin/routes/clock.js'
import { MAX_SPEED } from '../../src/fleet/clock.js'
import { admin, adminHarness, START, type AdminHarness } from './helpers.js'

let h: AdminHarness
beforeEach(async () => {
  h = await adminHarness()
})
afterEach(() => h.close())

describe('the admin clock', () => {
  it('reports the virtual time, the speed and whether it is paused', async () => {
    const response = await admin(h.app, 'GET', '/clock')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ now: new Date(START).toISOString(), speed: 1, paused: true })
  })

  it('changes speed and pause together', async () => {
    const response = await admin(h.app, 'POST', '/clock', { speed: 3600, paused: true })
    expect(response.json()).toEqual({ now: new Date(START).toISOString(), speed: 3600, paused: true })
    expect(h.engine.clockState().speed).toBe(3600)
  })

  it('refuses an XML body with 415 saying to send JSON, and keeps the clock', async () => {
    for (const type of ['application/xml', 'text/xml; charset=utf-16']) {
      const response = await admin(h.app, 'POST', '/clock', '<clock><speed>2</speed></clock>', { 'content-type': type })
      expect(response.statusCode, type).toBe(415)
      expect(response.json().errors[0], type).toMatchObject({ code: 'E_UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('send the body as application/json.') })
    }
    expect(h.engine.clockState().speed).toBe(1)
    expect((await admin(h.app, 'POST', '/clock', { speed: 2 })).statusCode).toBe(200)
  })

  it('says a body of JSON null must be an object, where it was told it had none', async () => {
    const response = await admin(h.app, 'POST', '/clock/advance', 'null', { 'content-type': 'application/json' })
    expect(response.json().errors).toEqual([{ status: 400, code: 'E_WRONG_TYPE', message: 'The request body must be an object, got null.' }])
  })

  it('takes an XML Content-Type with no body as no body, as a client that sends one with every request does', async () => {
    for (const [method, path] of [['GET', '/clock'], ['POST', '/reset'], ['POST', '/clock/advance']] as const) {
      const response = await admin(h.app, method, path, '', { 'content-type': 'application/xml' })
      // advance needs its body: refused for that, not for the type.
      if (path === '/clock/advance') {
        // It says to send JSON: an XML body would be refused (415).
        expect(response.json().errors[0], path).toEqual({
          status: 400,
          code: 'E_MISSING_BODY',
          message: 'Operation "POST /__admin/clock/advance" needs a request body: the {"seconds": 60} object, as JSON (application/json); the admin API reads no XML.'
        })
      }
      else expect(response.statusCode, `${path}: ${response.body}`).toBe(200)
    }
  })

  it('advances exactly the given seconds while paused and answers once the fleet is there', async () => {
    const response = await admin(h.app, 'POST', '/clock/advance', { seconds: 90 })
    expect(response.statusCode).toBe(200)
    expect(response.json().now).toBe(new Date(START + 90_000).toISOString())
    expect(h.engine.second()).toBe(90)
  })

  it('accepts a duration string for the seconds to advance', async () => {
    await admin(h.app, 'POST', '/clock/advance', { seconds: '2m' })
    expect(h.engine.second()).toBe(120)
  })

  it.each([[0], [-1], ['fast'], [null]])('rejects the speed %s with E_INVALID_VALUE', async (speed) => {
    const response = await admin(h.app, 'POST', '/clock', { speed })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].code).toBe('E_INVALID_VALUE')
    expect(response.json().errors[0].message).toContain('"speed" must be a positive finite number')
  })

  it.each([[1e7], [1e308]])('rejects the speed %s, past MAX_SPEED, and the clock still takes a speed after it', async (speed) => {
    const response = await admin(h.app, 'POST', '/clock', { speed })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].message).toContain(`"speed" must be at most ${MAX_SPEED}`)
    const after = await admin(h.app, 'POST', '/clock', { speed: MAX_SPEED })
    expect(after.statusCode).toBe(200)
    expect(after.json().speed).toBe(MAX_SPEED)
    expect((await admin(h.app, 'GET', '/clock')).statusCode).toBe(200)
  })

  it('names a speed too large for a double as such, not as null', async () => {
    const response = await admin(h.app, 'POST', '/clock', '{"speed": 1e400}', { 'content-type': 'application/json' })
    expect(response.json().errors[0].message).toContain('got a number beyond ±1.8e308, which reads as Infinity')
  })

  it('rejects a pause that is not a boolean', async () => {
    const response = await admin(h.app, 'POST', '/clock', { paused: 'yes' })
    expect(response.json().errors[0]).toMatchObject({ status: 400, code: 'E_WRONG_TYPE' })
  })

  it('rejects unknown fields, naming the allowed ones', async () => {
    const response = await admin(h.app, 'POST', '/clock', { pause: true })
    expect(response.json().errors[0].message).toContain('allowed: paused, speed')
  })

  it.each([[1.5], [-3], [MAX_ADVANCE_SECONDS + 1], ['soon']])('rejects advancing by %s seconds', async (seconds) => {
    const response = await admin(h.app, 'POST', '/clock/advance', { seconds })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].message).toContain('from 0 to 2592000 (30 days)')
  })

  it('needs the seconds to advance', async () => {
    const response = await admin(h.app, 'POST', '/clock/advance', {})
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_FIELD' })
  })
})

describe('admin authentication and routing', () => {
  it('refuses a request without credentials with E_UNAUTHORIZED in the envelope', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/__admin/clock' })
    expect(response.statusCode).toBe(401)
    expect(response.json()).toMatchObject({ servicename: 'admin', errors: [{ status: 401, code: 'E_UNAUTHORIZED' }] })
  })

  it('refuses a wrong password', async () => {
    const response = await admin(h.app, 'GET', '/fleet', undefined, { REST_PASSWORD: 'nope' })
    expect(response.statusCode).toBe(401)
  })

  it('answers an unknown admin path with E_UNKNOWN_ADMIN_PATH', async () => {
    const response = await admin(h.app, 'GET', '/clocks')
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_UNKNOWN_ADMIN_PATH' })
  })
})
