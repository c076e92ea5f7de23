import { createServer, get as httpGet, type IncomingMessage, type ServerResponse } from 'node:http'
import { EventEmitter, once } from 'node:events'
import type { Readable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Answer, AnswerCache, DEFAULT_KEPT_ANSWERS, ListAnswer, MAX_KEPT_AGENTS, MAX_KEPT_LIST_AGENTS, MAX_VARIANTS } from '../../src/http/answer-cache.js'
import { ListBodies } from '../../src/http/list-bodies.js'
import type { StatedChunks } from '../../src/http/shared-list.js'
import { SlabPool } from '../../src/http/slab-pool.js'
import { AUTH, REST, call, harness, type Harness } from './helpers.js'

/** A fleet whose stamps the test moves by hand. */
function stamps(agents = 4) {
  const fleet = {
    rev: 0,
    agentRevs: new Array<number>(agents).fill(0),
    revision: () => fleet.rev,
    agentRevision: (i: number) => fleet.agentRevs[i],
    fleetRevision: () => (fleet.agentRevs.some((r) => r % 2 === 1) ? undefined : fleet.agentRevs.reduce((sum, r) => sum + r, 0)),
    /** lists holding the rounds (holdRounds) */
    holds: 0,
    holdRounds: () => {
      fleet.holds++
      let released = false
      const release = () => {
        if (!released) fleet.holds--
        released = true
      }
      return { ready: Promise.resolve(), release }
    }
  }
  return fleet
}

/** A body read to its end, as text. */
async function text(body: Readable): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of body) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString()
}

/** A request for path `/name`: everything the cache keys an answer by. */
const at = (name: string, format: 'json' | 'xml' = 'json', encrypted = false, host = 'manager:9443') => [`/${name}`, format, encrypted, host] as const

/**
 * A harness whose app keeps its answers in a cache the test holds, to count its hits and joins.
 * While `moving.on`, the fleet's revision moves on every read, as it does when the clock runs so
 * fast that the fleet steps while an answer is made (deterministic, where a running clock is not).
 */
async function harnessWithCache(agents: number): Promise<{ h: Harness; answers: AnswerCache; moving: { on: boolean }; slabs: SlabPool }> {
  // The cache reads the fleet the harness makes, once it is made.
  const made: { h?: Harness } = {}
  const fleet = () => (made.h as Harness).fleet
  const moving = { on: false, by: 0 }
  const revision = () => fleet().revision() + (moving.on ? (moving.by += 2) : moving.by)
  const answers = new AnswerCache({ revision, agentRevision: (index) => fleet().agentRevision(index), fleetRevision: () => fleet().fleetRevision(), holdRounds: () => fleet().holdRounds() })
  const slabs = new SlabPool()
  made.h = await harness(agents, {}, { answers, slabs })
  return { h: made.h, answers, moving, slabs }
}

