import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AGENT_STATES } from '../../src/protocol/states.js'
import { call, harness, LINK_REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(60)
})
afterAll(() => h.close())

const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/

describe('agentinfo', () => {
  it('answers one agent by name with every field of the agent record and its type', async () => {
    const name = h.fleet.name(0)
    const body = (await call(h.app, 'GET', `agentinfo?agentname=${name}`)).json()
    expect(body.servicename).toBe('agentinfo')
    const content = body.values[0].content
    expect(content).toMatchObject({ name, uuid: h.fleet.uuid(0) })
    for (const key of ['version', 'status', 'os', 'address', 'the service', 'sysinfo', 'load']) expect(typeof content[key]).toBe('string')
    for (const key of ['received', 'receivedToday', 'processing', 'sent', 'sentToday']) expect(Number.isInteger(content[key])).toBe(true)
    expect(typeof content.memUsage).toBe('number')
    expect(Number.isNaN(Number(content.load))).toBe(false)
    expect(content.started).toMatch(DATE)
    expect(content.lastOnline).toMatch(DATE)
    expect(AGENT_STATES).toContain(content.status)
    expect(content.modules).toBeUndefined()
  })

  it('gives each item the self, online_agents_with_modules and all_agents_with_modules links', async () => {
    const name = h.fleet.name(1)
    const body = (await call(h.app, 'GET', `agentinfo?agentname=${name}`)).json()
    expect(body.values[0].links).toEqual([
      { rel: 'self', href: `${LINK_REST}/agentinfo?agentname=${name}` },
      { rel: 'online_agents_with_modules', href: `${LINK_REST}/agentinfo?agentstate=ONLINE&agentwithmodules=true{&agentstate}` },
      { rel: 'all_agents_with_modules', href: `${LINK_REST}/agentinfo?agentwithmodules=true{&agentname}` }
    ])
    expect(body.links).toEqual([{ rel: 'self', href: `${LINK_REST}/agentinfo?agentname=${name}` }])
  })

  it('includes module records when agentwithmodules is true', async () => {
    const body = (await call(h.app, 'GET', `agentinfo?agentname=${h.fleet.name(0)}&agentwithmodules=true`)).json()
    const module = body.values[0].content.modules[0]
    expect(Object.keys(module)).toEqual([
      'module_name', 'module', 'module-type', 'type', 'isRunning', 'evt-recvd', 'queuesize', 'evt-fwd', 'evt-drop', 'status', 'module-status', 'id', 'serverInfo'
    ])
    expect(module).toMatchObject({ serverInfo: {} })
    expect(Number.isInteger(module.status)).toBe(true)
    expect(typeof module['module-status']).toBe('string')
  })

  it('answers several agents from a comma-delimited agentname list', async () => {
    const names = [h.fleet.name(0), h.fleet.name(2)]
    const body = (await call(h.app, 'GET', `agentinfo?agentname=${names.join(',')}`)).json()
    expect(body.values.map((v: { content: { name: string } }) => v.content.name)).toEqual(names)
  })

  it('answers the agents in the states given by repeated agentstate parameters', async () => {
    const body = (await call(h.app, 'GET', 'agentinfo?agentstate=ONLINE&agentstate=OFFLINE')).json()
    const expected = [...h.fleet.indices(new Set(['ONLINE', 'OFFLINE']))].length
    expect(body.values).toHaveLength(expected)
    expect(body.values.every((v: { content: { status: string } }) => ['ONLINE', 'OFFLINE'].includes(v.content.status))).toBe(true)
  })

  it('lists every agent with agentwithmodules alone', async () => {
    const body = (await call(h.app, 'GET', 'agentinfo?agentwithmodules=false')).json()
    expect(body.values).toHaveLength(h.fleet.size())
  })

  it('refuses agentinfo without parameters', async () => {
    const response = await call(h.app, 'GET', 'agentinfo')
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].code).toBe('E_AGENTINFO_NO_PARAMETER')
  })

  it('names a parameter it got that is a typo of one it takes (agentName for agentname)', async () => {
    const response = await call(h.app, 'GET', 'agentinfo?agentName=web-01')
    expect(response.json().errors[0].message).toBe(
      'agentinfo needs at least one query parameter: agentname, agentstate or agentwithmodules (agentwithmodules alone lists every agent). The request has "agentName": did you mean "agentname"? Parameter names are spelled exactly, case included.'
    )
  })

  it('refuses agentname together with agentstate', async () => {
    const response = await call(h.app, 'GET', `agentinfo?agentname=${h.fleet.name(0)}&agentstate=ONLINE`)
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].code).toBe('E_EXCLUSIVE_PARAMETERS')
  })

  it('refuses a state outside the list of agent states', async () => {
    const response = await call(h.app, 'GET', 'agentinfo?agentstate=SLEEPING')
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ status: 400, code: 'E_NOT_IN_ENUM' })
    expect(response.json().errors[0].message).toContain('"ONLINE"')
  })

  it('names a wrong state by its parameter, not its place in the list, and says the states are upper case', async () => {
    const response = await call(h.app, 'GET', 'agentinfo?agentstate=ONLINE,online')
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].message).toBe(
      'The query parameter "agentstate" must be one of "ONLINE", "OFFLINE", "ERROR", "UNMANAGED", "UNTRUSTED", "FORGED", got "online" (the values are case-sensitive: send "ONLINE").'
    )
  })

  it('answers 404 naming every unknown agent', async () => {
    const response = await call(h.app, 'GET', 'agentinfo?agentname=ghost-1,ghost-2')
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_UNKNOWN_AGENT' })
    expect(response.json().errors[0].message).toContain('"ghost-1", "ghost-2"')
  })

  it('refuses agentwithmodules that is not a boolean', async () => {
    const response = await call(h.app, 'GET', 'agentinfo?agentwithmodules=maybe')
    expect(response.json().errors[0]).toMatchObject({ code: 'E_WRONG_TYPE' })
  })
})

describe('agentinfo over a large fleet', () => {
  let big: Harness
  beforeAll(async () => {
    big = await harness(3000)
  })
  afterAll(() => big.close())

  it('streams a list longer than one batch as one valid JSON document', async () => {
    const response = await call(big.app, 'GET', 'agentinfo?agentwithmodules=false')
    const body = response.json()
    expect(body.values).toHaveLength(3000)
    expect(body.links[0].rel).toBe('self')
  })

  it('streams the same list as one XML document', async () => {
    const response = await call(big.app, 'GET', 'agentinfo.xml?agentwithmodules=false')
    expect(response.body.startsWith('<?xml')).toBe(true)
    expect(response.body.match(/<values>/g)).toHaveLength(3000)
    expect(response.body.endsWith('</links></result>')).toBe(true)
  })
})
