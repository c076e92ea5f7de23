/**
 * agentinfo items and lists written as bytes (src/http/item-bytes.ts, list-bytes.ts,
 * chunk-writer.ts) against the text writer (item-writer.ts), which item-writer.test.ts holds to
 * the generic path: byte for byte, over every agent of a fleet in both formats, with and
 * without modules, from kept fragments and from fragments made for one item, and over any view.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FleetEngine } from '../../src/fleet/fleet.js'
import { ChunkWriter, hundredthsAt, NUMBER_ROOM, numberAt } from '../../src/http/chunk-writer.js'
import { writeAgentItemBytes, writeItemBytes } from '../../src/http/item-bytes.js'
import { writeAgentItem, writeItem } from '../../src/http/item-writer.js'
import { ItemFragments } from '../../src/http/kept-items.js'
import { cursorOf, ListBytes } from '../../src/http/list-bytes.js'
import { SHARED_CHUNK_BYTES } from '../../src/http/shared-list.js'
import type { LinkBase } from '../../src/http/links.js'
import { itemsAnswer, STREAM_CHUNK_CHARS, textEnvelope } from '../../src/http/reply.js'
import type { AgentView } from '../../src/fleet/fleet-api.js'
import { readAnswer } from '../../src/journal/answer.js'
import { anyView, fleetOfEveryShape } from './record-shapes.js'
import { createFleet } from '../../src/fleet/fleet.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { loadScenarioFileOrThrow } from '../../src/scenario/index.js'
import { START } from './helpers.js'

const REST = 'https://127.0.0.1:9443/manager/mvc/mvc/restservice'
const BASE: LinkBase = {
  rest: REST,
  servicePath: '/manager/mvc/restservice',
  online: { rel: 'online_agents', href: `${REST}/agentinfo?agentstate=ONLINE{&agentname}` },
  all: { rel: 'all_agents', href: `${REST}/agentinfo{?agentname}` }
}
const LINKS = [{ rel: 'self', href: `${REST}/agentinfo?agentstate=ONLINE` }]

/** Writes the items of the tests, each taken as a chunk of its own (a writer's slab is 256 KiB). */
const out = new ChunkWriter()

/** One item written as bytes, alone in its chunk. */
function itemBytes(format: 'json' | 'xml', view: AgentView, fragments: ItemFragments, kept: boolean): string {
  writeItemBytes(out, format, view, fragments.get(format, view, BASE, kept), kept)
  return out.take().toString('utf8')
}

/** The text writer's item, as the bytes it is sent as. */
const asSent = (text: string) => Buffer.from(text).toString('utf8')

/** The text writer's item from a fragment made for it alone (nothing kept). */
const unkept = new ItemFragments(1)
const textOf = (format: 'json' | 'xml', view: AgentView) => writeItem(format, view, BASE, unkept, false)

