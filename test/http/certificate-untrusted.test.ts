import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, agentBody, call, harness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(10)
})
afterAll(() => h.close())

const normal = (fingerprint: string) => fingerprint.replace(/:/g, '').toLowerCase()
const listed = async (): Promise<Map<string, string>> => {
  const body = (await call(h.app, 'GET', 'certificateinfo')).json()
  return new Map(body.values.map((c: { fingerprint: string; status: string }) => [normal(c.fingerprint), c.status]))
}
const status = (name: string) => h.fleet.view(h.fleet.findByName(name) as number, false).status
/** Drives the paused clock a second at a time until the agent is in `state` (at most 10 minutes). */
async function until(name: string, state: string): Promise<void> {
  for (let i = 0; i < 600 && status(name) !== state; i++) await h.fleet.advance(1)
  expect(status(name)).toBe(state)
}

describe('certificateinfo and UNTRUSTED agents', () => {
  it('lists no certificate of an agent made UNTRUSTED, and lists it VALID once the agent is trusted again', async () => {
    const name = h.fleet.name(0)
    const fingerprint = normal(h.fleet.config(0).certFingerprint)
    expect((await listed()).get(fingerprint)).toBe('VALID')
    const override = await h.app.inject({ method: 'POST', url: `/__admin/agents/${name}/override`, headers: AUTH, payload: { action: 'untrusted', for: 60 } })
    expect(override.json().status).toBe('UNTRUSTED')
    expect((await listed()).has(fingerprint)).toBe(false)
    await until(name, 'ONLINE')
    expect((await listed()).get(fingerprint)).toBe('VALID')
  })

  it('lists no certificate the manager issued to an added agent while that agent is UNTRUSTED', async () => {
    expect((await call(h.app, 'POST', 'addagent', agentBody('fresh-01'))).statusCode).toBe(200)
    const fingerprint = normal(h.fleet.config(h.fleet.findByName('fresh-01') as number).certFingerprint)
    await until('fresh-01', 'ONLINE')
    expect((await listed()).get(fingerprint)).toBe('VALID')
    await h.app.inject({ method: 'POST', url: '/__admin/agents/fresh-01/override', headers: AUTH, payload: { action: 'untrusted' } })
    expect(status('fresh-01')).toBe('UNTRUSTED')
    expect((await listed()).has(fingerprint)).toBe(false)
  })
})
