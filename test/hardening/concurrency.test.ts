import { createServer, get as httpGet, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { createManager, type Manager } from '../../src/manager/manager.js'
import { CA, REST, START, agentBody } from '../http/helpers.js'
import { checkFleet } from './fuzz/runner.js'

const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'secret' }
const HEADERS = { ...AUTH, accept: 'application/json', 'content-type': 'application/json' }

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  body?: unknown
}
interface Answer {
  status: number
  body: string
}
type Send = (call: Call) => Promise<Answer>

let fleet: FleetEngine
let manager: Manager
let app: FastifyInstance

beforeEach(async () => {
  // A running clock: mutations then queue behind the fleet's step rounds, which widens every
  // window between a route's checks and its change (the races this file is about).
  fleet = await createFleet({ agents: 120, seed: 11, workers: 1, speed: 100, startTime: START, caFingerprint: CA.fingerprint })
  manager = createManager(fleet, CA)
  app = (await buildApp({ fleet, manager, ca: CA, processMetrics: false }, { user: 'admin', password: 'secret' })).app
})

afterEach(async () => {
  await app.close()
  await fleet.close()
})

/**
 * In place of beforeEach's fleet and app: a paused fleet of `agents` and an app over it; its request
 * listener, for the tests that serve it over a socket.
 */
async function rebuildPaused(agents: number): Promise<RequestListener> {
  await app.close()
  await fleet.close()
  fleet = await createFleet({ agents, seed: 11, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
  manager = createManager(fleet, CA)
  const built = await buildApp({ fleet, manager, ca: CA, processMetrics: false }, { user: 'admin', password: 'secret' })
  app = built.app
  return built.handler
}

const viaInject: () => Send = () => async (call) => {
  const response = await app.inject({
    method: call.method,
    url: `${REST}/${call.path}`,
    headers: HEADERS,
    ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) })
  })
  return { status: response.statusCode, body: response.body }
}

async function viaSocket(): Promise<Send> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  return async (call) => {
    const response = await fetch(`http://127.0.0.1:${port}${REST}/${call.path}`, {
      method: call.method,
      headers: HEADERS,
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) })
    })
    return { status: response.status, body: await response.text() }
  }
}

/** Stops the clock and waits for the step round in flight (digest queues behind it), so the fleet holds still for checks. */
async function steady(): Promise<void> {
  await fleet.setClock({ paused: true })
  await fleet.digest()
}

/** A seeded shuffle, so every round interleaves the same calls differently but reproducibly. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items]
  let state = seed
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    const j = state % (i + 1)
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** Conflicting calls on agents a and b: renames to one name, deletes, assigns, labels, stop/start, duplicate adds. */
function conflicting(round: number, a: number, b: number): Call[] {
  const [nameA, nameB] = [fleet.name(a), fleet.name(b)]
  const [uuidA, uuidB] = [fleet.uuid(a), fleet.uuid(b)]
  const taken = `contested-${round}`
  return [
    { method: 'PUT', path: `modifyagent?agentName=${encodeURIComponent(nameA)}`, body: agentBody(taken) },
    { method: 'PUT', path: `modifyagent?agentName=${encodeURIComponent(nameB)}`, body: agentBody(taken) },
    { method: 'POST', path: 'addagent', body: agentBody(taken) },
    { method: 'POST', path: 'addagent', body: agentBody(`twin-${round}`) },
    { method: 'POST', path: 'addagent', body: agentBody(`twin-${round}`) },
    { method: 'PUT', path: `modifyagent?agentName=${encodeURIComponent(nameA)}`, body: agentBody(`${nameA}-renamed`) },
    { method: 'DELETE', path: `deleteagent?agentUuids=${uuidA}&revokeCert=true` },
    { method: 'DELETE', path: `deleteagent?agentUuids=${uuidA}&revokeCert=false` },
    { method: 'POST', path: `assigntemplatetoagent?agentUuids=${uuidA},${uuidB}&templateName=master-${round}&subTemplateNames=sub-${round}` },
    { method: 'POST', path: `setcustomlabel?agentUuids=${uuidA},${uuidB}`, body: { name: `label-${round}`, value: 'one' } },
    { method: 'POST', path: `setcustomlabel?agentUuids=${uuidA}`, body: { name: `label-${round}`, value: 'two' } },
    { method: 'POST', path: `removecustomlabel?labelNames=label-${round}&agentUuids=${uuidB}` },
    { method: 'POST', path: `stopagent?agentUuids=${uuidA},${uuidB}` },
    { method: 'POST', path: `startagent?agentUuids=${uuidA}` },
    { method: 'POST', path: `stopagent?agentUuids=${uuidB}` },
    { method: 'DELETE', path: `deleteagent?agentUuids=${uuidB}&revokeCert=true` },
    { method: 'GET', path: `agentinfo?agentname=${encodeURIComponent(nameA)},${encodeURIComponent(nameB)}` },
    { method: 'POST', path: 'addmastertemplate', body: { name: taken, 'global-config': { address: '192.0.2.9', port: 4041, 'ca-fingerprint': CA.fingerprint } } }
  ]
}

