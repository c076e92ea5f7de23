/**
 * An agent added with addagent reports in after the join delay (--join-delay, 2 to 9 s by
 * default); until then the multi-agent commands refuse it in `errors`, saying so. The clock
 * is paused and driven with advance.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import { agentBody, call, harness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(5)
})
afterAll(() => h.close())

async function addAgent(name: string): Promise<string> {
  const added = await call(h.app, 'POST', 'addagent', agentBody(name))
  expect(added.json()).toMatchObject({ servicename: 'addagent', values: [{ message: `Agent "${name}" added.` }] })
  const listed = (await call(h.app, 'GET', `agentinfo?agentname=${name}`)).json()
  expect(listed.values[0].content.status).toBe('OFFLINE')
  return listed.values[0].content.uuid as string
}

describe('commands on an agent added a moment ago', () => {
  it('refuse it in errors, saying it has not reported in yet and when it will', async () => {
    const uuid = await addAgent('web-01')
    for (const operation of ['stopagent', 'startagent', 'updateandreloadagent']) {
      const body = (await call(h.app, 'POST', `${operation}?agentUuids=${uuid}`)).json()
      expect(body.values, operation).toEqual([])
      expect(body.errors, operation).toEqual([
        {
          status: 0,
          message: expect.stringMatching(
            /^web-01: agent has not reported in yet: an added agent reports in 2 to 9 s after addagent \(--join-delay\), this one in [2-9] s of virtual time$/
          )
        }
      ])
    }
  })

  it('accept it once the default join delay of at most 9 s has passed', async () => {
    const uuid = await addAgent('web-02')
    await h.fleet.advance(9)
    const body = (await call(h.app, 'POST', `stopagent?agentUuids=${uuid}`)).json()
    expect(body.errors).toBeUndefined()
    expect(body.values).toEqual([{ message: 'web-02: stop call sent, modules stopped' }])
  })
})

describe('startFleetsim({ joinDelay })', () => {
  let sim: RunningFleetsim | undefined
  afterEach(async () => {
    await sim?.close()
    sim = undefined
  })

  it('lets a client test act on an added agent at once with joinDelay 0', async () => {
    sim = await startFleetsim({ http: true, agents: 5, joinDelay: 0 })
    const headers = { ...sim.headers, accept: 'application/json', 'content-type': 'application/json' }
    const body = JSON.stringify({ name: 'web-01', 'global-config': { address: '192.0.2.1', port: 4041, 'ca-fingerprint': sim.caFingerprint } })
    expect((await fetch(`${sim.url}/addagent`, { method: 'POST', headers, body })).status).toBe(200)
    const uuid = sim.engine.uuid(sim.engine.findByName('web-01') as number)
    const stopped = (await (await fetch(`${sim.url}/stopagent?agentUuids=${uuid}`, { method: 'POST', headers })).json()) as { values: unknown[]; errors?: unknown[] }
    expect(stopped.errors).toBeUndefined()
    expect(stopped.values).toEqual([{ message: 'web-01: stop call sent, modules stopped' }])
  })

  it('takes credentials that start with dashes, as a random password does one time in 4,096', async () => {
    sim = await startFleetsim({ http: true, agents: 5, user: '--user', password: '--Kx9_a' })
    const response = await fetch(`${sim.url}/appinfo.json`, { headers: sim.headers })
    expect(response.status).toBe(200)
  })

  it('refuses a joinDelay that is not whole seconds, naming the flag it stands for', async () => {
    await expect(startFleetsim({ http: true, agents: 5, joinDelay: '1.5s' })).rejects.toThrow('--join-delay must be a duration of whole seconds')
  })
})