describe('AnswerCache', () => {
  it('gives a kept answer back while nothing it shows has changed', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    const stamp = cache.stamp([1, 2])
    expect(stamp).toBeDefined()
    cache.keep(...at('k'), stamp!, 'answer')
    expect(cache.get(...at('k'))?.body.toString()).toBe('answer')
    expect(cache.get(...at('k'))?.text).toBe('answer')
    fleet.agentRevs[3] += 2
    expect(cache.get(...at('k'))?.text).toBe('answer')
    expect(cache.hits).toBe(3)
  })

  it('counts as hits only the answers it gives back', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    expect(cache.get(...at('k'))).toBeUndefined()
    cache.keep(...at('k'), cache.stamp([0])!, 'answer')
    expect(cache.get(...at('k', 'xml'))).toBeUndefined()
    fleet.agentRevs[0] += 2
    expect(cache.get(...at('k'))).toBeUndefined()
    expect(cache.hits).toBe(0)
  })

  it('drops an answer once the fleet or one of its agents has changed', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    cache.keep(...at('fleet'), cache.stamp([0])!, 'a')
    cache.keep(...at('agent'), cache.stamp([1, 2])!, 'b')
    fleet.agentRevs[2] += 2
    expect(cache.get(...at('agent'))).toBeUndefined()
    expect(cache.get(...at('fleet'))?.text).toBe('a')
    fleet.rev += 2
    expect(cache.get(...at('fleet'))).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it('keeps nothing read while a change is under way, or changed while it was built', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    fleet.rev = 1
    expect(cache.stamp([0])).toBeUndefined()
    fleet.rev = 2
    fleet.agentRevs[0] = 3
    expect(cache.stamp([0])).toBeUndefined()
    fleet.agentRevs[0] = 4
    const stamp = cache.stamp([0])!
    fleet.agentRevs[0] = 6
    cache.keep(...at('k'), stamp, 'built from a state that is gone')
    expect(cache.get(...at('k'))).toBeUndefined()
  })

  it('does not keep answers about many agents, and drops the oldest when full', () => {
    const fleet = stamps(MAX_KEPT_AGENTS + 1)
    const cache = new AnswerCache(fleet, 2)
    expect(cache.stamp([...Array(MAX_KEPT_AGENTS + 1).keys()])).toBeUndefined()
    for (const key of ['a', 'b', 'c']) cache.keep(...at(key), cache.stamp([0])!, key)
    expect([cache.get(...at('a')), cache.get(...at('b')), cache.get(...at('c'))].map((kept) => kept?.text)).toEqual([undefined, 'b', 'c'])
  })

  it('keeps the answers of one path apart by format, protocol and Host', () => {
    const cache = new AnswerCache(stamps())
    const variants = [at('p'), at('p', 'xml'), at('p', 'json', true), at('p', 'json', false, 'other:9443')]
    variants.forEach((variant, k) => cache.keep(...variant, cache.stamp([0])!, `answer ${k}`))
    expect(variants.map((variant) => cache.get(...variant)?.text)).toEqual(['answer 0', 'answer 1', 'answer 2', 'answer 3'])
    expect(cache.get(...at('p', 'xml', true))).toBeUndefined()
    expect(cache.get(...at('q'))).toBeUndefined()
    // Kept again: replaced, not added.
    cache.keep(...at('p', 'xml'), cache.stamp([0])!, 'newer')
    expect(cache.get(...at('p', 'xml'))?.text).toBe('newer')
    expect(cache.size).toBe(4)
  })

  it('drops the oldest variant of a path past MAX_VARIANTS, and a whole path when full', () => {
    const cache = new AnswerCache(stamps(), MAX_VARIANTS + 1)
    for (let k = 0; k <= MAX_VARIANTS; k++) cache.keep(...at('p', 'json', false, `host-${k}`), cache.stamp([0])!, `answer ${k}`)
    expect(cache.get(...at('p', 'json', false, 'host-0'))).toBeUndefined()
    expect(cache.get(...at('p', 'json', false, `host-${MAX_VARIANTS}`))?.text).toBe(`answer ${MAX_VARIANTS}`)
    expect(cache.size).toBe(MAX_VARIANTS)
    cache.keep(...at('q'), cache.stamp([0])!, 'q')
    expect(cache.size).toBe(MAX_VARIANTS + 1)
    // Full: the next new path pushes out every answer of the oldest one.
    cache.keep(...at('r'), cache.stamp([0])!, 'r')
    expect(cache.get(...at('p', 'json', false, `host-${MAX_VARIANTS}`))).toBeUndefined()
    expect([cache.get(...at('q'))?.text, cache.get(...at('r'))?.text]).toEqual(['q', 'r'])
    expect(cache.size).toBe(2)
  })
})

