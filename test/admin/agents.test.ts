import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { admin, adminHarness, type AdminHarness } from './helpers.js'

let h: AdminHarness
let name: string
beforeEach(async () => {
  h = await adminHarness({ agents: 20 })
  name = h.engine.name([...h.engine.indices(new Set(['ONLINE']))][0])
})
afterEach(() => h.close())

const status = (n: string) => h.engine.view(h.engine.findByName(n) as number, false).status

describe('overriding one agent', () => {
  it('takes an agent OFFLINE for a duration, and it comes back after it', async () => {
    const response = await admin(h.app, 'POST', `/agents/${name}/override`, { action: 'offline', for: '5m' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ agent: name, action: 'offline', for: 300, status: 'OFFLINE' })
    await admin(h.app, 'POST', '/clock/advance', { seconds: 299 })
    expect(status(name)).toBe('OFFLINE')
    await admin(h.app, 'POST', '/clock/advance', { seconds: 1 })
    expect(status(name)).toBe('ONLINE')
  })

  it.each([
    ['untrusted', 'UNTRUSTED'],
    ['forged', 'FORGED'],
    ['error', 'ERROR']
  ])('applies %s', async (action, expected) => {
    const response = await admin(h.app, 'POST', `/agents/${name}/override`, { action })
    expect(response.json().status).toBe(expected)
  })

  it('accepts the duration as seconds', async () => {
    const response = await admin(h.app, 'POST', `/agents/${name}/override`, { action: 'untrusted', for: 60 })
    expect(response.json().for).toBe(60)
  })

  it('lists the actions when the action is unknown', async () => {
    const response = await admin(h.app, 'POST', `/agents/${name}/override`, { action: 'explode' })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_NOT_IN_ENUM' })
    expect(response.json().errors[0].message).toContain('"offline", "online", "error"')
    expect(response.json().errors[0].message).not.toContain('did you mean')
    const typo = await admin(h.app, 'POST', `/agents/${name}/override`, { action: 'ofline' })
    expect(typo.json().errors[0].message).toMatch(/, got "ofline" \(did you mean "offline"\?\)\.$/)
  })

  it('rejects a duration under a second', async () => {
    const response = await admin(h.app, 'POST', `/agents/${name}/override`, { action: 'offline', for: '10ms' })
    expect(response.json().errors[0].message).toContain('"for" must be a duration of at least one second')
  })

  it.each([[1e300], ['30000d'], [10 * 365 * 86_400 + 1]])('refuses a duration past 10 years, %j, which the fleet\'s times cannot hold, and leaves the agent as it was', async (value) => {
    const response = await admin(h.app, 'POST', `/agents/${name}/override`, { action: 'offline', for: value })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_INVALID_VALUE', message: expect.stringContaining('at most 3650d (10 years)') })
    expect(status(name)).toBe('ONLINE')
  })

  it.each([['1.5s'], [1.5], ['1m30.5s']])('refuses a duration of a fraction of a second, %j, and leaves the agent as it was', async (value) => {
    const response = await admin(h.app, 'POST', `/agents/${name}/override`, { action: 'offline', for: value })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_INVALID_VALUE' })
    expect(response.json().errors[0].message).toContain('"for" must be a duration of at least one second in whole seconds')
    expect(status(name)).toBe('ONLINE')
  })

  it('answers an unknown agent with E_UNKNOWN_AGENT', async () => {
    const response = await admin(h.app, 'POST', '/agents/nobody/override', { action: 'offline' })
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_AGENT')
  })
})

describe('failing the next reconnect of one agent', () => {
  it('makes its next reconnect fail, and only that one', async () => {
    const response = await admin(h.app, 'POST', `/agents/${name}/fail-next-reconnect`)
    expect(response.json()).toEqual({ agent: name, failNextReconnect: true })
    const index = h.engine.findByName(name) as number
    const first = h.engine.reconnectAgents([index])
    await h.engine.advance(10)
    expect((await first).failed.map((f) => f.index)).toEqual([index])
  })
})

describe('an endpoint that takes no body', () => {
  it('refuses one with fields, naming the first, rather than doing its work without them', async () => {
    const digest = (await admin(h.app, 'GET', '/fleet')).json().digest as string
    const reset = await admin(h.app, 'POST', '/reset', { seed: 5, scenario: 'x' })
    expect(reset.statusCode).toBe(400)
    expect(reset.json().errors[0]).toMatchObject({ code: 'E_INVALID_VALUE', message: expect.stringContaining('"seed" is not a field of POST /__admin/reset, which takes no body') })
    const failNext = await admin(h.app, 'POST', `/agents/${name}/fail-next-reconnect`, [1, 2])
    expect(failNext.statusCode).toBe(400)
    expect(failNext.json().errors[0].code).toBe('E_WRONG_TYPE')
    // Nothing was done: the fleet is as it was.
    expect((await admin(h.app, 'GET', '/fleet')).json().digest).toBe(digest)
    // No body, or an empty object, is the call it always was.
    expect((await admin(h.app, 'POST', `/agents/${name}/fail-next-reconnect`, {})).statusCode).toBe(200)
    expect((await admin(h.app, 'POST', '/reset')).statusCode).toBe(200)
  })
})
