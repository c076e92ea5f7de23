/**
 * Answers by name written as bytes (keepByName, src/http/routes/agentinfo.ts) against the text
 * writer's answer (item-writer.ts, which item-writer.test.ts holds to the generic path): byte
 * for byte, for one agent and for several, in JSON and XML, with and without modules, written
 * anew, from the bytes kept for an item, after the agents moved, and for agents the API renamed
 * to names that need escaping in both formats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FleetEngine } from '../../src/fleet/fleet.js'
import { AnswerCache } from '../../src/http/answer-cache.js'
import { STREAM_SLAB_BYTES } from '../../src/http/chunk-writer.js'
import { writeItem } from '../../src/http/item-writer.js'
import { ItemFragments } from '../../src/http/kept-items.js'
import { Links, selfLink, type LinkBase } from '../../src/http/links.js'
import { itemsAnswer } from '../../src/http/reply.js'
import { keepByName } from '../../src/http/routes/agentinfo.js'
import type { RouteKit } from '../../src/http/route-kit.js'
import { fleetOfEveryShape } from './record-shapes.js'

const REST = 'http://127.0.0.1:9080/manager/mvc/restservice'
const BASE: LinkBase = {
  rest: REST,
  servicePath: '/manager/mvc/restservice',
  online: { rel: 'online_agents', href: `${REST}/agentinfo?agentstate=ONLINE{&agentname}` },
  all: { rel: 'all_agents', href: `${REST}/agentinfo{?agentname}` }
}

describe('answers by name written as bytes', () => {
  let fleet: FleetEngine
  let kit: Pick<RouteKit, 'answers' | 'fragments' | 'manager'>
  beforeAll(async () => {
    fleet = await fleetOfEveryShape(400, 11)
    // keepByName reads only the manager's fleet.
    kit = { answers: new AnswerCache(fleet), fragments: new ItemFragments(), manager: { fleet } as unknown as RouteKit['manager'] }
  })
  afterAll(async () => {
    await fleet.close()
  })

  /** keepByName's answer for these agents, and the text writer's, as the bytes each is sent as. */
  function both(format: 'json' | 'xml', indices: number[], withModules: boolean, url: string) {
    const request = { url, format, encrypted: false, host: '127.0.0.1:9080' }
    const answer = keepByName(kit, request, BASE, indices, withModules)
    const items = indices.map((index) => writeItem(format, fleet.view(index, withModules), BASE, new ItemFragments(1), false))
    const text = itemsAnswer(format, 'agentinfo', items, [selfLink(BASE, request)])
    return { bytes: answer.body.toString('utf8'), expected: Buffer.from(text).toString('utf8'), text: answer.text }
  }

  function checkAll(round: string) {
    const indices = [...fleet.indices()]
    for (const format of ['json', 'xml'] as const) {
      for (const withModules of [false, true]) {
        for (let k = 0; k < indices.length; k += withModules ? 7 : 1) {
          const one = both(format, [indices[k]], withModules, `/manager/mvc/restservice/agentinfo?agentname=a${k}&r=${round}`)
          expect(one.bytes, `${round} ${format} modules=${withModules} agent ${indices[k]}`).toBe(one.expected)
          expect(one.text).toBe(one.expected)
        }
        const several = indices.filter((_, k) => k % 29 === 3).slice(0, 16)
        const many = both(format, several, withModules, `/manager/mvc/restservice/agentinfo?agentname=many&r=${round}`)
        expect(many.bytes, `${round} ${format} modules=${withModules}, ${several.length} agents`).toBe(many.expected)
      }
    }
  }

  it('are the text writer\'s answers, written anew and from the bytes kept for their items', () => {
    checkAll('first')
    // The second time, every item without modules is copied from the bytes the first kept.
    checkAll('kept')
  })

  it('are kept, when asked for again, in memory of their own, not the writer\'s slab', () => {
    const [index] = [...fleet.indices()]
    const request = { url: '/manager/mvc/restservice/agentinfo?agentname=kept-once', format: 'json' as const, encrypted: false, host: 'h' }
    const first = keepByName(kit, request, BASE, [index], false)
    expect(kit.answers.get(request.url, 'json', false, 'h')).toBeUndefined()
    // Built alone, an answer is a chunk of the writer's slab; the second time its URL is asked for it is kept.
    expect(first.body.buffer.byteLength).toBe(STREAM_SLAB_BYTES)
    const second = keepByName(kit, request, BASE, [index], false)
    const kept = kit.answers.get(request.url, 'json', false, 'h')
    expect(kept).toBe(second)
    expect(second.body.buffer.byteLength).toBeLessThan(STREAM_SLAB_BYTES)
    expect(second.body.toString()).toBe(first.body.toString())
  })

  it('have the self link of their URL as the text writer writes it, also where the URL needs escaping or has no /restservice/', () => {
    const [index] = [...fleet.indices()]
    const urls = [
      '/manager/mvc/restservice/agentinfo?agentname=plain-1&agentwithmodules=false',
      '/manager/mvc/restservice/agentinfo.xml?agentname=a%22b%3Cc',
      // One character each that one format or the other escapes, or writes as more than a byte.
      ...['"', '\\', "'", '<', '>', '&', '\u0001', '\u007f', '\u00e9'].map((c) => `/manager/mvc/restservice/agentinfo?agentname=a${c}b`),
      // Characters a URI may not hold as they are, which the link escapes (asUriText).
      ...['{', '|', '^', '`', '[', '#', '%', '%zz', '%2'].map((c) => `/manager/mvc/restservice/agentinfo?agentname=a${c}b`),
      '/agentinfo?agentname=no-restservice',
      '/manager/mvc/restservice/agentinfo'
    ]
    for (const url of urls) {
      for (const format of ['json', 'xml'] as const) {
        const answer = both(format, [index], false, url)
        expect(answer.bytes, `${format} ${url}`).toBe(answer.expected)
      }
    }
    // An app path that holds `restservice` itself: the self link's path is what follows the whole operations' path.
    const inRestservice = new Links('/a/restservice/mvc').baseOf('http', '127.0.0.1:9080')
    for (const format of ['json', 'xml'] as const) {
      const request = { url: '/a/restservice/mvc/restservice/agentinfo?agentname=x', format, encrypted: false, host: '127.0.0.1:9080' }
      const answer = keepByName(kit, request, inRestservice, [index], false).body.toString('utf8')
      expect(selfLink(inRestservice, request).href).toBe('http://127.0.0.1:9080/a/restservice/mvc/mvc/restservice/agentinfo?agentname=x')
      expect(answer).toBe(itemsAnswer(format, 'agentinfo', [writeItem(format, fleet.view(index, false), inRestservice, new ItemFragments(1), false)], [selfLink(inRestservice, request)]))
      expect(answer).toContain('http://127.0.0.1:9080/a/restservice/mvc/mvc/restservice/agentinfo?agentname=x')
    }
    // A base whose own address needs escaping (a Host header of characters XML escapes), in both formats.
    const odd: LinkBase = { ...BASE, rest: "http://h'&x:1/manager/mvc/restservice" }
    for (const format of ['json', 'xml'] as const) {
      const request = { url: '/manager/mvc/restservice/agentinfo?agentname=odd-base', format, encrypted: false, host: "h'&x:1" }
      const answer = keepByName(kit, request, odd, [index], false)
      const text = itemsAnswer(format, 'agentinfo', [writeItem(format, fleet.view(index, false), odd, new ItemFragments(1), false)], [selfLink(odd, request)])
      expect(answer.body.toString('utf8')).toBe(text)
    }
  })

  it('are the text writer\'s answers after the agents moved and were polled, and after renames that need escaping', async () => {
    await fleet.advance(3600)
    checkAll('moved')
    const [first, second] = [...fleet.indices()]
    await fleet.modifyAgent(first, 'agent-"q"-<&>-ü-€-😀-\u2028-]]>', fleet.config(first))
    await fleet.modifyAgent(second, 'agent-\\back\\slash', { ...fleet.config(second), address: '2001:db8::7', port: 4242 })
    checkAll('renamed')
    checkAll('renamed-kept')
  })
})