describe('agentinfo items written as bytes', () => {
  let fleet: FleetEngine
  beforeAll(async () => {
    fleet = await fleetOfEveryShape(800, 5)
  })
  afterAll(async () => {
    await fleet.close()
  })

  it('are the text writer byte for byte for every agent, JSON and XML, with and without modules, kept or not', () => {
    const fragments = new ItemFragments()
    let withModules = 0
    for (const index of fleet.indices()) {
      for (const modules of [false, true]) {
        const view = fleet.view(index, modules)
        if ((view.modules?.length ?? 0) > 0) withModules++
        for (const format of ['json', 'xml'] as const) {
          const text = asSent(textOf(format, view))
          // Twice from the kept fragment: its bytes are encoded the first time.
          expect(itemBytes(format, view, fragments, true)).toBe(text)
          expect(itemBytes(format, view, fragments, true)).toBe(text)
          expect(itemBytes(format, view, fragments, false)).toBe(text)
        }
      }
    }
    expect(withModules).toBeGreaterThan(0)
  })

  it('write any view as the text writer does', () => {
    const fragments = new ItemFragments(16)
    fc.assert(
      fc.property(anyView, fc.constantFrom<'json' | 'xml'>('json', 'xml'), fc.boolean(), (view, format, kept) => {
        expect(itemBytes(format, view, fragments, kept)).toBe(asSent(textOf(format, view)))
      }),
      { numRuns: 3000 }
    )
  })

  it('send an item kept by the text writer, and say the state it shows', () => {
    const fragments = new ItemFragments()
    const [index] = fleet.indices(new Set(['ONLINE']))
    const text = writeAgentItem('json', fleet, index, false, BASE, fragments, 'item')
    let views = 0
    const counted = { ...pick(fleet), view: (...read: Parameters<FleetEngine['view']>) => (views++, fleet.view(...read)) }
    expect(writeAgentItemBytes(out, 'json', counted, index, false, BASE, fragments, 'identity')).toBe('ONLINE')
    expect(out.take().toString()).toBe(text)
    expect(views).toBe(0)
    // Keeping nothing, the item of a generated identity is written from it (no view), and nothing is kept for it.
    const none = new ItemFragments()
    expect(writeAgentItemBytes(out, 'xml', counted, index, false, BASE, none, 'nothing')).toBe('ONLINE')
    expect(out.take().toString()).toBe(textOf('xml', fleet.view(index, false)))
    expect([views, none.size('xml')]).toEqual([0, 0])
    // With modules, from a view.
    expect(writeAgentItemBytes(out, 'xml', counted, index, true, BASE, none, 'nothing')).toBe('ONLINE')
    expect(out.take().toString()).toBe(textOf('xml', fleet.view(index, true)))
    expect([views, none.size('xml')]).toEqual([1, 0])
  })

  it('are written from the figures alone once the identity is kept, as the text writer writes them, in both formats, with and without modules', () => {
    let modulesWritten = 0
    for (const format of ['json', 'xml'] as const) {
      for (const withModules of [false, true]) {
        const fragments = new ItemFragments()
        let views = 0
        const counted = { ...pick(fleet), view: (i: number, m: boolean, k?: boolean, f?: Float64Array) => (views++, fleet.view(i, m, k, f)) }
        const write = (index: number) => {
          const state = writeAgentItemBytes(out, format, counted, index, withModules, BASE, fragments, 'identity')
          return { state, text: out.take().toString('utf8') }
        }
        const indices = [...fleet.indices()]
        for (const index of indices) write(index)
        expect(views).toBe(indices.length)
        // Each agent's identity is kept now: no view is read, and every item is still the text writer's.
        views = 0
        for (const index of indices) {
          const view = fleet.view(index, withModules)
          modulesWritten += view.modules?.length ?? 0
          expect(write(index), `${format} modules=${withModules} agent ${index}`).toEqual({ state: view.status, text: asSent(textOf(format, view)) })
        }
        expect(views).toBe(0)
      }
    }
    expect(modulesWritten).toBeGreaterThan(0)
  })

  it('are written from generated identities when nothing is kept, as the text writer writes them, for any base, OS and version', async () => {
    // A base whose texts the formats escape, and OS and version names that need escaping too.
    const odd: LinkBase = { ...BASE, rest: 'https://h&"<\'>é:9443/manager/mvc/mvc/restservice' }
    const loaded = await loadScenarioFileOrThrow('scenarios/steady-fleet.yaml')
    const weighted = (values: string[]) => values.map((value) => ({ value, probability: 1 / values.length }))
    const names = { os: weighted(['Débian "12" <&>', "Windows 11 'Pro'", 'Windows Server 2019', 'RHEL']), versions: weighted(['6.4.8"&<\\', '7 ✓']) }
    const scenario = compileScenario({ ...loaded, fleet: { ...loaded.fleet, ...names, agents: 300, seed: 11 } }, START, { templateId: () => 0 })
    const escaping = await createFleet({ agents: 300, seed: 11, workers: 1, paused: true, startTime: START, caFingerprint: 'AA', scenario })
    try {
      for (const [engine, base] of [[fleet, BASE], [fleet, odd], [escaping, BASE], [escaping, odd]] as const) {
        // One agent renamed and given an address: written from its view, as every agent with an identity of the API's.
        const [renamed] = engine.indices()
        await engine.modifyAgent(renamed, 'renamé "x"', { ...engine.config(renamed), address: 'fd00::7' })
        let generated = 0
        for (const index of engine.indices()) {
          if (engine.generatedIdentity(index) !== undefined) generated++
          for (const format of ['json', 'xml'] as const) {
            const view = engine.view(index, false)
            expect(writeAgentItemBytes(out, format, engine, index, false, base, new ItemFragments(1), 'nothing')).toBe(view.status)
            expect(out.take().toString('utf8')).toBe(asSent(writeItem(format, view, base, unkept, false)))
          }
        }
        expect(engine.generatedIdentity(renamed)).toBeUndefined()
        expect(generated).toBe(engine.size() - 1)
      }
    } finally {
      await escaping.close()
    }
  })

  it('are copied from the bytes kept for them while their agents hold (keeping item), as the text writer writes them, in both formats', () => {
    for (const format of ['json', 'xml'] as const) {
      const fragments = new ItemFragments()
      let reads = 0
      const counted = {
        ...pick(fleet),
        view: (i: number, m: boolean, k?: boolean, f?: Float64Array) => (reads++, fleet.view(i, m, k, f)),
        figures: (i: number, f: Float64Array, modules?: Float64Array) => (reads++, modules === undefined ? fleet.figures(i, f) : fleet.figures(i, f, modules))
      }
      const indices = [...fleet.indices()]
      // The identity checked against a view, then the item written from figures and kept.
      for (let pass = 0; pass < 2; pass++) {
        for (const index of indices) {
          writeAgentItemBytes(out, format, counted, index, false, BASE, fragments, 'item')
          out.take()
        }
      }
      reads = 0
      for (const index of indices) {
        const view = fleet.view(index, false)
        expect(writeAgentItemBytes(out, format, counted, index, false, BASE, fragments, 'item')).toBe(view.status)
        expect(out.take().toString('utf8')).toBe(asSent(textOf(format, view)))
      }
      // Every item of this fleet fits its room: none is read again.
      expect(reads).toBe(0)
    }
  })

  it('make lists whose chunks join to the answer made whole as text, and note the states they show in order', () => {
    const fragments = new ItemFragments()
    const indices = [...fleet.indices()]
    // Chunks of a list streamed to one request, and of one made for several (SharedList).
    for (const [format, modules, chunkBytes] of [
      ['json', false, STREAM_CHUNK_CHARS],
      ['json', true, STREAM_CHUNK_CHARS],
      ['xml', false, STREAM_CHUNK_CHARS],
      ['xml', true, SHARED_CHUNK_BYTES],
      ['json', false, SHARED_CHUNK_BYTES]
    ] as const) {
      const list = new ListBytes(
        textEnvelope(format, 'agentinfo', LINKS),
        cursorOf(indices),
        (out, index) => writeAgentItemBytes(out, format, fleet, index, modules, BASE, fragments, 'identity'),
        chunkBytes === STREAM_CHUNK_CHARS ? {} : { chunkBytes }
      )
      const chunks: Buffer[] = []
      for (let taken = list.take(); ; taken = list.take()) {
        chunks.push(taken.chunk)
        if (taken.last) break
      }
      const texts = indices.map((index) => textOf(format, fleet.view(index, modules)))
      expect(Buffer.concat(chunks).toString('utf8')).toBe(itemsAnswer(format, 'agentinfo', texts, LINKS))
      // A turn's worth each: at least the chunk's bytes but the last, and past them by less than an item.
      for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThanOrEqual(chunkBytes)
      for (const chunk of chunks) expect(chunk.length).toBeLessThan(chunkBytes + 4096)
      expect(chunks.length).toBeGreaterThan(5)
      const states = [...new Set(indices.map((index) => fleet.view(index, false).status))]
      expect(list.states).toEqual(states)
      // As the journal would read them from the answer's text.
      expect(list.states).toEqual(readAnswer('agentinfo', 200, format, Buffer.concat(chunks).toString()).states)
      expect(states.length).toBeGreaterThan(1)
    }
  })

  it('leave out an item whose agent left the states asked for by the time it was written, separator and all', () => {
    // Agents chosen as ONLINE, every third found ERROR once read (a step worker moved it in between).
    const indices = Array.from({ length: 9000 }, (_, k) => k)
    const write = (out: ChunkWriter, index: number) => {
      out.ascii(`{"agent":${index},"pad":"${'x'.repeat(40)}"}`)
      return index % 3 === 2 ? 'ERROR' : 'ONLINE'
    }
    for (const format of ['json', 'xml'] as const) {
      const list = new ListBytes(textEnvelope(format, 'agentinfo', LINKS), cursorOf(indices), write, { states: new Set(['ONLINE']) })
      const chunks: Buffer[] = []
      for (let taken = list.take(); ; taken = list.take()) {
        chunks.push(taken.chunk)
        if (taken.last) break
      }
      const kept = indices.filter((index) => index % 3 !== 2)
      // Past a slab of 256 KiB: an item taken back after its chunk moved to a new slab is taken back there.
      expect(Buffer.concat(chunks).length).toBeGreaterThan(256 * 1024)
      const texts = kept.map((index) => `{"agent":${index},"pad":"${'x'.repeat(40)}"}`)
      expect(Buffer.concat(chunks).toString()).toBe(itemsAnswer(format, 'agentinfo', texts, LINKS))
      expect(list.states).toEqual(['ONLINE'])
    }
  })

  it('make an empty list', () => {
    const list = new ListBytes(textEnvelope('json', 'agentinfo', LINKS), cursorOf([]), () => 'ONLINE')
    const { chunk, last } = list.take()
    expect(last).toBe(true)
    expect(JSON.parse(chunk.toString())).toEqual({ servicename: 'agentinfo', values: [], links: LINKS })
    expect(list.states).toEqual([])
  })
})

