/**
 * Items kept between answers (writeAgentItem, src/http/item-writer.ts; as bytes, by the lists
 * that stream, writeAgentItemBytes in src/http/item-bytes.ts): an agent's item is sent again
 * while the agent has not changed and the manager has not polled it since, and written anew
 * (the same text the generic path would write) as soon as any of that moves. A list by state
 * leaves out an item whose agent shows another state once read (writeWantedItem).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { writeAgentItem, writeItem, writeWantedItem, type Keeping } from '../../src/http/item-writer.js'
import { ItemFragments } from '../../src/http/kept-items.js'
import { writeAgentItemBytes, type FigureSource } from '../../src/http/item-bytes.js'
import { ChunkWriter } from '../../src/http/chunk-writer.js'
import type { LinkBase } from '../../src/http/links.js'
import { START } from './helpers.js'

function baseFor(rest: string): LinkBase {
  return { rest, servicePath: '/manager/mvc/restservice', online: { rel: 'online', href: `${rest}/agentinfo?agentstate=ONLINE` }, all: { rel: 'all', href: `${rest}/agentinfo` } }
}
const BASE = baseFor('https://127.0.0.1:9443/manager/mvc/mvc/restservice')

/** What the item source of a test saw: the views read, and whether the last kept the agent's identity text (Fleet.view's keepIdentity). */
interface Seen {
  views: number
  /** figures read (Fleet.figures): an item kept as bytes is copied without */
  figures: number
  keptIdentity: boolean | undefined
}

/** A fleet as an item source that counts the views read: a kept item is sent without reading one. `fleet()` is the fleet of the moment. */
function counting(fleet: () => FleetEngine, seen: Seen): FigureSource {
  return {
    view: (i, withModules, keepIdentity, figures) => (seen.views++, (seen.keptIdentity = keepIdentity), fleet().view(i, withModules, keepIdentity, figures)),
    figures: (i: number, figures: Float64Array, modules?: Float64Array) => (seen.figures++, modules === undefined ? fleet().figures(i, figures) : fleet().figures(i, figures, modules)),
    moduleHead: (set, k) => fleet().moduleHead(set, k),
    agentRevision: (i) => fleet().agentRevision(i),
    polledAt: (i) => fleet().polledAt(i),
    identityRevision: () => fleet().identityRevision(),
    generatedIdentity: (i) => fleet().generatedIdentity(i)
  }
}

