import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { totalCounter } from '../../src/metrics/totals.js'
import { parseExposition, valueOf } from './helpers.js'

async function read(registry: Registry, labels: Record<string, string> = {}) {
  return valueOf(parseExposition(await registry.metrics()), 'x_total', labels)
}

describe('a counter that follows a running total', () => {
  it('takes the total on each scrape', async () => {
    const registry = new Registry()
    let total = 5
    totalCounter({ name: 'x_total', help: 'x', registry, read: () => [[{}, total]] })
    expect(await read(registry)).toBe(5)
    total = 12.5
    expect(await read(registry)).toBe(12.5)
  })

  it('never goes down, and keeps counting when the total restarts from 0 (a fleet reset)', async () => {
    const registry = new Registry()
    let total = 10
    totalCounter({ name: 'x_total', help: 'x', registry, read: () => [[{}, total]] })
    await read(registry)
    total = 4
    expect(await read(registry)).toBe(14)
    total = 6
    expect(await read(registry)).toBe(16)
  })

  it('counts everything after a restart the source reports, whatever the totals reached by the next scrape', async () => {
    const registry = new Registry()
    let total = 200
    let restarts = 0
    totalCounter({ name: 'x_total', help: 'x', registry, restarts: () => restarts, read: () => [[{}, total]] })
    expect(await read(registry)).toBe(200)
    // Reset and run again: the same run lands on the same total before the next scrape.
    restarts++
    expect(await read(registry)).toBe(400)
    // Reset, scraped at 0, then past the old total.
    restarts++
    total = 0
    expect(await read(registry)).toBe(400)
    total = 250
    expect(await read(registry)).toBe(650)
  })

  it('keeps counting after a restart scraped at 0, without a source of restarts', async () => {
    const registry = new Registry()
    let total = 200
    totalCounter({ name: 'x_total', help: 'x', registry, read: () => [[{}, total]] })
    await read(registry)
    total = 0
    expect(await read(registry)).toBe(200)
    total = 250
    expect(await read(registry)).toBe(450)
  })

  it('drops, after a restart, the series the totals no longer hold, but its initial ones', async () => {
    const registry = new Registry()
    let totals: Record<string, number> = { outage: 2, restart: 1 }
    let restarts = 0
    totalCounter({
      name: 'x_total',
      help: 'x',
      registry,
      labelNames: ['event'],
      initial: [{ event: 'always' }],
      restarts: () => restarts,
      read: () => Object.entries(totals).map(([event, n]) => [{ event }, n])
    })
    expect(await read(registry, { event: 'outage' })).toBe(2)
    totals = { surge: 3 }
    restarts++
    const text = await registry.metrics()
    expect(text).toContain('x_total{event="surge"} 3')
    expect(text).toContain('x_total{event="always"} 0')
    expect(text).not.toContain('event="outage"')
    expect(text).not.toContain('event="restart"')
  })

  it('exports its initial label sets at 0 before anything happened', async () => {
    const registry = new Registry()
    totalCounter({ name: 'x_total', help: 'x', registry, labelNames: ['kind'], initial: [{ kind: 'a' }, { kind: 'b' }], read: () => [] })
    expect([await read(registry, { kind: 'a' }), await read(registry, { kind: 'b' })]).toEqual([0, 0])
  })

  it('adds label sets as they appear in the totals', async () => {
    const registry = new Registry()
    const totals: Record<string, number> = {}
    totalCounter({ name: 'x_total', help: 'x', registry, labelNames: ['event'], read: () => Object.entries(totals).map(([event, n]) => [{ event }, n]) })
    totals.outage = 1
    expect(await read(registry, { event: 'outage' })).toBe(1)
    totals.restart = 0
    expect(await read(registry, { event: 'restart' })).toBe(0)
  })
})