describe('AnswerCache, answers by name kept when asked for again', () => {
  const answer = (text: string, name: string) => new Answer(text, `/${name}`)

  it('notes a URL asked for once and keeps its answer the second time', () => {
    const cache = new AnswerCache(stamps())
    cache.keepAskedAgain(...at('k'), cache.stamp([0]), answer('first', 'k'))
    expect(cache.get(...at('k'))).toBeUndefined()
    expect(cache.size).toBe(0)
    const second = answer('second', 'k')
    cache.keepAskedAgain(...at('k'), cache.stamp([0]), second)
    // The very answer sent, so what the fast path learns about it (its bytes, journal facts) is kept too.
    expect(cache.get(...at('k'))).toBe(second)
  })

  it('counts a URL asked for in another format or from another Host as asked for again', () => {
    const cache = new AnswerCache(stamps())
    cache.keepAskedAgain(...at('k'), cache.stamp([0]), answer('json', 'k'))
    cache.keepAskedAgain(...at('k', 'xml'), cache.stamp([0]), answer('xml', 'k'))
    expect(cache.get(...at('k', 'xml'))?.text).toBe('xml')
    expect(cache.get(...at('k'))).toBeUndefined()
  })

  it('forgets the oldest URL seen once past its capacity: many agents in turn keep nothing', () => {
    const cache = new AnswerCache(stamps(), 3)
    for (const round of [1, 2]) for (const name of ['a', 'b', 'c', 'd']) cache.keepAskedAgain(...at(name), cache.stamp([0]), answer(`${name}${round}`, name))
    expect(cache.size).toBe(0)
    // Within the capacity a URL asked for again is kept.
    cache.keepAskedAgain(...at('d'), cache.stamp([0]), answer('d3', 'd'))
    expect(cache.get(...at('d'))?.text).toBe('d3')
  })

  it('keeps at once the next answer of a URL whose kept answer went stale', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    for (const text of ['1', '2']) cache.keepAskedAgain(...at('k'), cache.stamp([0]), answer(text, 'k'))
    fleet.agentRevs[0] += 2
    expect(cache.get(...at('k'))).toBeUndefined()
    cache.keepAskedAgain(...at('k'), cache.stamp([0]), answer('3', 'k'))
    expect(cache.get(...at('k'))?.text).toBe('3')
  })

  it('keeps nothing without a stamp or with a bound of 0 bytes, and notes the URL again', () => {
    const cache = new AnswerCache(stamps())
    cache.keepAskedAgain(...at('k'), cache.stamp([0]), answer('1', 'k'))
    cache.keepAskedAgain(...at('k'), undefined, answer('2: built while a change was under way', 'k'))
    expect(cache.get(...at('k'))).toBeUndefined()
    cache.keepAskedAgain(...at('k'), cache.stamp([0]), answer('3', 'k'))
    expect(cache.get(...at('k'))?.text).toBe('3')
    const none = new AnswerCache(stamps(), 16, 0)
    for (const text of ['1', '2', '3']) none.keepAskedAgain(...at('k'), none.stamp([0]), answer(text, 'k'))
    expect(none.size).toBe(0)
  })
})