async function setUpTemplates(send: Send, round: number): Promise<void> {
  const master = await send({ method: 'POST', path: 'addmastertemplate', body: { name: `master-${round}`, 'global-config': { address: '192.0.2.9', port: 4041, 'ca-fingerprint': CA.fingerprint } } })
  const sub = await send({ method: 'POST', path: 'addsubtemplate', body: { name: `sub-${round}` } })
  expect([master.status, sub.status]).toEqual([200, 200])
}

async function race(send: Send, rounds: number): Promise<Answer[]> {
  const answers: Answer[] = []
  const everyone = [...fleet.indices()]
  for (let round = 0; round < rounds; round++) {
    await setUpTemplates(send, round)
    const [a, b] = [everyone[2 * round], everyone[2 * round + 1]]
    const sizeBefore = fleet.size()
    const calls = shuffled(conflicting(round, a, b), round + 1)
    const results = await Promise.all(calls.map(send))
    answers.push(...results)
    await steady()
    const successes = (path: string) => results.filter((r, k) => calls[k].path.startsWith(path) && r.status < 300)
    expect(successes('addagent').length).toBeGreaterThanOrEqual(1)
    const deletes = results.filter((r, k) => calls[k].path.startsWith('deleteagent') && r.status < 300)
    const adds = successes('addagent')
    expect(fleet.size(), `round ${round}: size follows the successful adds and deletes`).toBe(sizeBefore + adds.length - deletes.length)
    expect(checkFleet(fleet, manager), `round ${round}`).toEqual([])
    await fleet.setClock({ paused: false })
  }
  return answers
}