const fleetOf50 = (statusPoll = 60) => createFleet({ agents: 50, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AA', statusPoll })


/** For each test: a paused fleet of 50, an item source over it counting views, fresh fragments, and its first ONLINE agent. */
function eachTest() {
  const seen: Seen = { views: 0, figures: 0, keptIdentity: undefined }
  const t = { fleet: undefined as unknown as FleetEngine, seen, source: undefined as unknown as FigureSource, fragments: new ItemFragments(), index: 0 }
  t.source = counting(() => t.fleet, seen)
  beforeEach(async () => {
    t.fleet = await fleetOf50()
    seen.views = 0
    seen.figures = 0
    t.fragments = new ItemFragments()
    ;[t.index] = t.fleet.indices(new Set(['ONLINE']))
  })
  afterEach(async () => {
    await t.fleet.close()
  })
  return t
}

describe('items kept between answers', () => {
  const t = eachTest()

  /** The item now, and whether it was written (a view read) rather than sent from what was kept. */
  function item(format: 'json' | 'xml' = 'json', withModules = false, base = BASE, keeping: Keeping = 'item') {
    const before = t.seen.views
    const text = writeAgentItem(format, t.source, t.index, withModules, base, t.fragments, keeping)
    // Whichever way it came, it is what the agent's view writes now.
    expect(text).toBe(writeItem(format, t.fleet.view(t.index, withModules), base, new ItemFragments(), false))
    return { text, written: t.seen.views > before }
  }

  it('is sent again while nothing moved, per format, base and modules', () => {
    expect(item().written).toBe(true)
    expect(item().written).toBe(false)
    expect(item('xml').written).toBe(true)
    expect(item('xml').written).toBe(false)
    expect(item('json', true).written).toBe(true)
    // An item without modules is kept as bytes, one with modules as text: each is kept beside the other.
    expect(item('json', false).written).toBe(false)
    expect(item('json', true).written).toBe(false)
    expect(item('json', false, baseFor('http://[::1]:8080/manager/mvc/mvc/restservice')).written).toBe(true)
    expect(item('json', false, BASE, 'nothing').written).toBe(true)
    expect(t.seen.keptIdentity).toBe(false)
    expect(item('xml', true).written).toBe(true)
    expect(t.seen.keptIdentity).toBe(true)
  })

  it('keeps an item without modules as bytes, sends it again as text, and a streamed list copies it', async () => {
    // UTF-8 of more than one byte a character in both formats, and text either format escapes.
    await t.fleet.modifyAgent(t.index, 'agent-ü-€-“q”-<&>-\u2028', t.fleet.config(t.index))
    const out = new ChunkWriter()
    for (const format of ['json', 'xml'] as const) {
      const first = item(format)
      expect(first.written).toBe(true)
      expect(t.fragments.holdsItems(format)).toBe(false)
      // Decoded from its bytes: item() holds it to what the view writes now.
      expect(item(format).written).toBe(false)
      const read = t.seen.views + t.seen.figures
      expect(writeAgentItemBytes(out, format, t.source, t.index, false, BASE, t.fragments, 'item')).toBe('ONLINE')
      expect(out.take().toString('utf8')).toBe(first.text)
      expect(t.seen.views + t.seen.figures).toBe(read)
      // A list by state reads the state the kept bytes show.
      expect(writeWantedItem(format, t.source, t.index, false, BASE, t.fragments, 'item', new Set(['ERROR']))).toBeUndefined()
      expect(writeWantedItem(format, t.source, t.index, false, BASE, t.fragments, 'item', new Set(['ONLINE']))).toBe(first.text)
      expect(t.seen.views + t.seen.figures).toBe(read)
    }
  })

  it('keeps the identity but not the item when asked to keep only that, and sends an item kept before', () => {
    expect(item('json', false, BASE, 'identity').written).toBe(true)
    expect(t.seen.keptIdentity).toBe(true)
    expect(t.fragments.size('json')).toBe(1)
    expect(item('json', false, BASE, 'identity').written).toBe(true)
    expect(item().written).toBe(true)
    expect(item().written).toBe(false)
    // An item kept earlier is still sent while it holds.
    expect(item('json', false, BASE, 'identity').written).toBe(false)
  })

  it('is written anew after the manager polls the agent, and only then', async () => {
    const first = item()
    const polled = t.fleet.polledAt(t.index)
    // Up to a second before the next poll: the same answer.
    const untilPoll = polled + 60 - t.fleet.second()
    if (untilPoll > 1) await t.fleet.advance(untilPoll - 1)
    expect(t.fleet.polledAt(t.index)).toBe(polled)
    expect(item()).toEqual({ text: first.text, written: false })
    await t.fleet.advance(1)
    expect(t.fleet.polledAt(t.index)).toBe(polled + 60)
    const next = item()
    expect(next.written).toBe(true)
    expect(JSON.parse(next.text).content.received).toBeGreaterThan(JSON.parse(first.text).content.received)
  })

  it('is written anew once the agent changed on the main thread, or was renamed', async () => {
    item()
    await t.fleet.stopAgents([t.index])
    const stopped = item()
    expect(stopped.written).toBe(true)
    expect(JSON.parse(stopped.text).content.status).toBe('ERROR')
    expect(item().written).toBe(false)
    await t.fleet.modifyAgent(t.index, 'renamed-agent', t.fleet.config(t.index))
    const renamed = item()
    expect(renamed.written).toBe(true)
    expect(JSON.parse(renamed.text).content.name).toBe('renamed-agent')
  })

  it('is written anew once a step worker changed the agent', async () => {
    // A day between polls, so that only the worker's write can move the item.
    await t.fleet.close()
    t.fleet = await fleetOf50(86_400)
    ;[t.index] = t.fleet.indices(new Set(['ONLINE']))
    await t.fleet.stopAgents([t.index])
    await t.fleet.startAgents([t.index])
    const restarting = item()
    expect(JSON.parse(restarting.text).content.status).toBe('ERROR')
    const { polledAt, revision } = { polledAt: t.fleet.polledAt(t.index), revision: t.fleet.agentRevision(t.index) }
    // The worker brings the modules back a few virtual seconds later.
    while (t.fleet.agentRevision(t.index) === revision) await t.fleet.advance(1)
    expect(t.fleet.polledAt(t.index)).toBe(polledAt)
    const restarted = item()
    expect(restarted.written).toBe(true)
    expect(JSON.parse(restarted.text).content.status).toBe('ONLINE')
  })
})

describe('items of a list by state (writeWantedItem)', () => {
  const t = eachTest()

  it('are left out once their agent shows another state, whether kept or written anew', async () => {
    const online = new Set(['ONLINE'])
    const wanted = (states: Set<string>, keeping: Keeping = 'item') => writeWantedItem('json', t.source, t.index, false, BASE, t.fragments, keeping, states)
    expect(wanted(online)).toBe(writeAgentItem('json', t.fleet, t.index, false, BASE, new ItemFragments(), 'nothing'))
    // Kept now: the same text, sent from what was kept.
    const views = t.seen.views
    expect(wanted(online)).toBeDefined()
    expect(t.seen.views).toBe(views)
    await t.fleet.stopAgents([t.index])
    expect(wanted(online)).toBeUndefined()
    expect(JSON.parse(wanted(new Set(['ERROR'])) as string).content.status).toBe('ERROR')
    // Kept as ERROR: left out of an ONLINE list from what was kept as well.
    expect(wanted(online)).toBeUndefined()
    expect(wanted(online, 'nothing')).toBeUndefined()
  })
})

describe('items written from their figures (writeAgentItemBytes)', () => {
  const t = eachTest()
  const out = new ChunkWriter()

  /** The item now as bytes, and whether a view was read for it. */
  function item(format: 'json' | 'xml' = 'json') {
    const before = t.seen.views
    writeAgentItemBytes(out, format, t.source, t.index, false, BASE, t.fragments, 'identity')
    const text = out.take().toString()
    expect(text).toBe(writeItem(format, t.fleet.view(t.index, false), BASE, new ItemFragments(), false))
    return { text, viewed: t.seen.views > before }
  }

  it('read no view while the identity holds, and one once the agent is renamed or reconfigured', async () => {
    expect(item().viewed).toBe(true)
    expect(item().viewed).toBe(false)
    expect(item('xml').viewed).toBe(true)
    expect(item('xml').viewed).toBe(false)
    await t.fleet.modifyAgent(t.index, 'renamed-agent', t.fleet.config(t.index))
    const renamed = item()
    expect(renamed.viewed).toBe(true)
    expect(JSON.parse(renamed.text).content.name).toBe('renamed-agent')
    expect(item().viewed).toBe(false)
    // Another agent's change moves every identity's key: each is checked again once.
    const [other] = [...t.fleet.indices()].filter((i) => i !== t.index)
    await t.fleet.modifyAgent(other, t.fleet.name(other), { ...t.fleet.config(other), address: '192.0.2.9' })
    expect(item().viewed).toBe(true)
    expect(item().viewed).toBe(false)
    await t.fleet.modifyAgent(t.index, 'renamed-agent', { ...t.fleet.config(t.index), address: '192.0.2.10', port: 4242 })
    expect(JSON.parse(item().text).content['the service']).toBe('192.0.2.10:4242')
  })

  it('show the state the agent is in, whatever state its kept bytes were made with', async () => {
    expect(JSON.parse(item().text).content.status).toBe('ONLINE')
    await t.fleet.stopAgents([t.index])
    const stopped = item()
    expect([JSON.parse(stopped.text).content.status, stopped.viewed]).toEqual(['ERROR', false])
    expect(item('xml').text).toContain('<status>ERROR</status>')
  })

  it('stop looking for kept items once those kept are stale', async () => {
    // An item too long for the room kept as bytes (KEPT_BYTES_ROOM) is kept as text.
    await t.fleet.modifyAgent(t.index, `agent-${'n'.repeat(1400)}`, t.fleet.config(t.index))
    writeAgentItem('json', t.fleet, t.index, false, BASE, t.fragments, 'item')
    expect(t.fragments.holdsItems('json')).toBe(true)
    expect(t.fragments.holdsItems('xml')).toBe(false)
    // The kept item is sent while it holds.
    expect(item().viewed).toBe(false)
    expect(t.fragments.holdsItems('json')).toBe(true)
    await t.fleet.advance(60)
    // Polled since: the stale item is dropped, and the identity, kept by the text writer without
    // its key, is checked once against a view.
    expect(item().viewed).toBe(true)
    expect(t.fragments.holdsItems('json')).toBe(false)
    expect(item().viewed).toBe(false)
  })
})

describe('items of a streamed list kept as bytes (writeAgentItemBytes, keeping item)', () => {
  const t = eachTest()
  const out = new ChunkWriter()

  /** The item now as bytes, the state it was said to show, and whether it was written (its figures or view read) rather than copied. */
  function item(format: 'json' | 'xml' = 'json', keeping: Keeping = 'item', base = BASE, index = t.index) {
    const before = t.seen.views + t.seen.figures
    const state = writeAgentItemBytes(out, format, t.source, index, false, base, t.fragments, keeping)
    const text = out.take().toString()
    // Whichever way it came, it is what the agent's view writes now.
    expect(text).toBe(writeItem(format, t.fleet.view(index, false), base, new ItemFragments(), false))
    expect(state).toBe(t.fleet.view(index, false).status)
    return { text, state, written: t.seen.views + t.seen.figures > before }
  }

  it('is copied while nothing moved, per format and base', () => {
    // The first time its identity is checked against a view, the second its bytes are written from figures and kept.
    expect(item().written).toBe(true)
    expect(item().written).toBe(true)
    expect(item().written).toBe(false)
    expect(item().written).toBe(false)
    expect([item('xml').written, item('xml').written, item('xml').written]).toEqual([true, true, false])
    const other = baseFor('http://[::1]:8080/manager/mvc/mvc/restservice')
    expect([item('json', 'item', other).written, item('json', 'item', other).written, item('json', 'item', other).written]).toEqual([true, true, false])
  })

  it('is not kept with keeping identity, nor copied with keeping nothing', () => {
    expect([item('json', 'identity').written, item('json', 'identity').written, item('json', 'identity').written]).toEqual([true, true, true])
    // The identity is known by now: the first item kept is the one written next.
    expect([item().written, item().written]).toEqual([true, false])
    expect(item('json', 'nothing').written).toBe(true)
  })

  it('is written anew after the manager polls the agent, a change of state, a rename or a reconfiguration', async () => {
    const settled = () => [item(), item()].map((one) => one.written)
    settled()
    expect(item().written).toBe(false)
    await t.fleet.advance(60)
    expect(settled()).toEqual([true, false])
    await t.fleet.stopAgents([t.index])
    const stopped = item()
    expect([stopped.written, stopped.state]).toEqual([true, 'ERROR'])
    expect(item().state).toBe('ERROR')
    await t.fleet.startAgents([t.index])
    expect(item().written).toBe(true)
    await t.fleet.modifyAgent(t.index, 'renamed-agent', t.fleet.config(t.index))
    const renamed = item()
    expect([renamed.written, JSON.parse(renamed.text).content.name]).toEqual([true, 'renamed-agent'])
    expect(settled()).toEqual([true, false])
    const [other] = [...t.fleet.indices()].filter((i) => i !== t.index)
    await t.fleet.modifyAgent(other, t.fleet.name(other), { ...t.fleet.config(other), address: '192.0.2.9' })
    expect(item().written).toBe(true)
  })

  it('is not kept when it is longer than its room, nor once its slot holds another agent', async () => {
    await t.fleet.modifyAgent(t.index, 'a'.repeat(600), t.fleet.config(t.index))
    expect([item().written, item().written, item().written]).toEqual([true, true, true])
    // One slot for two agents: each takes it from the other, and its bytes with it.
    t.fragments = new ItemFragments(1)
    const [, second] = [...t.fleet.indices(new Set(['ONLINE']))]
    for (let round = 0; round < 3; round++) {
      expect(item('json', 'item', BASE, second).written).toBe(true)
      expect(item('json', 'item', BASE, t.index).written).toBe(true)
    }
  })
})
