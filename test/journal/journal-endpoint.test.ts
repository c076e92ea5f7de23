import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ClientTraffic as HarnessState } from '../../src/journal/plugin.js'
import type { JournalEntry } from '../../src/journal/journal.js'
import { AnswerCache } from '../../src/http/answer-cache.js'
import { AUTH, REST, agentBody, call, harness, someUuids, type Harness } from '../http/helpers.js'

let h: Harness
let state: HarnessState

async function entries(query = ''): Promise<JournalEntry[]> {
  const response = await h.app.inject({ method: 'GET', url: `/__admin/requests${query}`, headers: AUTH })
  expect(response.statusCode).toBe(200)
  return (response.json() as { entries: JournalEntry[] }).entries
}

beforeAll(async () => {
  h = await harness(20, { journalSize: 5 })
  state = h.built.traffic
})
afterAll(() => h.close())
beforeEach(async () => {
  await h.app.inject({ method: 'DELETE', url: '/__admin/requests', headers: AUTH })
})

describe('the request journal', () => {
  it('records an operation with its parameters, format, status and timings', async () => {
    await call(h.app, 'GET', 'agentinfo?agentstate=ONLINE&agentwithmodules=false')
    const [entry] = await entries()
    expect(entry).toMatchObject({
      operation: 'agentinfo',
      method: 'GET',
      path: `${REST}/agentinfo`,
      query: { agentstate: ['ONLINE'], agentwithmodules: ['false'] },
      format: 'json',
      status: 200,
      errorCodes: [],
      violations: [],
      rejected: false
    })
    expect(entry.virtualTime).toBe('2026-03-01T00:00:00.000Z')
    expect(entry.durationMs).toBeGreaterThanOrEqual(0)
    expect(entry.agentStates).toEqual(['ONLINE'])
  })

  it('records a body by its shape, and its text as sent', async () => {
    const body = JSON.stringify(agentBody('journal-1'))
    await call(h.app, 'POST', 'addagent', body)
    const [entry] = await entries()
    expect(entry.body).toMatchObject({ contentType: 'application/json', shape: { name: 'string', 'global-config': { address: 'string', port: 'number', 'ca-fingerprint': 'string' } } })
    expect(entry.requestBody).toEqual({ text: body, bytes: body.length, truncated: false })
  })

  it('never records credentials', async () => {
    await call(h.app, 'GET', 'appinfo?REST_PASSWORD=secret')
    const [entry] = await entries()
    expect(JSON.stringify(entry)).not.toContain('secret')
    expect(entry.query.REST_PASSWORD).toEqual(['[redacted]'])
    expect(entry.violations.map((v) => v.rule)).toContain('credentials-in-query')
  })

  it('never records credentials named with brackets (REST_PASSWORD[]) or escaped, nor a piece of one badly encoded', async () => {
    for (const query of ['REST_PASSWORD[]=secret', 'REST_PASSWORD%5B%5D=secret', 'password[]=se%zzcret', 'REST%5FPASSWORD=secret']) {
      await h.built.traffic.journal.clear()
      await call(h.app, 'GET', `appinfo?${query}`)
      const [entry] = await entries()
      expect(JSON.stringify(entry), query).not.toContain('secret')
      expect(JSON.stringify(entry), query).not.toContain('zzc')
      expect(entry.violations.map((v) => v.rule), query).toContain('credentials-in-query')
    }
  })

  it('records credentials sent under names the manager does not read, which fails the client report', async () => {
    for (const headers of [{ 'REST-USER': 'admin', 'REST-PASSWORD': 'admin' }, { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` }]) {
      const response = await h.app.inject({ method: 'GET', url: '/manager/mvc/restservice/appinfo', headers: { ...headers, accept: 'application/json' } })
      expect(response.statusCode).toBe(401)
    }
    const all = await entries()
    expect(all.map((e) => e.violations.map((v) => v.rule))).toEqual([['credential-headers'], ['credential-headers']])
    const report = (await h.app.inject({ method: 'GET', url: '/__admin/report', headers: AUTH })).json()
    expect(report.verdict.outcome).toBe('fail')
    expect(report.findings.map((f: { id: string }) => f.id)).toContain('rule:credential-headers')
  })

  it('records the error codes of a rejected request', async () => {
    await call(h.app, 'GET', 'agentinfo?agentstate=BOGUS')
    const [entry] = await entries()
    expect(entry).toMatchObject({ status: 400, errorCodes: ['E_NOT_IN_ENUM'] })
  })

  it('records wrong methods and unknown paths', async () => {
    await call(h.app, 'POST', 'appinfo')
    await call(h.app, 'GET', 'addagent.json')
    const [wrongMethod, suffix] = await entries()
    expect(wrongMethod).toMatchObject({ operation: 'appinfo', status: 405, errorCodes: ['E_METHOD_NOT_ALLOWED'] })
    expect(wrongMethod.violations.map((v) => v.rule)).toEqual(['wrong-method'])
    expect(suffix.status).toBe(404)
    expect(suffix.violations.map((v) => v.rule)).toContain('suffix-not-supported')
  })

  it('records an unknown operation as such, with the nearest one, and no suffix rule', async () => {
    await call(h.app, 'GET', 'agentinf.json')
    const [entry] = await entries()
    expect(entry).toMatchObject({ operation: 'agentinf.json', status: 404, errorCodes: ['E_UNKNOWN_OPERATION'] })
    expect(entry.violations).toEqual([{ rule: 'unknown-operation', detail: 'unknown operation agentinf.json; did you mean agentinfo.json?' }])
    const finding = state.report().findings.find((f) => f.id === 'rule:unknown-operation')
    expect(finding?.text).toBe(
      `Rule unknown-operation broken 1 time: Call only the operations of the interface; GET /openapi.json lists them. Example #${entry.id}: GET /manager/mvc/restservice/agentinf.json (unknown operation agentinf.json; did you mean agentinfo.json?).`
    )
    expect(state.report().findings.map((f) => f.id)).not.toContain('rule:suffix-not-supported')
  })

  it('records per-agent failures of a multi-agent answer with the agents UUIDs', async () => {
    const [online] = someUuids(h.fleet, 'ONLINE', 1)
    const [offline] = someUuids(h.fleet, 'OFFLINE', 1)
    await call(h.app, 'POST', `stopagent?agentUuids=${online},${offline}`)
    const [entry] = await entries()
    expect(entry.status).toBe(200)
    expect(entry.partialErrors).toHaveLength(1)
    expect(entry.partialErrors[0]).toMatchObject({ uuid: offline })
  })

  it('keeps only the newest entries when the ring is full', async () => {
    for (let i = 0; i < 7; i++) await call(h.app, 'GET', 'appinfo')
    const response = await h.app.inject({ method: 'GET', url: '/__admin/requests', headers: AUTH })
    const body = response.json() as { entries: JournalEntry[]; dropped: number; capacity: number }
    expect(body.entries).toHaveLength(5)
    expect(body.dropped).toBe(2)
    expect(body.capacity).toBe(5)
  })

  it('says how many bytes its entries are charged, and its limit', async () => {
    await call(h.app, 'GET', 'appinfo')
    const response = await h.app.inject({ method: 'GET', url: '/__admin/requests', headers: AUTH })
    const body = response.json() as { bytes: number; maxBytes: number }
    expect(body.bytes).toBe(state.journal.bytes)
    expect(body.bytes).toBeGreaterThan(0)
    expect(body.maxBytes).toBe(32 * 1024 * 1024)
  })

  it('filters by operation, status, time and count', async () => {
    await call(h.app, 'GET', 'appinfo')
    await call(h.app, 'GET', 'agentmanager')
    await call(h.app, 'GET', 'agentinfo?agentstate=NOPE')
    expect((await entries('?operation=appinfo,agentmanager')).map((e) => e.operation)).toEqual(['appinfo', 'agentmanager'])
    expect((await entries('?status=4xx')).map((e) => e.operation)).toEqual(['agentinfo'])
    expect((await entries('?status=200&limit=1')).map((e) => e.operation)).toEqual(['agentmanager'])
    expect(await entries(`?since=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([])
  })

  it('rejects a bad filter with a message naming the parameter', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/__admin/requests?since=yesterday', headers: AUTH })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].message).toContain('"since"')
  })

  it('rejects an operation that is none of the interface, with the nearest one (it matched nothing, silently)', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/__admin/requests?operation=appinfo,agentinf', headers: AUTH })
    expect(response.statusCode).toBe(400)
    const message = response.json().errors[0].message as string
    expect(message).toContain('"operation"')
    expect(message).toContain('"agentinf" is none (did you mean "agentinfo"?)')
    const none = await h.app.inject({ method: 'GET', url: '/__admin/requests?operation=zzzzzzzz', headers: AUTH })
    expect(none.statusCode).toBe(400)
    expect(none.json().errors[0].message).not.toContain('did you mean')
    // Spaces and empty items are taken (entries() expects a 200).
    await entries('?operation=appinfo,%20agentinfo,')
  })

  it('does not record its own admin requests', async () => {
    await entries()
    expect(await entries()).toEqual([])
  })

  it('needs the credentials', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/__admin/requests' })
    expect(response.statusCode).toBe(401)
    expect(response.json().errors[0].code).toBe('E_UNAUTHORIZED')
    expect((await h.app.inject({ method: 'DELETE', url: '/__admin/requests' })).statusCode).toBe(401)
  })

  it('answers its errors in the admin envelope, servicename "admin" as the other /__admin endpoints', async () => {
    for (const [url, headers] of [
      ['/__admin/requests', {}],
      ['/__admin/requests?limit=-1', AUTH],
      ['/__admin/requests/abc', AUTH],
      ['/__admin/report?format=xml', AUTH]
    ] as const) {
      const response = await h.app.inject({ method: 'GET', url, headers })
      expect({ url, status: response.statusCode >= 400, servicename: response.json().servicename }).toEqual({ url, status: true, servicename: 'admin' })
    }
  })
})

describe('the request journal, kept answers', () => {
  it('records a kept answer sent again as bytes (a list asked for twice) as it recorded the first', async () => {
    // A cache the test holds, to see that the second answer was the kept one.
    const made: { h?: Harness } = {}
    const fleet = () => (made.h as Harness).fleet
    const answers = new AnswerCache({ revision: () => fleet().revision(), agentRevision: (index) => fleet().agentRevision(index), fleetRevision: () => fleet().fleetRevision(), holdRounds: () => fleet().holdRounds() })
    const kept = (made.h = await harness(20, { journalSize: 5 }, { answers }))
    try {
      const first = await call(kept.app, 'GET', 'agentinfo?agentstate=ONLINE')
      const again = await call(kept.app, 'GET', 'agentinfo?agentstate=ONLINE')
      expect(answers.hits).toBe(1)
      expect(again.body).toBe(first.body)
      const response = await kept.app.inject({ method: 'GET', url: '/__admin/requests', headers: AUTH })
      const [one, two] = (response.json() as { entries: JournalEntry[] }).entries
      expect(one.agentStates).toEqual(['ONLINE'])
      expect(two.agentStates).toEqual(['ONLINE'])
      expect(two.responseBody).toEqual(one.responseBody)
    } finally {
      await kept.close()
    }
  })
})