describe('conflicting operations on the same agents, fired at once', () => {
  it('leave unique names, one agent per UUID, counts equal to a scan and labels only on existing agents (inject)', async () => {
    const answers = await race(viaInject(), 20)
    expect(answers.filter((a) => a.status >= 500)).toEqual([])
  })

  it('leave the same invariants over real sockets on 127.0.0.1', async () => {
    const answers = await race(await viaSocket(), 8)
    expect(answers.filter((a) => a.status >= 500)).toEqual([])
  })

  it('answer exactly one of two deletes of the same agent with success', async () => {
    const send = viaInject()
    const uuid = fleet.uuid([...fleet.indices()][0])
    const results = await Promise.all([1, 2, 3].map(() => send({ method: 'DELETE', path: `deleteagent?agentUuids=${uuid}&revokeCert=true` })))
    await steady()
    expect(results.map((r) => r.status).sort()).toEqual([204, 404, 404])
  })

  it('never bring back an agent deleted while a reload or stop of it was queued', async () => {
    const send = viaInject()
    const everyone = [...fleet.indices()].filter((i) => fleet.view(i, false).status === 'ONLINE').slice(0, 6)
    const uuids = everyone.map((i) => fleet.uuid(i))
    const calls: Call[] = uuids.flatMap((uuid): Call[] => [
      { method: 'POST', path: `updateandreloadagent?agentUuids=${uuid}` },
      { method: 'POST', path: `assigntemplatetoagent?agentUuids=${uuid}&subTemplateNames=s&updateAgents=true` },
      { method: 'POST', path: `stopagent?agentUuids=${uuid}` },
      { method: 'DELETE', path: `deleteagent?agentUuids=${uuid}&revokeCert=true` },
      { method: 'POST', path: `startagent?agentUuids=${uuid}` }
    ])
    await send({ method: 'POST', path: 'addsubtemplate', body: { name: 's' } })
    const results = await Promise.all(shuffled(calls, 7).map(send))
    expect(results.filter((r) => r.status >= 500)).toEqual([])
    // Long enough (virtual) for every queued reconnect and module restart to have played out.
    await fleet.advance(120)
    await steady()
    for (const uuid of uuids) expect(fleet.findByUuid(uuid)).toBeUndefined()
    expect(checkFleet(fleet, manager)).toEqual([])
  })

  it('let only one of two adds with the same name succeed', async () => {
    const send = viaInject()
    const results = await Promise.all([1, 2, 3].map(() => send({ method: 'POST', path: 'addagent', body: agentBody('same-name') })))
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409])
    await steady()
    expect(checkFleet(fleet, manager)).toEqual([])
  })
})