describe('AnswerCache, lists', () => {
  it('keeps a list while no agent at all has changed, as any may join it', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    cache.keep(...at('list'), cache.stampList(3)!, 'the list')
    expect(cache.get(...at('list'))?.text).toBe('the list')
    // Agent 3 was not in the list; a write to it may have made it ONLINE.
    fleet.agentRevs[3] += 2
    expect(cache.get(...at('list'))).toBeUndefined()
    cache.keep(...at('list'), cache.stampList(3)!, 'the list again')
    fleet.rev += 2
    expect(cache.get(...at('list'))).toBeUndefined()
  })

  it('keeps a list as the bytes it streamed as, charged by their length, its text decoded only when asked for', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet, 100, 40)
    const bytes = Buffer.from('{"values":["é"]}')
    cache.keep(...at('list'), cache.stampList(3)!, new ListAnswer(bytes, '/list'))
    const kept = cache.get(...at('list'))
    expect(kept?.body).toBe(bytes)
    // 17 bytes for 16 characters: charged by its bytes, twice, whether its text is read or not.
    expect(cache.keptBytes).toBe(34)
    expect(kept?.text).toBe('{"values":["é"]}')
    fleet.rev += 2
    expect(cache.get(...at('list'))).toBeUndefined()
    expect(cache.keptBytes).toBe(0)
  })

  it('keeps a list made as chunks as their bytes joined, not when it does not fit or the fleet moved', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet, 100, 40)
    const chunks = [Buffer.from('{"values":['), Buffer.from('1,2'), Buffer.from(']}')]
    const kept = cache.keepChunks(...at('list'), cache.stampList(3)!, chunks)
    expect(cache.get(...at('list'))?.body.toString()).toBe('{"values":[1,2]}')
    expect(kept?.body.toString()).toBe('{"values":[1,2]}')
    // 21 bytes, charged 42: past the bound of 40.
    expect(cache.keepChunks(...at('long'), cache.stampList(3)!, [...chunks, Buffer.from('12345')])).toBeUndefined()
    const stamp = cache.stampList(3)!
    fleet.agentRevs[0] += 2
    expect(cache.keepChunks(...at('moved'), stamp, chunks)).toBeUndefined()
    expect(cache.size).toBe(1)
  })

  it('makes a shared list once the rounds in flight have ended, holds the rounds till then, and keeps it under the stamps read then', async () => {
    const fleet = stamps()
    let roundEnds!: () => void
    const inFlight = new Promise<void>((resolve) => (roundEnds = resolve))
    const held = fleet.holdRounds
    fleet.holdRounds = () => ({ ...held(), ready: inFlight })
    const cache = new AnswerCache(fleet)
    const made: number[] = []
    const source = (): StatedChunks => {
      const parts = ['[1', ',2]']
      return { states: ['ONLINE'], take: () => (made.push(made.length), { chunk: Buffer.from(parts[made.length - 1]), last: made.length === 2 }), stop: () => {}, recycle: () => {} }
    }
    const kept: ListAnswer[] = []
    const { body } = cache.sharedList(...at('list'), new EventEmitter() as ServerResponse, source, 2, (answer) => kept.push(answer))
    const read = text(body)
    for (let k = 0; k < 3; k++) await new Promise((resolve) => setImmediate(resolve))
    expect(made).toEqual([])
    expect(fleet.holds).toBe(1)
    // The round in flight writes an agent before it ends: the list shows the fleet after it.
    fleet.agentRevs[0] += 2
    roundEnds()
    expect(await read).toBe('[1,2]')
    expect(kept.map((answer) => answer.body.toString())).toEqual(['[1,2]'])
    expect(cache.get(...at('list'))?.body.toString()).toBe('[1,2]')
    expect(fleet.holds).toBe(0)
  })

  it('lets the rounds go when every request for a shared list went away before it was made', async () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    const source = (): StatedChunks => ({ states: [], take: () => ({ chunk: Buffer.from('x'), last: false }), stop: () => {}, recycle: () => {} })
    const { body } = cache.sharedList(...at('list'), new EventEmitter() as ServerResponse, source, 2, () => {})
    expect(fleet.holds).toBe(1)
    body.destroy()
    await new Promise((resolve) => setImmediate(resolve))
    expect(fleet.holds).toBe(0)
    expect(cache.get(...at('list'))).toBeUndefined()
  })

  it('takes no hold on the rounds for a list whose making could not begin', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    const source = (): StatedChunks => {
      throw new Error('no list')
    }
    expect(() => cache.sharedList(...at('list'), new EventEmitter() as ServerResponse, source, 2, () => {})).toThrow('no list')
    expect(fleet.holds).toBe(0)
  })

  it('keeps no list read during a write, changed while it was made, or of too many agents', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    fleet.agentRevs[1] = 1
    expect(cache.stampList(3)).toBeUndefined()
    fleet.agentRevs[1] = 2
    const stamp = cache.stampList(3)!
    fleet.agentRevs[0] = 2
    cache.keep(...at('list'), stamp, 'made while agent 0 moved')
    expect(cache.get(...at('list'))).toBeUndefined()
    expect(cache.stampList(MAX_KEPT_LIST_AGENTS + 1)).toBeUndefined()
  })

  it('holds at most its bytes: the oldest answers go first, and one too large is not kept', () => {
    const fleet = stamps()
    // Each answer is charged twice its length (its text and its bytes): room for two of 10.
    const cache = new AnswerCache(fleet, 100, 40)
    for (const key of ['a', 'b', 'c']) cache.keep(...at(key), cache.stampList(1)!, key.repeat(10))
    expect([cache.get(...at('a')), cache.get(...at('b')), cache.get(...at('c'))].map((kept) => kept?.text[0])).toEqual([undefined, 'b', 'c'])
    expect(cache.keptBytes).toBe(40)
    cache.keep(...at('d'), cache.stampList(1)!, 'd'.repeat(21))
    expect(cache.get(...at('d'))).toBeUndefined()
    expect(cache.keptBytes).toBe(40)
    fleet.rev += 2
    expect(cache.get(...at('b'))).toBeUndefined()
    expect(cache.keptBytes).toBe(20)
    cache.clear()
    expect(cache.keptBytes).toBe(0)
  })

  it('says lists are worth keeping until one was made while the fleet moved, and again once two in a row were made while it held still', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet)
    expect(cache.listsWorthKeeping).toBe(true)
    const moved = () => {
      const stamp = cache.stampList(3)!
      fleet.rev += 2
      return stamp
    }
    expect(cache.listMade(moved())).toBe(false)
    expect(cache.listsWorthKeeping).toBe(false)
    expect(cache.listMade(cache.stampList(3)!)).toBe(true)
    expect(cache.listsWorthKeeping).toBe(false)
    // One moved in between: two more in a row.
    expect(cache.listMade(moved())).toBe(false)
    expect(cache.listMade(cache.stampList(3)!)).toBe(true)
    expect(cache.listsWorthKeeping).toBe(false)
    expect(cache.listMade(cache.stampList(3)!)).toBe(true)
    expect(cache.listsWorthKeeping).toBe(true)
    expect(cache.listMade(cache.stampList(3)!)).toBe(true)
    expect(cache.listsWorthKeeping).toBe(true)
  })

  it('keeps nothing with a bound of 0 (--kept-answers-max-bytes 0)', () => {
    const fleet = stamps()
    const cache = new AnswerCache(fleet, 100, 0)
    cache.keep(...at('name'), cache.stamp([0])!, 'by name')
    cache.keep(...at('list'), cache.stampList(1)!, 'a list')
    expect([cache.get(...at('name')), cache.get(...at('list')), cache.size]).toEqual([undefined, undefined, 0])
  })
})

