/**
 * Items kept between answers (writeAgentItem, src/http/item-writer.ts): an agent's item is
 * sent again while the agent has not changed and the manager has not polled it since, and
 * written anew (the same text the generic path would write) as soon as any of that moves.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { ItemFragments, writeAgentItem, writeItem, type ItemSource, type Keeping } from '../../src/http/item-writer.js'
import { writeAgentItemBytes, type FigureSource } from '../../src/http/item-bytes.js'
import { ChunkWriter } from '../../src/http/chunk-writer.js'
import type { LinkBase } from '../../src/http/links.js'
import { START } from './helpers.js'

function baseFor(rest: string): LinkBase {
  return { rest, online: { rel: 'online', href: `${rest}/agentinfo?agentstate=ONLINE` }, all: { rel: 'all', href: `${rest}/agentinfo` } }
}
const BASE = baseFor('https://127.0.0.1:9443/manager/mvc/mvc/restservice')

/** What the item source of a test saw: the views read, and whether the last kept the agent's identity text (Fleet.view's keepIdentity). */
interface Seen {
  views: number
  keptIdentity: boolean | undefined
}

/** A fleet as an item source that counts the views read: a kept item is sent without reading one. `fleet()` is the fleet of the moment. */
function counting(fleet: () => FleetEngine, seen: Seen): FigureSource {
  return {
    view: (i, withModules, keepIdentity, figures) => (seen.views++, (seen.keptIdentity = keepIdentity), fleet().view(i, withModules, keepIdentity, figures)),
    figures: (i, figures) => fleet().figures(i, figures),
    agentRevision: (i) => fleet().agentRevision(i),
    polledAt: (i) => fleet().polledAt(i),
    identityRevision: () => fleet().identityRevision()
  }
}

const fleetOf50 = (statusPoll = 60) => createFleet({ agents: 50, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: 'AA', statusPoll })

describe('items kept between answers', () => {
  let fleet: FleetEngine
  const seen: Seen = { views: 0, keptIdentity: undefined }
  const source: ItemSource = counting(() => fleet, seen)
  let fragments: ItemFragments
  let index: number
  beforeEach(async () => {
    fleet = await fleetOf50()
    seen.views = 0
    fragments = new ItemFragments()
    ;[index] = fleet.indices(new Set(['ONLINE']))
  })
  afterEach(async () => {
    await fleet.close()
  })

  /** The item now, and whether it was written (a view read) rather than sent from what was kept. */
  function item(format: 'json' | 'xml' = 'json', withModules = false, base = BASE, keeping: Keeping = 'item') {
    const before = seen.views
    const text = writeAgentItem(format, source, index, withModules, base, fragments, keeping)
    // Whichever way it came, it is what the agent's view writes now.
    expect(text).toBe(writeItem(format, fleet.view(index, withModules), base, new ItemFragments(), false))
    return { text, written: seen.views > before }
  }

  it('is sent again while nothing moved, per format, base and modules', () => {
    expect(item().written).toBe(true)
    expect(item().written).toBe(false)
    expect(item('xml').written).toBe(true)
    expect(item('xml').written).toBe(false)
    expect(item('json', true).written).toBe(true)
    expect(item('json', false).written).toBe(true)
    expect(item('json', false, baseFor('http://[::1]:8080/manager/mvc/mvc/restservice')).written).toBe(true)
    expect(item('json', false, BASE, 'nothing').written).toBe(true)
    expect(seen.keptIdentity).toBe(false)
    expect(item('xml', true).written).toBe(true)
    expect(seen.keptIdentity).toBe(true)
  })

  it('keeps the identity but not the item when asked to keep only that, and sends an item kept before', () => {
    expect(item('json', false, BASE, 'identity').written).toBe(true)
    expect(seen.keptIdentity).toBe(true)
    expect(fragments.size('json')).toBe(1)
    expect(item('json', false, BASE, 'identity').written).toBe(true)
    expect(item().written).toBe(true)
    expect(item().written).toBe(false)
    // An item kept earlier is still sent while it holds.
    expect(item('json', false, BASE, 'identity').written).toBe(false)
  })

  it('is written anew after the manager polls the agent, and only then', async () => {
    const first = item()
    const polled = fleet.polledAt(index)
    // Up to a second before the next poll: the same answer.
    const untilPoll = polled + 60 - fleet.second()
    if (untilPoll > 1) await fleet.advance(untilPoll - 1)
    expect(fleet.polledAt(index)).toBe(polled)
    expect(item()).toEqual({ text: first.text, written: false })
    await fleet.advance(1)
    expect(fleet.polledAt(index)).toBe(polled + 60)
    const next = item()
    expect(next.written).toBe(true)
    expect(JSON.parse(next.text).content.received).toBeGreaterThan(JSON.parse(first.text).content.received)
  })

  it('is written anew once the agent changed on the main thread, or was renamed', async () => {
    item()
    await fleet.stopAgents([index])
    const stopped = item()
    expect(stopped.written).toBe(true)
    expect(JSON.parse(stopped.text).content.status).toBe('ERROR')
    expect(item().written).toBe(false)
    await fleet.modifyAgent(index, 'renamed-agent', fleet.config(index))
    const renamed = item()
    expect(renamed.written).toBe(true)
    expect(JSON.parse(renamed.text).content.name).toBe('renamed-agent')
  })

  it('is written anew once a step worker changed the agent', async () => {
    // A day between polls, so that only the worker's write can move the item.
    await fleet.close()
    fleet = await fleetOf50(86_400)
    ;[index] = fleet.indices(new Set(['ONLINE']))
    await fleet.stopAgents([index])
    await fleet.startAgents([index])
    const restarting = item()
    expect(JSON.parse(restarting.text).content.status).toBe('ERROR')
    const { polledAt, revision } = { polledAt: fleet.polledAt(index), revision: fleet.agentRevision(index) }
    // The worker brings the modules back a few virtual seconds later.
    while (fleet.agentRevision(index) === revision) await fleet.advance(1)
    expect(fleet.polledAt(index)).toBe(polledAt)
    const restarted = item()
    expect(restarted.written).toBe(true)
    expect(JSON.parse(restarted.text).content.status).toBe('ONLINE')
  })
})