function pick(fleet: FleetEngine) {
  return {
    agentRevision: (i: number) => fleet.agentRevision(i),
    polledAt: (i: number) => fleet.polledAt(i),
    identityRevision: () => fleet.identityRevision(),
    figures: (i: number, out: Float64Array, modules?: Float64Array) => (modules === undefined ? fleet.figures(i, out) : fleet.figures(i, out, modules)),
    moduleHead: (set: number, k: number) => fleet.moduleHead(set, k),
    generatedIdentity: (i: number) => fleet.generatedIdentity(i)
  }
}

describe('the slab writers and ChunkWriter', () => {
  it('write any number as its text would be, within NUMBER_ROOM', () => {
    fc.assert(
      fc.property(fc.oneof(fc.maxSafeNat(), fc.integer(), fc.double(), fc.constantFrom(0, -0, 9, 10, 99, 100, 999_999_999_999_999, 1e15, 1e21, -0.0000012345678901234567, -1.2345678901234567e308)), (n) => {
        const into = Buffer.alloc(NUMBER_ROOM + 2, 0x2a)
        const end = numberAt(into, 1, n)
        expect(into.toString('latin1', 1, end)).toBe('' + n)
        expect(end - 1).toBeLessThanOrEqual(NUMBER_ROOM)
        // Nothing written around it: its room was enough.
        expect(into[0]).toBe(0x2a)
        expect(into[end]).toBe(0x2a)
      }),
      { numRuns: 5000 }
    )
  })

  it('write hundredths as toFixed(2) writes them', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.maxSafeNat().filter((n) => n < 1e15)), (hundredths) => {
        const into = Buffer.alloc(NUMBER_ROOM + 1, 0x2a)
        const end = hundredthsAt(into, 0, hundredths)
        expect(into.toString('latin1', 0, end)).toBe((hundredths / 100).toFixed(2))
        expect(into[end]).toBe(0x2a)
      })
    )
  })

  it('writes the first bytes of a room, what lies past them left out of the chunk, across the end of a slab too', () => {
    const out = new ChunkWriter()
    const room = Buffer.alloc(1280, 0x21)
    room.write('kept item', 0, 'latin1')
    let expected = ''
    // Enough rooms for a slab (256 KiB) to run out part way through one.
    for (let k = 0; k < 300; k++) {
      out.prefix(room, 9)
      out.ascii(`,${k};`)
      expected += `kept item,${k};`
    }
    expect(out.take().toString('latin1')).toBe(expected)
  })

  it('keeps a chunk whole across slabs, and leaves chunks already taken as they were', () => {
    const out = new ChunkWriter() // a writer of its own: the test counts on what it wrote alone
    const taken: Buffer[] = []
    let expected = ''
    const texts: string[] = []
    for (let k = 0; k < 300; k++) {
      // Pieces of every size, up to more than a slab (256 KiB), some not ASCII.
      const text = String.fromCharCode(97 + (k % 26)).repeat((k * 7919) % 5000) + (k % 3 === 0 ? 'é€😀' : '')
      if (k === 150) texts.push('x'.repeat(600_000))
      texts.push(text)
    }
    for (const [k, text] of texts.entries()) {
      out.text(text)
      out.ascii('|')
      expected += text + '|'
      if (k % 7 === 6) taken.push(out.take())
    }
    taken.push(out.take())
    const copies = taken.map((chunk) => Buffer.from(chunk))
    expect(Buffer.concat(taken).toString('utf8')).toBe(expected)
    // Writing on after a take never touches what was taken.
    out.text('z'.repeat(300_000))
    expect(taken.every((chunk, k) => chunk.equals(copies[k]))).toBe(true)
  })
})