describe('agentinfo by name from kept answers', () => {
  let h: Harness
  let answers: AnswerCache
  beforeAll(async () => {
    ;({ h, answers } = await harnessWithCache(20))
  })
  afterAll(() => h.close())

  it('answers the same bytes again from the cache, and what a change made once it is made', async () => {
    const [index] = h.fleet.indices(new Set(['ONLINE']))
    const name = h.fleet.name(index)
    const first = await call(h.app, 'GET', `agentinfo?agentname=${name}`)
    const hits = answers.hits
    // Kept the second time the URL is asked for, sent from the cache the third.
    const second = await call(h.app, 'GET', `agentinfo?agentname=${name}`)
    expect(answers.hits).toBe(hits)
    const again = await call(h.app, 'GET', `agentinfo?agentname=${name}`)
    expect(answers.hits).toBe(hits + 1)
    expect(second.body).toBe(first.body)
    expect(again.body).toBe(first.body)
    expect(first.json().values[0].content.status).toBe('ONLINE')
    const stopped = await call(h.app, 'POST', `stopagent?agentUuids=${h.fleet.uuid(index)}`)
    expect(stopped.statusCode).toBe(200)
    const after = await call(h.app, 'GET', `agentinfo?agentname=${name}`)
    expect(answers.hits).toBe(hits + 1)
    expect(after.json().values[0].content.status).toBe('ERROR')
  })

  it('shows counters of the new second once the clock has moved', async () => {
    const [index] = [...h.fleet.indices(new Set(['ONLINE']))].slice(-1)
    const name = h.fleet.name(index)
    const before = (await call(h.app, 'GET', `agentinfo?agentname=${name}`)).json().values[0].content
    await h.fleet.advance(3600)
    const after = (await call(h.app, 'GET', `agentinfo?agentname=${name}`)).json().values[0].content
    expect(after.received).toBeGreaterThan(before.received)
  })

  it('keeps answers apart by format, host and query', async () => {
    const name = h.fleet.name(6)
    const json = await call(h.app, 'GET', `agentinfo?agentname=${name}`)
    const xml = await call(h.app, 'GET', `agentinfo?agentname=${name}`, undefined, { accept: 'application/xml' })
    const otherHost = await call(h.app, 'GET', `agentinfo?agentname=${name}`, undefined, { host: 'manager.example:9443' })
    const modules = await call(h.app, 'GET', `agentinfo?agentname=${name}&agentwithmodules=true`)
    expect(xml.body.startsWith('<?xml')).toBe(true)
    expect(otherHost.json().links[0].href).toContain('://manager.example:9443/')
    expect(json.json().values[0].content.modules).toBeUndefined()
    expect(modules.json().values[0].content.modules.length).toBeGreaterThan(0)
    // The URL was asked for four times, so the last answer made for it is kept: the XML one,
    // for another Host, with modules (another query) are not the JSON one.
    const hits = answers.hits
    expect((await call(h.app, 'GET', `agentinfo?agentname=${name}`)).body).toBe(json.body)
    expect(answers.hits).toBe(hits)
    expect((await call(h.app, 'GET', `agentinfo?agentname=${name}`)).body).toBe(json.body)
    expect(answers.hits).toBe(hits + 1)
  })

  it('finds a renamed agent by its new name only', async () => {
    const old = h.fleet.name(7)
    expect((await call(h.app, 'GET', `agentinfo?agentname=${old}`)).statusCode).toBe(200)
    await h.fleet.modifyAgent(7, 'renamed-7', h.fleet.config(7))
    expect((await call(h.app, 'GET', `agentinfo?agentname=${old}`)).statusCode).toBe(404)
    expect((await call(h.app, 'GET', 'agentinfo?agentname=renamed-7')).json().values[0].content.name).toBe('renamed-7')
  })
})

