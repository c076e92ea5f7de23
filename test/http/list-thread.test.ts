import { afterAll, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { buildApp, type FleetsimApp } from '../../src/app.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { ListThread, type ListThreadFleet } from '../../src/http/list-thread.js'
import { textEnvelope, type TakenChunk } from '../../src/http/reply.js'
import { CA, REST, START, harness, type Harness } from './helpers.js'

const HEADERS = { REST_USER: 'admin', REST_PASSWORD: 'secret', accept: 'application/json' }

type Chunks = { take(): TakenChunk<Buffer> | Promise<TakenChunk<Buffer>> }

/** The whole body of a list: the chunks taken until the last, from `first` (taken already) on. */
async function drain(list: Chunks, first = list.take()): Promise<string> {
  const chunks: Buffer[] = []
  for (let next = first; ; next = list.take()) {
    const { chunk, last } = await next
    chunks.push(Buffer.from(chunk))
    if (last) return Buffer.concat(chunks).toString()
  }
}

/** How many agents a JSON list holds. */
const agentsIn = (body: string) => (JSON.parse(body) as { values: unknown[] }).values.length

/** A main-thread change under way (FleetCore.changeCell odd) while `during` runs. */
async function mainThreadWriting<T>(fleet: FleetEngine, during: () => Promise<T>): Promise<T> {
  const cell = fleet.replicaState(undefined).changeCell
  const before = Atomics.load(cell, 0)
  Atomics.store(cell, 0, before + 1)
  try {
    return await during()
  } finally {
    Atomics.store(cell, 0, before + 2)
  }
}

const turns = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('lists made on the list thread', () => {
  // One fleet, read by an app making its long lists on the list thread and one making them on
  // the main thread: the two must send the same bytes.
  let h: Harness
  let mainThread: FleetsimApp
  // Spied in each test (the config restores spies after each): the lists the thread was asked for.
  let made: MockInstance<ListThread['make']>
  beforeEach(() => {
    made = vi.spyOn(ListThread.prototype, 'make')
  })
  beforeAll(async () => {
    h = await harness(1500)
    mainThread = await buildApp({ fleet: h.fleet, ca: CA, processMetrics: false, listThread: false }, { user: 'admin', password: 'secret' })
  })
  afterAll(async () => {
    await mainThread.close()
    await h.close()
  })

  /** Both apps' answers to `url`, asked in turn with `headers`, each a list made anew (a query of its own: no kept answer). */
  let asked = 0
  async function both(path: string, headers: Record<string, string> = {}) {
    const url = `${REST}/${path}${path.includes('?') ? '&' : '?'}n=${asked++}`
    const before = made.mock.calls.length
    const thread = await h.app.inject({ url, headers: { ...HEADERS, ...headers } })
    // Streamed (no length) and made on the thread.
    expect(thread.headers['content-length']).toBeUndefined()
    expect(made.mock.calls.length).toBe(before + 1)
    const main = await mainThread.app.inject({ url, headers: { ...HEADERS, ...headers } })
    expect(main.headers['content-length']).toBeUndefined()
    return { thread, main }
  }

  const SHAPES: Array<[string, Record<string, string>]> = [
    ['agentinfo?agentstate=ONLINE', {}],
    ['agentinfo.xml?agentstate=ONLINE', {}],
    ['agentinfo?agentwithmodules=true', {}],
    ['agentinfo?agentwithmodules=true', { accept: 'application/xml' }],
    ['agentinfo?agentstate=ONLINE&agentstate=OFFLINE&agentstate=ERROR', {}],
    ['agentinfo?agentwithmodules=false', { host: 'manager.example:9443' }]
  ]

  it('sends every list shape byte for byte as the main thread makes it, and the same again once its items are kept', async () => {
    for (const [path, headers] of SHAPES) {
      for (let k = 0; k < 2; k++) {
        const { thread, main } = await both(path, headers)
        expect(thread.statusCode, path).toBe(200)
        expect(thread.body, path).toBe(main.body)
      }
    }
  })

  it('shows what the API changed and the clock moved since the last list: renamed, added and stopped agents, new figures', async () => {
    const fleet = h.fleet
    await fleet.modifyAgent(3, 'renamed-by-the-api', fleet.config(3))
    await fleet.addAgent({ name: 'added-by-the-api', config: fleet.config(5) })
    await fleet.stopAgents([8, 9])
    await fleet.advance(3600)
    for (const [path, headers] of SHAPES) {
      const { thread, main } = await both(path, headers)
      expect(thread.body, path).toBe(main.body)
    }
    const every = (await both('agentinfo?agentwithmodules=false')).thread.json() as { values: Array<{ content: { name: string; status: string } }> }
    const names = every.values.map((value) => value.content.name)
    expect(names).toContain('renamed-by-the-api')
    expect(names).toContain('added-by-the-api')
    expect(every.values[8].content.status).toBe('ERROR')
  })

  it('fails the list with 503 E_FLEET_RESET when the fleet is reset while it is made, and makes the new fleet\'s next', async () => {
    const fleet = h.fleet
    const make = ListThread.prototype.make
    let reset: Promise<void> | undefined
    // The reset begins once the thread was asked for the list.
    made.mockImplementationOnce(function (this: ListThread, ...args) {
      const id = make.apply(this, args)
      reset = fleet.reset()
      return id
    })
    const answer = await h.app.inject({ url: `${REST}/agentinfo?agentwithmodules=false&reset=1`, headers: HEADERS })
    await reset
    expect(reset).toBeDefined()
    expect(answer.statusCode).toBe(503)
    expect(answer.json().errors[0].code).toBe('E_FLEET_RESET')
    const { thread, main } = await both('agentinfo?agentwithmodules=false')
    expect(thread.statusCode).toBe(200)
    expect(thread.body).toBe(main.body)
  })
})

describe('an agent renamed while the list thread makes a list', () => {
  let h: Harness
  beforeAll(async () => {
    // Long enough a list that the rename lands while it is made, before its last agents.
    h = await harness(20_000)
  })
  afterAll(() => h.close())

  it('is shown whole, old or new, never its old name with its new state', async () => {
    const made = vi.spyOn(ListThread.prototype, 'make')
    const index = 19_990
    const before = h.fleet.view(index, false)
    const listing = h.app.inject({ url: `${REST}/agentinfo?agentwithmodules=false`, headers: HEADERS })
    while (made.mock.calls.length === 0) await new Promise((resolve) => setImmediate(resolve))
    // Found by a review: the thread read the agents' memory live but the overrides from its copy.
    const renamed = await h.app.inject({
      method: 'PUT',
      url: `${REST}/modifyagent?agentName=${before.name}`,
      headers: { ...HEADERS, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'renamed-while-listed', 'global-config': { address: '192.0.2.77', port: 4041, 'ca-fingerprint': CA.fingerprint, mode: 'Unmanaged' } })
    })
    expect(renamed.statusCode).toBe(200)
    const values = (await listing).json().values as Array<{ content: { uuid: string; name: string; status: string; address: string } }>
    const shown = values.find((value) => value.content.uuid === before.uuid)?.content
    const whole = [
      [before.name, before.status, before.address],
      ['renamed-while-listed', 'UNMANAGED', '192.0.2.77']
    ].map((parts) => parts.join(' '))
    expect(whole).toContain([shown?.name, shown?.status, shown?.address].join(' '))
  })
})

