/**
 * `npm run bench:items` on a small fleet: it completes and its figures are the ones it says
 * (items of the ONLINE list in both formats, an identity's bytes). Timings are not checked.
 */
import { describe, expect, it } from 'vitest'
import { measureItems } from '../../bench/items.js'

describe('the items benchmark', () => {
  it('measures every ONLINE item in both formats, as a long list, with identities kept and with items kept, and the bytes of a kept identity and of a kept fragment\'s bytes', { timeout: 60_000 }, async () => {
    const results = await measureItems({ agents: 3000, passes: 2 })
    for (const figures of [results.json, results.xml, results.keptJson, results.keptXml, results.copiedJson, results.copiedXml]) {
      // Two passes over the ONLINE agents of 3,000 (most of them; the clock runs, so the two may differ).
      expect(figures.items).toBeGreaterThan(2 * 2000)
      expect(figures.cpuUsPerItem).toBeGreaterThan(0)
    }
    // GCs counted as whole numbers. Not more than none: the items of a long list are written from
    // generated identities with next to no garbage, and on 3,000 agents may fill no young generation.
    for (const figures of [results.json, results.xml, results.keptJson, results.keptXml, results.copiedJson, results.copiedXml]) {
      expect(Number.isInteger(figures.scavenges) && figures.scavenges >= 0 && Number.isInteger(figures.fullGcs) && figures.fullGcs >= 0).toBe(true)
    }
    // An item is several hundred bytes; XML's are longer than JSON's.
    expect(results.json.bytesPerItem).toBeGreaterThan(500)
    expect(results.xml.bytesPerItem).toBeGreaterThan(results.json.bytesPerItem)
    // The same bytes whether an item is written or copied from what was kept of it.
    expect(results.copiedJson.bytesPerItem).toBe(results.keptJson.bytesPerItem)
    expect(results.copiedXml.bytesPerItem).toBe(results.keptXml.bytesPerItem)
    expect(results.identityBytes).toBeGreaterThan(100)
    // At least the text of an item's identity part, a few hundred bytes.
    expect(results.fragmentBytes).toBeGreaterThan(300)
  })
})