describe('requests while the fleet is reset', () => {
  /** POST /__admin/reset, not awaited (its answer in `reset`); resolves once the fleet is being rebuilt (it has no agents yet). */
  async function resetUnderWay(): Promise<{ reset: Promise<{ statusCode: number }> }> {
    const reset = app.inject({ method: 'POST', url: '/__admin/reset', headers: AUTH })
    while (fleet.resetting() === undefined || fleet.size() !== 0) await new Promise((resolve) => setImmediate(resolve))
    return { reset }
  }

  /** the whole request listener, the fast path in front of fastify, as `fleetsim serve` listens with it */
  let handler: RequestListener
  beforeEach(async () => {
    // Enough agents that rebuilding them takes several turns of the event loop.
    handler = await rebuildPaused(20_000)
  })

  it('refuse an agent or a template under the name of an agent of the new fleet, and leave names unique', async () => {
    const name = fleet.name(0)
    const { reset } = await resetUnderWay()
    const send = viaInject()
    const [agent, template] = await Promise.all([
      send({ method: 'POST', path: 'addagent', body: agentBody(name) }),
      send({ method: 'POST', path: 'addsubtemplate', body: { name: fleet.name(1), 'global-config': { verbatim: 'x' } } })
    ])
    expect((await reset).statusCode).toBe(200)
    expect([agent.status, template.status]).toEqual([409, 409])
    expect(fleet.size()).toBe(20_000)
    expect(checkFleet(fleet, manager)).toEqual([])
  })

  it('answer reads with the new fleet, never with the one being built, through the fast path too', async () => {
    const name = fleet.name(0)
    const server = createServer(handler)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const { reset } = await resetUnderWay()
      const basic = { authorization: `Basic ${Buffer.from(`${AUTH.REST_USER}:${AUTH.REST_PASSWORD}`).toString('base64')}` }
      const [byName, byNameOverSocket, counts, metrics, failNext, consoleList] = await Promise.all([
        viaInject()({ method: 'GET', path: `agentinfo?agentname=${name}` }),
        fetch(`http://127.0.0.1:${port}${REST}/agentinfo?agentname=${name}`, { headers: HEADERS }),
        app.inject({ method: 'GET', url: '/__admin/fleet', headers: AUTH }),
        app.inject({ method: 'GET', url: '/metrics' }),
        app.inject({ method: 'POST', url: `/__admin/agents/${name}/fail-next-reconnect`, headers: AUTH }),
        app.inject({ method: 'GET', url: '/console/api/agents?limit=1', headers: basic })
      ])
      await reset
      expect(byName.status).toBe(200)
      expect(JSON.parse(byName.body).values[0].content.name).toBe(name)
      expect(byNameOverSocket.status).toBe(200)
      expect(counts.json().agents).toBe(20_000)
      const byState = [...metrics.body.matchAll(/^fleetsim_agents\{state="\w+"\} (\d+)$/gm)].map((m) => Number(m[1]))
      expect(byState.reduce((sum, n) => sum + n, 0)).toBe(20_000)
      expect(consoleList.json().total).toBe(20_000)
      expect(failNext.statusCode).toBe(200)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('a list streaming when the fleet is reset', () => {
  it('is cut off, which its client sees as an error, rather than ending early as a whole answer', async () => {
    const server = createServer(await rebuildPaused(20_000))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      // Every agent, about 20 MB: the client reads nothing until the reset is over, so the list is still being written.
      const ended = new Promise<{ status: number; bytes: number; complete: boolean; error?: string }>((resolve) => {
        const request = httpGet(`http://127.0.0.1:${port}${REST}/agentinfo?agentwithmodules=false`, { headers: HEADERS }, (response) => {
          response.pause()
          let bytes = 0
          response.on('data', (chunk: Buffer) => (bytes += chunk.length))
          response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes, complete: response.complete }))
          response.on('error', (error) => resolve({ status: response.statusCode ?? 0, bytes, complete: false, error: error.message }))
          response.on('aborted', () => resolve({ status: response.statusCode ?? 0, bytes, complete: false, error: 'aborted' }))
          void fleet.reset().then(() => response.resume())
        })
        request.on('error', (error) => resolve({ status: 0, bytes: 0, complete: false, error: error.message }))
      })
      const answer = await ended
      expect(answer.status).toBe(200)
      expect(answer.complete).toBe(false)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('a short list made whole when the fleet is reset', () => {
  it('is refused with 503 E_FLEET_RESET rather than sent as a whole answer with part of the agents', async () => {
    // A paused clock, so the list is worth keeping and is made whole over several turns
    // (itemsAnswerInTurns): 1,000 agents with modules, a turn per 16 KiB of text.
    await rebuildPaused(1000)
    const list = (query: string) => app.inject({ url: `${REST}/agentinfo?agentwithmodules=true${query}`, headers: HEADERS })
    // Lists made while the fleet held still make the next one worth keeping (AnswerCache.listsWorthKeeping).
    for (let k = 0; k < 4; k++) expect((await list(`&k=${k}`)).statusCode).toBe(200)
    const answer = list('')
    // The reset begins once the list has made its first turn.
    await new Promise((resolve) => setImmediate(resolve))
    const reset = fleet.reset()
    const refused = await answer
    await reset
    expect(refused.statusCode).toBe(503)
    expect(refused.json().errors[0].code).toBe('E_FLEET_RESET')
    // Once the fleet is rebuilt the same list is whole again.
    const again = await list('')
    expect(again.statusCode).toBe(200)
    expect(again.json().values).toHaveLength(1000)
  })
})

describe('a list asked for just before the fleet is reset', () => {
  // The reset begins once the route has chosen the list's agents and before it reads the first:
  // a long list is made after the rounds in flight end and a turn later (SharedList). Until
  // f06cbec a list of 2,000 agents read the run it belonged to at its first agent, in the fleet
  // being rebuilt, and was sent whole and empty: 200 with no values.
  for (const agents of [2000, 500]) {
    it(`of ${agents} agents is refused with 503 E_FLEET_RESET rather than sent whole and empty`, async () => {
      await rebuildPaused(agents)
      const cursor = fleet.cursor.bind(fleet)
      let reset: Promise<void> | undefined
      fleet.cursor = (states) => {
        reset ??= fleet.reset()
        return cursor(states)
      }
      let answer
      try {
        answer = await app.inject({ url: `${REST}/agentinfo?agentwithmodules=false`, headers: HEADERS })
        await reset
      } finally {
        fleet.cursor = cursor
      }
      expect(reset).toBeDefined()
      expect(answer.statusCode).toBe(503)
      expect(answer.json().errors[0].code).toBe('E_FLEET_RESET')
      // Once the fleet is rebuilt the same list is whole again.
      const again = await app.inject({ url: `${REST}/agentinfo?agentwithmodules=false&again=1`, headers: HEADERS })
      expect(again.statusCode).toBe(200)
      expect(again.json().values).toHaveLength(agents)
    })
  }
})

describe('agents changed while the manager waits for them to reconnect', () => {
  it('are reported as they are when the wait ends: deleted and sent away failed, renamed under the new name', async () => {
    await rebuildPaused(40)
    const online = [...fleet.indices()].filter((i) => fleet.view(i, false).status === 'ONLINE')
    const [deleted, renamed, left, kept] = online
    const uuids = [deleted, renamed, left, kept].map((i) => fleet.uuid(i))
    const names = [deleted, renamed, left, kept].map((i) => fleet.name(i))
    const attempts = fleet.stats.reconnectAttempts
    const reload = app.inject({ method: 'POST', url: `${REST}/updateandreloadagent?agentUuids=${uuids.join(',')}`, headers: HEADERS })
    // The agents are reconnecting: the manager waits for them (virtual time, the clock paused).
    await vi.waitFor(() => expect(fleet.stats.reconnectAttempts).toBe(attempts + 4))
    const changes = [
      app.inject({ method: 'DELETE', url: `${REST}/deleteagent?agentUuids=${uuids[0]}&revokeCert=true`, headers: HEADERS }),
      app.inject({ method: 'PUT', url: `${REST}/modifyagent?agentName=${names[1]}`, headers: HEADERS, payload: JSON.stringify(agentBody('renamed-meanwhile')) }),
      app.inject({ method: 'POST', url: `/__admin/agents/${names[2]}/override`, headers: HEADERS, payload: JSON.stringify({ action: 'leave' }) })
    ]
    expect((await Promise.all(changes)).map((answer) => answer.statusCode)).toEqual([204, 200, 200])
    await fleet.advance(30)
    const answer = (await reload).json() as { values: Array<{ message: string }>; errors: Array<{ message: string }> }
    expect(answer.errors.map((error) => error.message)).toEqual([
      `${names[0]}: agent no longer exists: it was deleted while the manager waited for it to reconnect`,
      `${names[2]}: agent did not reconnect within 10 seconds`
    ])
    expect(answer.values.map((value) => value.message)).toEqual([
      'renamed-meanwhile: configuration updated',
      'renamed-meanwhile: agent reloaded',
      `${names[3]}: configuration updated`,
      `${names[3]}: agent reloaded`
    ])
  })

  it('are reported gone with the run when the fleet is reset during the wait, not reloaded', async () => {
    await rebuildPaused(40)
    const index = [...fleet.indices()].find((i) => fleet.view(i, false).status === 'ONLINE') as number
    const name = fleet.name(index)
    const attempts = fleet.stats.reconnectAttempts
    const reload = app.inject({ method: 'POST', url: `${REST}/updateandreloadagent?agentUuids=${fleet.uuid(index)}`, headers: HEADERS })
    await vi.waitFor(() => expect(fleet.stats.reconnectAttempts).toBe(attempts + 1))
    await fleet.reset()
    expect((await reload).json()).toMatchObject({ values: [], errors: [{ message: `${name}: agent no longer exists: the fleet was reset` }] })
  })
})

