/**
 * The item writer (src/http/item-writer.ts) against the generic path it replaces: the record
 * object (records.ts) through the response schema's serializer (fast-json-stringify, as
 * fastify compiles it) or xmlElement. Byte for byte, over every agent of a fleet in both
 * formats, with and without modules, and over views with every awkward value fast-check finds.
 */
import fc from 'fast-check'
import fjs from 'fast-json-stringify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FleetEngine } from '../../src/fleet/fleet.js'
import type { AgentView } from '../../src/fleet/fleet-api.js'
import { writeItem } from '../../src/http/item-writer.js'
import { ItemFragments } from '../../src/http/kept-items.js'
import { agentinfoItemLinks, type LinkBase } from '../../src/http/links.js'
import { agentRecord } from '../../src/http/records.js'
import { AgentinfoItem } from '../../src/http/schemas.js'
import { xmlElement } from '../../src/http/xml-writer.js'
import { anyView, fleetOfEveryShape } from './record-shapes.js'

const serialize = fjs(AgentinfoItem as object) as (item: unknown) => string

function baseFor(rest: string): LinkBase {
  return {
    rest,
    servicePath: '/manager/mvc/restservice',
    online: { rel: 'online_agents_with_modules', href: `${rest}/agentinfo?agentstate=ONLINE&agentwithmodules=true{&agentstate}` },
    all: { rel: 'all_agents_with_modules', href: `${rest}/agentinfo?agentwithmodules=true{&agentname}` }
  }
}

const BASE = baseFor('https://127.0.0.1:9443/manager/mvc/mvc/restservice')

/** What the generic path writes for one view: the item object, then the serializer or xmlElement. */
function generic(format: 'json' | 'xml', view: AgentView, base: LinkBase): string {
  const item = { content: agentRecord(view), links: agentinfoItemLinks(base, view.name) }
  return format === 'json' ? serialize(item) : xmlElement('values', item)
}

describe('agentinfo items written as text', () => {
  let fleet: FleetEngine
  beforeAll(async () => {
    fleet = await fleetOfEveryShape(1500, 11)
  })
  afterAll(async () => {
    await fleet.close()
  })

  it('are the generic path byte for byte for every agent, JSON and XML, with and without modules', () => {
    const fragments = new ItemFragments()
    const states = new Set<string>()
    let ipv6 = 0
    let withModules = 0
    for (const index of fleet.indices()) {
      for (const modules of [false, true]) {
        const view = fleet.view(index, modules)
        states.add(view.status)
        if (view.address.includes(':')) ipv6++
        if ((view.modules?.length ?? 0) > 0) withModules++
        for (const format of ['json', 'xml'] as const) {
          // Twice: the second time from the kept fragment.
          expect(writeItem(format, view, BASE, fragments)).toBe(generic(format, view, BASE))
          expect(writeItem(format, view, BASE, fragments)).toBe(generic(format, view, BASE))
        }
      }
    }
    // The fleet really had the shapes the test is about.
    expect(states.size).toBeGreaterThan(2)
    expect(ipv6).toBeGreaterThan(0)
    expect(withModules).toBeGreaterThan(0)
  })

  it('writes the same without keeping anything, as a list longer than the bound is written', () => {
    const fragments = new ItemFragments(4)
    const indices = [...fleet.indices()].slice(0, 50)
    for (const index of indices) {
      const view = fleet.view(index, true)
      for (const format of ['json', 'xml'] as const) expect(writeItem(format, view, BASE, fragments, false)).toBe(generic(format, view, BASE))
    }
    expect([fragments.size('json'), fragments.size('xml')]).toEqual([0, 0])
    // Kept, the bound holds.
    for (const index of indices) writeItem('json', fleet.view(index, false), BASE, fragments)
    expect(fragments.size('json')).toBe(4)
  })

  it('writes an agent anew when its name or address changed, or the link base is another', () => {
    const fragments = new ItemFragments()
    const [index] = fleet.indices()
    const view = fleet.view(index, false)
    writeItem('json', view, BASE, fragments)
    const renamed = { ...view, name: 'renamed "agent" <1>', address: 'fd00:1::2', service: '[fd00:1::2]:4041' }
    expect(writeItem('json', renamed, BASE, fragments)).toBe(generic('json', renamed, BASE))
    expect(writeItem('xml', renamed, BASE, fragments)).toBe(generic('xml', renamed, BASE))
    const other = baseFor('http://[::1]:8080/manager/mvc/mvc/restservice')
    expect(writeItem('json', renamed, other, fragments)).toBe(generic('json', renamed, other))
  })

  it('write any string, number and module list as the generic path does', () => {
    const fragments = new ItemFragments(16)
    fc.assert(
      fc.property(anyView, fc.constantFrom<'json' | 'xml'>('json', 'xml'), (v, format) => {
        expect(writeItem(format, v, BASE, fragments)).toBe(generic(format, v, BASE))
      }),
      { numRuns: 3000 }
    )
  })
})
