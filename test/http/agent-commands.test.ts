import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentBody, call, harness, LINK_REST, settle, someUuids, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(40)
})
afterAll(() => h.close())

const master = { name: 'm1', 'global-config': { address: '10.0.0.1', port: 4041, 'ca-fingerprint': '0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d' } }

describe('stopagent and startagent', () => {
  it('stops agents with one message and one self link per agent', async () => {
    const uuids = someUuids(h.fleet, 'ONLINE', 2)
    const names = uuids.map((u) => h.fleet.name(h.fleet.findByUuid(u) as number))
    const body = (await call(h.app, 'POST', `stopagent?agentUuids=${uuids.join(',')}`)).json()
    expect(body.values).toEqual(names.map((n) => ({ message: `${n}: stop call sent, modules stopped` })))
    expect(body.links).toEqual(names.map((n) => ({ rel: 'self', href: `${LINK_REST}/viewagentortemplate/${n}` })))
    expect(body.errors).toBeUndefined()
  })

  it('answers startagent in the shape of stopagent', async () => {
    const [uuid] = someUuids(h.fleet, 'ONLINE', 1)
    const name = h.fleet.name(h.fleet.findByUuid(uuid) as number)
    const body = (await call(h.app, 'POST', `startagent?agentUuids=${uuid}`)).json()
    expect(body).toEqual({
      servicename: 'startagent',
      values: [{ message: `${name}: restart request sent` }],
      links: [{ rel: 'self', href: `${LINK_REST}/viewagentortemplate/${name}` }]
    })
  })

  it('reports agents that cannot act in errors with status 0 and the agent name', async () => {
    const name = h.fleet.name(30)
    await call(h.app, 'PUT', `modifyagent?agentName=${name}`, agentBody(name, { mode: 'Unmanaged' }))
    const body = (await call(h.app, 'POST', `stopagent?agentUuids=${h.fleet.uuid(30)}`)).json()
    expect(body.values).toEqual([])
    expect(body.errors).toEqual([{ status: 0, message: `${name}: agent is unmanaged and cannot be administered remotely` }])
  })

  it('answers 404 for an unknown UUID and acts on no agent', async () => {
    const response = await call(h.app, 'POST', 'stopagent?agentUuids=00000000-0000-0000-0000-000000000000')
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_AGENT')
  })

  it('refuses stopagent without agentUuids', async () => {
    const response = await call(h.app, 'POST', 'stopagent')
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_PARAMETER', status: 400 })
  })

  it('names a parameter it got that is a typo of the one it lacks (agentUuid for agentUuids)', async () => {
    const response = await call(h.app, 'POST', 'stopagent?agentUuid=x')
    expect(response.json().errors[0]).toEqual({
      status: 400,
      code: 'E_MISSING_PARAMETER',
      message: 'Query parameter "agentUuids" is required: add ?agentUuids=... to the request. The request has "agentUuid": did you mean "agentUuids"? Parameter names are spelled exactly, case included.'
    })
  })

  it('says what is wrong with agentUuids that are only commas: no value once the empty items are dropped', async () => {
    const response = await call(h.app, 'POST', 'stopagent?agentUuids=,,,')
    expect(response.json().errors[0]).toEqual({
      status: 400,
      code: 'E_INVALID_VALUE',
      message: 'The query parameter "agentUuids" must name at least one value (empty items between commas are dropped), got none.'
    })
  })
})

describe('assigntemplatetoagent', () => {
  it('assigns a master template and reports it per agent', async () => {
    await call(h.app, 'POST', 'addmastertemplate', master)
    const [uuid] = someUuids(h.fleet, 'ONLINE', 1)
    const name = h.fleet.name(h.fleet.findByUuid(uuid) as number)
    const body = (await call(h.app, 'POST', `assigntemplatetoagent?agentUuids=${uuid}&templateName=m1`)).json()
    expect(body.values).toEqual([{ message: `${name}: master template "m1" assigned` }])
    expect(body.links).toEqual([{ rel: 'self', href: `${LINK_REST}/viewagentortemplate/${name}` }])
  })

  it('updates the agents after assignment when updateAgents is true', async () => {
    await call(h.app, 'POST', 'addsubtemplate', { name: 's1' })
    const [uuid] = someUuids(h.fleet, 'ONLINE', 1)
    const name = h.fleet.name(h.fleet.findByUuid(uuid) as number)
    const response = await settle(h.fleet, call(h.app, 'POST', `assigntemplatetoagent?agentUuids=${uuid}&subTemplateNames=s1&updateAgents=true`))
    const messages = response.json().values.map((v: { message: string }) => v.message)
    expect(messages[0]).toBe(`${name}: sub templates "s1" assigned`)
    const reported = [...messages.slice(1), ...(response.json().errors ?? []).map((e: { message: string }) => e.message)]
    expect(reported).toHaveLength(1)
  })

  it('names a sub template named twice once, as it is assigned once', async () => {
    await call(h.app, 'POST', 'addsubtemplate', { name: 's2' })
    const [uuid] = someUuids(h.fleet, 'ONLINE', 1)
    const name = h.fleet.name(h.fleet.findByUuid(uuid) as number)
    const body = (await call(h.app, 'POST', `assigntemplatetoagent?agentUuids=${uuid}&subTemplateNames=s2,s2&subTemplateNames=s2`)).json()
    expect(body.values).toEqual([{ message: `${name}: sub templates "s2" assigned` }])
  })

  it('answers 404 for an unknown template', async () => {
    const [uuid] = someUuids(h.fleet, 'ONLINE', 1)
    const response = await call(h.app, 'POST', `assigntemplatetoagent?agentUuids=${uuid}&templateName=nope`)
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_TEMPLATE')
  })

  it('refuses a request that names no template', async () => {
    const [uuid] = someUuids(h.fleet, 'ONLINE', 1)
    const response = await call(h.app, 'POST', `assigntemplatetoagent?agentUuids=${uuid}`)
    expect(response.json().errors[0].code).toBe('E_NOTHING_TO_ASSIGN')
  })
})

describe('updateandreloadagent', () => {
  it('updates and reloads the listed agents with two messages each', async () => {
    const uuids = someUuids(h.fleet, 'ONLINE', 2)
    const response = await settle(h.fleet, call(h.app, 'POST', `updateandreloadagent?agentUuids=${uuids.join(',')}&forceOverrideLocalChanges=true`))
    const body = response.json()
    expect(body.values.length + 2 * (body.errors?.length ?? 0)).toBe(4)
    expect(body.links).toHaveLength(2)
  })
})
