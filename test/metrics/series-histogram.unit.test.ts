import fc from 'fast-check'
import { Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { SeriesHistogram } from '../../src/metrics/series-histogram.js'

const BUCKETS = [0.001, 0.01, 0.1, 1, 10]
const LABELS = ['operation', 'status'] as const

/** The same histogram twice: prom-client's on one registry, ours on another. */
function pair() {
  const theirs = new Registry()
  const ours = new Registry()
  const options = { name: 'h_seconds', help: 'A histogram.', labelNames: LABELS, buckets: BUCKETS }
  return {
    theirs,
    ours,
    reference: new Histogram({ ...options, labelNames: [...LABELS], registers: [theirs] }),
    histogram: new SeriesHistogram({ ...options, registers: [ours] })
  }
}

const observation = fc.record({
  operation: fc.constantFrom('agentinfo', 'stopagent', 'a "quoted" \\ name\nwith a newline'),
  status: fc.constantFrom('200', '404'),
  // bounds themselves, values between and beyond them, zero and negatives
  value: fc.oneof(fc.constantFrom(...BUCKETS, 0, -1, 1e9), fc.double({ min: -5, max: 50, noNaN: true }))
})

describe('SeriesHistogram', () => {
  it('exposes what prom-client’s Histogram exposes for the same observations, as text and as JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), fc.boolean(), async (observations, viaHandles) => {
        const { theirs, ours, reference, histogram } = pair()
        for (const { operation, status, value } of observations) {
          reference.observe({ operation, status }, value)
          if (viaHandles) histogram.series({ operation, status }).observe(value)
          else histogram.observe({ operation, status }, value)
        }
        expect(await ours.metrics()).toBe(await theirs.metrics())
        expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON())
      }),
      { seed: 20261122, numRuns: 150 }
    )
  })

  it('shows nothing after a reset until a series is observed again, through the handle kept before', async () => {
    const { theirs, ours, reference, histogram } = pair()
    const handle = histogram.series({ operation: 'agentinfo', status: '200' })
    handle.observe(0.5)
    reference.observe({ operation: 'agentinfo', status: '200' }, 0.5)
    ours.resetMetrics()
    theirs.resetMetrics()
    expect(await ours.metrics()).toBe(await theirs.metrics())
    expect(await ours.metrics()).not.toContain('h_seconds_count')
    handle.observe(2)
    reference.observe({ operation: 'agentinfo', status: '200' }, 2)
    expect(await ours.metrics()).toBe(await theirs.metrics())
    expect(await ours.metrics()).toContain('h_seconds_count{operation="agentinfo",status="200"} 1')
  })

  it('refuses wrong labels, values that are not finite and buckets out of order', () => {
    const { histogram } = pair()
    expect(() => histogram.series({ operation: 'agentinfo' } as never)).toThrow(/takes the labels operation, status; got operation/)
    expect(() => histogram.series({ operation: 'agentinfo', status: '200', method: 'GET' } as never)).toThrow(/got operation, status, method/)
    expect(() => histogram.observe({ operation: 'agentinfo', status: '200' }, Number.NaN)).toThrow(/finite number, got NaN/)
    expect(() => new SeriesHistogram({ name: 'x', help: 'x', labelNames: ['le'], buckets: [1], registers: [] })).toThrow(/le is a reserved/)
    expect(() => new SeriesHistogram({ name: 'x', help: 'x', labelNames: [], buckets: [1, 1], registers: [] })).toThrow(/must ascend, got 1, 1/)
  })

  it('cannot share a name with another metric of the registry', () => {
    const registry = new Registry()
    new Histogram({ name: 'taken', help: 'x', registers: [registry] })
    expect(() => new SeriesHistogram({ name: 'taken', help: 'x', labelNames: [], buckets: [1], registers: [registry] })).toThrow(/already been registered/)
  })
})
