import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { maxOf, minOf } from '../../src/lib/extremes.js'
import { minMaxPerColumn } from '../../src/run/decimate.js'
import { PLOT_WIDTH, renderChart } from '../../src/run/chart.js'
import { counts, runResult } from './run-result.fixture.js'

/** n samples spread evenly over `width` pixels, as the chart places them. */
const spread = (n: number, width: number) => Array.from({ length: n }, (_, k) => (k / (n - 1)) * width)

describe('minMaxPerColumn', () => {
  it('keeps a one-sample dip to 0 among 100,000 samples, with at most two points per column', () => {
    const values = Array.from({ length: 100_000 }, () => 1000)
    values[61_803] = 0
    const kept = minMaxPerColumn(spread(values.length, PLOT_WIDTH), values, PLOT_WIDTH)
    expect(kept).toContain(61_803)
    expect(kept.length).toBeLessThanOrEqual(2 * PLOT_WIDTH + 2)
    expect(kept[0]).toBe(0)
    expect(kept.at(-1)).toBe(values.length - 1)
  })

  it('keeps every sample, in order, when there are no more than the width', () => {
    const values = [5, 1, 4, 1, 5]
    expect(minMaxPerColumn(spread(5, 5), values, 5)).toEqual([0, 1, 2, 3, 4])
    expect(minMaxPerColumn([], [], 5)).toEqual([])
  })

  it("keeps each column's lowest and highest value, ascending, within 2 × width + 2 indices", () => {
    const series = fc.integer({ min: 2, max: 40 }).chain((width) =>
      fc.record({ width: fc.constant(width), values: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: width + 1, maxLength: 20 * width }) })
    )
    fc.assert(
      fc.property(series, ({ width, values }) => {
        const xs = spread(values.length, width)
        const kept = minMaxPerColumn(xs, values, width)
        expect(kept.length).toBeLessThanOrEqual(2 * width + 2)
        for (let k = 1; k < kept.length; k++) expect(kept[k]).toBeGreaterThan(kept[k - 1])
        for (let column = 0; column < width; column++) {
          const inColumn = values.map((_, k) => k).filter((k) => Math.min(width - 1, Math.floor(xs[k])) === column)
          if (inColumn.length === 0) continue
          const drawn = kept.filter((k) => inColumn.includes(k)).map((k) => values[k])
          const all = inColumn.map((k) => values[k])
          expect(minOf(drawn)).toBe(minOf(all))
          expect(maxOf(drawn)).toBe(maxOf(all))
        }
      })
    )
  })
})

describe('the run chart of a long run', () => {
  // 100,000 one-second samples of 1,000 agents, all ONLINE but for one second when all are OFFLINE.
  const DIP = 61_803
  const samples = Array.from({ length: 100_000 }, (_, second) => ({
    second,
    agents: 1000,
    byState: second === DIP ? counts({ OFFLINE: 1000 }) : counts({ ONLINE: 1000 })
  }))
  const svg = renderChart(runResult({ samples, durationSeconds: 99_999, sampleSeconds: 1, final: samples[99_999], events: [], lockouts: [], lockedOut: false }))
  const paths = [...svg.matchAll(/<path d="M([^"]*)"[^>]*><title>(\w+)<\/title>/g)].map((m) => ({ state: m[2], points: m[1].replace(/Z$/, '').split('L') }))
  const dipX = String(Number((78 + (DIP / 99_999) * PLOT_WIDTH).toFixed(1)))

  it('draws each series with at most two points per pixel column', () => {
    expect(paths.map((p) => p.state)).toEqual(['ONLINE', 'OFFLINE', 'OFFLINE'])
    // An area has a top and a bottom line; a line of the second panel one.
    for (const { points } of paths) expect(points.length).toBeLessThanOrEqual(2 * (2 * PLOT_WIDTH + 2))
    expect(paths[2].points.length).toBeLessThanOrEqual(2 * PLOT_WIDTH + 2)
    expect(svg.length).toBeLessThan(200_000)
  })

  it('still draws the one-second outage: ONLINE down to 0 and OFFLINE up to 1,000 at its second', () => {
    const [online, offlineArea, offlineLine] = paths
    const yAt = (points: string[]) => points.filter((p) => p.startsWith(`${dipX},`)).map((p) => Number(p.split(',')[1]))
    // Main panel: 1,000 agents fill it from y 364 (0) to y 64 (1,000); the dip takes ONLINE's top to the axis.
    expect(yAt(online.points)).toContain(364)
    expect(yAt(offlineArea.points)).toContain(364)
    // Second panel: OFFLINE is 0 (the axis, y 582) everywhere but at the dip, where it peaks.
    const offline = yAt(offlineLine.points)
    expect(offline).toHaveLength(1)
    expect(offline[0]).toBeLessThan(582)
    expect(svg).toContain('OFFLINE peak 1,000 (100.0%)')
  })
})