describe('agentinfo lists from kept answers', () => {
  let h: Harness
  let answers: AnswerCache
  let moving: { on: boolean }
  let slabs: SlabPool
  beforeAll(async () => {
    // More agents than a list sends at once without keeping it (it would stream).
    ;({ h, answers, moving, slabs } = await harnessWithCache(1500))
  })
  afterAll(() => h.close())

  it.each([
    ['JSON', 'agentinfo?agentstate=ONLINE', {}],
    ['XML', 'agentinfo?agentstate=ONLINE', { accept: 'application/xml' }],
    ['every agent, with modules', 'agentinfo?agentwithmodules=true', {}]
  ])('keeps a long list (%s) as the bytes it streamed as, and sends them again until the fleet moves', async (_label, path, headers) => {
    const first = await call(h.app, 'GET', path, undefined, headers)
    expect(first.headers['content-length']).toBeUndefined()
    const hits = answers.hits
    const again = await call(h.app, 'GET', path, undefined, headers)
    expect(answers.hits).toBe(hits + 1)
    expect(again.headers['content-length']).toBe(String(Buffer.byteLength(first.body)))
    expect(again.body).toBe(first.body)
    await h.fleet.advance(60)
    const later = await call(h.app, 'GET', path, undefined, headers)
    expect(answers.hits).toBe(hits + 1)
    expect(later.body).not.toBe(first.body)
    expect(later.body.length).toBeGreaterThan(1_000_000)
  })

  it('tells the kept list each response the route sends it to (its memory waits for them: ListAnswer)', async () => {
    const path = 'agentinfo?agentstate=ONLINE'
    await h.fleet.advance(1)
    await call(h.app, 'GET', path)
    const sending = vi.spyOn(ListAnswer.prototype, 'sendingTo')
    try {
      const again = await call(h.app, 'GET', path)
      expect(again.headers['content-length']).toBeDefined()
      expect(sending).toHaveBeenCalledTimes(1)
    } finally {
      sending.mockRestore()
    }
  })

  it('makes a list once for requests that come together', async () => {
    await h.fleet.advance(1)
    const [hits, joins] = [answers.hits, answers.joins]
    const together = await Promise.all([1, 2, 3].map(() => call(h.app, 'GET', 'agentinfo?agentstate=ONLINE')))
    expect(answers.joins).toBe(joins + 2)
    expect(answers.hits).toBe(hits)
    expect(new Set(together.map((answer) => answer.body)).size).toBe(1)
  })

  it('keeps no list the fleet moved under while it was made, and keeps the first made while it held still', async () => {
    const path = 'agentinfo?agentstate=ONLINE'
    const kept = (answer: { headers: Record<string, unknown> }) => answer.headers['content-length'] !== undefined
    const hits = answers.hits
    moving.on = true
    const whileMoving = [await call(h.app, 'GET', path), await call(h.app, 'GET', path)]
    moving.on = false
    const madeWhileStill = await call(h.app, 'GET', path)
    const sentAgain = [await call(h.app, 'GET', path), await call(h.app, 'GET', path)]
    expect([...whileMoving, madeWhileStill, ...sentAgain].map(kept)).toEqual([false, false, false, true, true])
    expect(answers.hits).toBe(hits + 2)
    // The clock is paused: every answer shows the same fleet, however it was sent.
    expect(new Set([...whileMoving, madeWhileStill, ...sentAgain].map((answer) => answer.body)).size).toBe(1)
  })

  it('streams a list once for requests that come together while the fleet moves', async () => {
    const path = 'agentinfo?agentstate=ONLINE'
    moving.on = true
    await call(h.app, 'GET', path)
    const joins = answers.joins
    const reused = slabs.reused
    const together = await Promise.all([1, 2, 3].map(() => call(h.app, 'GET', path)))
    moving.on = false
    expect(answers.joins).toBe(joins + 2)
    // Written into the memory of the list before, which had been sent (slab-pool.ts).
    expect(slabs.reused).toBeGreaterThan(reused)
    expect(together.map((answer) => answer.headers['content-length'])).toEqual([undefined, undefined, undefined])
    expect(new Set(together.map((answer) => answer.body)).size).toBe(1)
    expect(together[0].json().values.length).toBeGreaterThan(1000)
    // The journal has the states each one showed, read once as the list was made.
    const journal = await h.app.inject({ method: 'GET', url: '/__admin/requests?limit=3', headers: AUTH })
    const entries = (journal.json() as { entries: Array<{ agentStates: string[] }> }).entries
    expect(entries.map((entry) => entry.agentStates)).toEqual([['ONLINE'], ['ONLINE'], ['ONLINE']])
  })

  it('drops a kept list when one agent leaves it', async () => {
    const path = 'agentinfo?agentstate=ONLINE'
    const first = (await call(h.app, 'GET', path)).json()
    const leaving = first.values[10].content
    expect((await call(h.app, 'POST', `stopagent?agentUuids=${leaving.uuid}`)).statusCode).toBe(200)
    const after = (await call(h.app, 'GET', path)).json()
    expect(after.values.length).toBe(first.values.length - 1)
    expect(after.values.map((v: { content: { uuid: string } }) => v.content.uuid)).not.toContain(leaving.uuid)
  })
})