describe('the list thread', () => {
  let fleet: FleetEngine
  let thread: ListThread
  beforeAll(async () => {
    fleet = await createFleet({ agents: 1200, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
    thread = new ListThread(fleet, '/manager/mvc')
  })
  afterAll(async () => {
    await thread.close()
    await fleet.close()
  })

  const asked = () => ({
    format: 'json' as const,
    withModules: false,
    protocol: 'http',
    host: 'localhost',
    envelope: textEnvelope('json', 'agentinfo', []),
    states: undefined,
    keeping: 'item' as const
  })

  it('waits while the main thread writes agents, and reads them once it is done', async () => {
    const list = thread.list(asked())
    let taken = false
    // (a promise in an object: returned bare, the change would wait for it)
    const { first } = await mainThreadWriting(fleet, async () => {
      const first = Promise.resolve(list.take())
      void first.then(() => (taken = true))
      // The thread starts and waits: nothing comes while the change is under way.
      await turns(200)
      expect(taken).toBe(false)
      return { first }
    })
    expect(agentsIn(await drain(list, first))).toBe(1200)
  })

  it('stops a list that is not wanted while it waits for the main thread, and makes the next', async () => {
    const next = await mainThreadWriting(fleet, async () => {
      const unwanted = thread.list(asked())
      Promise.resolve(unwanted.take()).catch(() => {})
      await turns(50)
      unwanted.stop()
      // Were the thread still waiting on the unwanted list once the change is over, this one
      // would come after it; it comes, and whole.
      const next = thread.list(asked())
      return { next, first: next.take() }
    })
    expect(agentsIn(await drain(next.next, next.first))).toBe(1200)
  })

  it('takes the state a list carried that was not wanted before it was made: the lists after it come without it', async () => {
    // As if the API renamed an agent after the first list: the overrides move on, and only the
    // list asked for next carries them (ListThread hands each part of the state over once).
    // The overrides' revision as the thread sees it move (AgentOverrides.revisionCell), faked too.
    let renamed = false
    const revision = () => fleet.replicaOverrides().revision + (renamed ? 1000 : 0)
    const revisionCell = new Int32Array(new SharedArrayBuffer(4))
    const renaming: ListThreadFleet = {
      get run() {
        return fleet.run
      },
      replicaState(seen) {
        Atomics.store(revisionCell, 0, revision())
        const state = { ...fleet.replicaState(undefined), identityRevision: revision(), overridesCell: revisionCell }
        if (seen?.run === state.run) delete state.runData
        if (seen?.run === state.run && seen.identityRevision === state.identityRevision) delete state.overrides
        return state
      },
      replicaOverrides: () => ({ ...fleet.replicaOverrides(), revision: revision() })
    }
    const own = new ListThread(renaming, '/manager/mvc')
    try {
      const after = await mainThreadWriting(fleet, async () => {
        // The first list waits for the change under way; the next two queue behind it.
        const first = own.list(asked())
        const firstDone = drain(first)
        await turns(50)
        renamed = true
        const unwanted = own.list(asked())
        Promise.resolve(unwanted.take()).catch(() => {})
        unwanted.stop()
        const next = own.list(asked())
        return { firstDone, next: drain(next) }
      })
      expect(agentsIn(await after.firstDone)).toBe(1200)
      expect(agentsIn(await after.next)).toBe(1200)
    } finally {
      await own.close()
    }
  })

  it('fails the lists it was making when it dies, and starts again for the next', async () => {
    const { failed } = await mainThreadWriting(fleet, async () => {
      // The list waits for the change: the thread is still making it when it is ended.
      const list = thread.list(asked())
      const failed = Promise.resolve(list.take())
      failed.catch(() => {})
      await turns(50)
      await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate()
      return { failed }
    })
    await expect(failed).rejects.toThrow(/list thread exited/)
    expect(agentsIn(await drain(thread.list(asked())))).toBe(1200)
  })
})