describe('items written from their figures (writeAgentItemBytes)', () => {
  let fleet: FleetEngine
  const seen: Seen = { views: 0, keptIdentity: undefined }
  const source = counting(() => fleet, seen)
  let fragments: ItemFragments
  let index: number
  const out = new ChunkWriter()
  beforeEach(async () => {
    fleet = await fleetOf50()
    seen.views = 0
    fragments = new ItemFragments()
    ;[index] = fleet.indices(new Set(['ONLINE']))
  })
  afterEach(async () => {
    await fleet.close()
  })

  /** The item now as bytes, and whether a view was read for it. */
  function item(format: 'json' | 'xml' = 'json') {
    const before = seen.views
    writeAgentItemBytes(out, format, source, index, false, BASE, fragments, 'identity')
    const text = out.take().toString()
    expect(text).toBe(writeItem(format, fleet.view(index, false), BASE, new ItemFragments(), false))
    return { text, viewed: seen.views > before }
  }

  it('read no view while the identity holds, and one once the agent is renamed or reconfigured', async () => {
    expect(item().viewed).toBe(true)
    expect(item().viewed).toBe(false)
    expect(item('xml').viewed).toBe(true)
    expect(item('xml').viewed).toBe(false)
    await fleet.modifyAgent(index, 'renamed-agent', fleet.config(index))
    const renamed = item()
    expect(renamed.viewed).toBe(true)
    expect(JSON.parse(renamed.text).content.name).toBe('renamed-agent')
    expect(item().viewed).toBe(false)
    // Another agent's change moves every identity's key: each is checked again once.
    const [other] = [...fleet.indices()].filter((i) => i !== index)
    await fleet.modifyAgent(other, fleet.name(other), { ...fleet.config(other), address: '192.0.2.9' })
    expect(item().viewed).toBe(true)
    expect(item().viewed).toBe(false)
    await fleet.modifyAgent(index, 'renamed-agent', { ...fleet.config(index), address: '192.0.2.10', port: 4242 })
    expect(JSON.parse(item().text).content['the service']).toBe('192.0.2.10:4242')
  })

  it('show the state the agent is in, whatever state its kept bytes were made with', async () => {
    expect(JSON.parse(item().text).content.status).toBe('ONLINE')
    await fleet.stopAgents([index])
    const stopped = item()
    expect([JSON.parse(stopped.text).content.status, stopped.viewed]).toEqual(['ERROR', false])
    expect(item('xml').text).toContain('<status>ERROR</status>')
  })

  it('stop looking for kept items once those kept are stale', async () => {
    writeAgentItem('json', fleet, index, false, BASE, fragments, 'item')
    expect(fragments.holdsItems('json')).toBe(true)
    expect(fragments.holdsItems('xml')).toBe(false)
    // The kept item is sent while it holds.
    expect(item().viewed).toBe(false)
    expect(fragments.holdsItems('json')).toBe(true)
    await fleet.advance(60)
    // Polled since: the stale item is dropped, and the identity, kept by the text writer without
    // its key, is checked once against a view.
    expect(item().viewed).toBe(true)
    expect(fragments.holdsItems('json')).toBe(false)
    expect(item().viewed).toBe(false)
  })
})