describe('a list too long for --kept-answers-max-bytes', () => {
  it('streams, and its chunks are not joined to be thrown away', async () => {
    // A list of 1,500 agents is about 1.3 MB of JSON, charged twice: more than 1 MB holds.
    const h = await harness(1500, { keptAnswersMaxBytes: 1_000_000 })
    const server = createServer(h.built.handler).listen(0, '127.0.0.1')
    await once(server, 'listening')
    // Over a socket, read without joining it here: a join of the list's length is the server's.
    // (the lengths when it is called: a list's array of chunks is emptied once they are sent)
    const concat = Buffer.concat.bind(Buffer)
    const joined: number[] = []
    const joins = vi.spyOn(Buffer, 'concat').mockImplementation((list, length) => {
      joined.push(list.reduce((bytes, chunk) => bytes + chunk.length, 0))
      return concat(list, length)
    })
    // A list kept is joined into memory used again (ListBodies), not by Buffer.concat.
    const join = ListBodies.prototype.join
    const bodyJoins = vi.spyOn(ListBodies.prototype, 'join').mockImplementation(function (this: ListBodies, chunks, bytes) {
      joined.push(bytes)
      return join.call(this, chunks, bytes)
    })
    try {
      const { port } = server.address() as AddressInfo
      const read = () =>
        new Promise<{ bytes: number; length: string | undefined }>((resolve, reject) => {
          httpGet({ host: '127.0.0.1', port, path: `${REST}/agentinfo?agentwithmodules=false`, headers: { ...AUTH, accept: 'application/json' } }, (res) => {
            let bytes = 0
            res.on('data', (chunk: Buffer) => (bytes += chunk.length))
            res.on('end', () => resolve({ bytes, length: res.headers['content-length'] }))
          }).on('error', reject)
        })
      const first = await read()
      const again = await read()
      expect(first.bytes).toBeGreaterThan(1_000_000)
      expect([first.length, again.length]).toEqual([undefined, undefined])
      expect(joined.filter((bytes) => bytes > 500_000)).toEqual([])
    } finally {
      joins.mockRestore()
      bodyJoins.mockRestore()
      server.close()
      await h.close()
    }
  })
})

