import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClientTraffic as HarnessState } from '../../src/journal/plugin.js'
import { AUTH, REST, call, harness, someUuids, type Harness } from '../http/helpers.js'

describe('strict mode', () => {
  let h: Harness
  let state: HarnessState
  beforeAll(async () => {
    h = await harness(20, { strict: true })
    state = h.built.traffic
  })
  afterAll(() => h.close())

  it('rejects a request that breaks a rule with 400 and the rule code', async () => {
    const uuids = someUuids(h.fleet, 'ONLINE', 2)
    const response = await call(h.app, 'POST', `stopagent?agentUuids=${uuids[0]}&agentUuids=${uuids[1]}`)
    expect(response.statusCode).toBe(400)
    const [error] = response.json().errors
    expect(error.code).toBe('E_STRICT_LIST_REPEATED')
    expect(error.message).toContain('rule list-repeated')
    const entry = state.journal.entries().at(-1)
    expect(entry).toMatchObject({ status: 400, rejected: true, errorCodes: ['E_STRICT_LIST_REPEATED'] })
  })

  it('rejects by its rule a request whose body is JSON null, before saying the body must be an object', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: `${REST}/addagent?REST_PASSWORD=secret`,
      headers: { ...AUTH, accept: 'application/json', 'content-type': 'application/json' },
      payload: 'null'
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].code).toBe('E_STRICT_CREDENTIALS_IN_QUERY')
    const entry = state.journal.entries().at(-1)
    expect(entry).toMatchObject({ status: 400, rejected: true, errorCodes: ['E_STRICT_CREDENTIALS_IN_QUERY'] })
  })

  it('rejects a missing accept header in the default format (XML)', async () => {
    const response = await h.app.inject({ method: 'GET', url: `${REST}/agentinfo?agentstate=ONLINE`, headers: AUTH })
    expect(response.statusCode).toBe(400)
    expect(response.body).toContain('<code>E_STRICT_MISSING_ACCEPT</code>')
  })

  it('rejects a query whose percent-encoding does not decode, where lenient mode reads it as it came', async () => {
    const response = await call(h.app, 'GET', 'agentinfo.json?agentname=50%')
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({
      code: 'E_STRICT_QUERY_ENCODING',
      message: 'Strict mode, rule query-encoding: the value of "agentname" holds "%", a "%" without two hex digits after it (send a "%" as %25).'
    })
  })

  it('answers well-formed requests as usual', async () => {
    expect((await call(h.app, 'GET', 'agentinfo?agentstate=ONLINE')).statusCode).toBe(200)
  })

  it('still answers 401 before judging an unauthenticated request', async () => {
    const response = await h.app.inject({ method: 'GET', url: `${REST}/agentinfo?agentstate=ONLINE&bogus=1` })
    expect(response.statusCode).toBe(401)
  })
})

describe('lenient mode (the default)', () => {
  let h: Harness
  let state: HarnessState
  beforeAll(async () => {
    h = await harness(20, {})
    state = h.built.traffic
  })
  afterAll(() => h.close())

  it('answers a request that breaks a rule and records the violation', async () => {
    const uuids = someUuids(h.fleet, 'ONLINE', 2)
    const response = await call(h.app, 'POST', `stopagent?agentUuids=${uuids[0]}&agentUuids=${uuids[1]}&verbose=1`)
    expect(response.statusCode).toBe(200)
    const entry = state.journal.entries().at(-1)
    expect(entry?.rejected).toBe(false)
    expect(entry?.violations.map((v) => v.rule)).toEqual(['list-repeated', 'unknown-parameter'])
  })

  it('answers a query with a broken percent-escape, the value read as it came, and records the violation', async () => {
    const response = await call(h.app, 'GET', 'agentinfo.json?agentname=web%ZZ')
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].message).toContain('"web%ZZ"')
    expect(state.journal.entries().at(-1)?.violations.map((v) => v.rule)).toEqual(['query-encoding'])
  })
})