describe("a kept list's memory", () => {
  it('is joined into again only once every response it was sent to has finished, so a slow reader gets the bytes it was sent', async () => {
    // 20,000 agents: an XML list of about 20 MB, more than the sockets between the two ends
    // hold, so a client that reads nothing leaves its response unfinished. The bound lets it be kept.
    const made: { h?: Harness } = {}
    const fleet = () => (made.h as Harness).fleet
    const answers = new AnswerCache(
      { revision: () => fleet().revision(), agentRevision: (i) => fleet().agentRevision(i), fleetRevision: () => fleet().fleetRevision(), holdRounds: () => fleet().holdRounds() },
      DEFAULT_KEPT_ANSWERS,
      64 * 1024 * 1024
    )
    const h = (made.h = await harness(MAX_KEPT_LIST_AGENTS, {}, { answers }))
    const server = createServer(h.built.handler).listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    const path = `${REST}/agentinfo?agentstate=ONLINE`
    const ask = () =>
      new Promise<IncomingMessage>((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port, path, headers: { ...AUTH, accept: 'application/xml' } }, resolve).on('error', reject)
      })
    const read = async (res: IncomingMessage) => {
      const chunks: Buffer[] = []
      for await (const chunk of res) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks)
    }
    const keptNow = () => answers.get(path, 'xml', false, `127.0.0.1:${port}`) as ListAnswer
    try {
      const first = await read(await ask())
      const a = keptNow()
      expect(a).toBeInstanceOf(ListAnswer)
      expect(a.body.equals(first)).toBe(true)
      // Sent the kept list, and reads none of it yet.
      const slow = await ask()
      slow.pause()
      expect(slow.headers['content-length']).toBe(String(first.length))
      // The fleet moves: the next request drops the kept list and has one made and kept.
      await h.fleet.advance(60)
      const second = await read(await ask())
      const b = keptNow()
      expect(b.body.equals(second)).toBe(true)
      expect(second.equals(first)).toBe(false)
      // Compared as a boolean: a failure would print both memories whole.
      expect(b.body.buffer === a.body.buffer).toBe(false)
      // The slow client gets the list it was sent, whole.
      expect((await read(slow)).equals(first)).toBe(true)
      // Its response finished: the first list's memory holds a list kept later.
      await h.fleet.advance(60)
      await read(await ask())
      const c = keptNow()
      expect(c.body.buffer === a.body.buffer || c.body.buffer === b.body.buffer).toBe(true)
    } finally {
      server.close()
      await h.close()
    }
  })
})
