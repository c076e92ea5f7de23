/**
 * How compareRounds' ratios are taken (bench/lib/compare.ts): round by round, each server's rate
 * against the other's in the same round, then the median of those, so that the machine's speed
 * moving between rounds moves both sides of each ratio.
 */
import { describe, expect, it } from 'vitest'
import { applyComparisons } from '../../bench/lib/compare.js'
import { mergeRounds, type LoadRow } from '../../bench/lib/results.js'

function round(target: LoadRow['target'], name: string, requestsPerSec: number, serverCpuUsPerRequest?: number): LoadRow {
  return {
    group: 'g',
    name,
    target,
    params: {},
    connections: 10,
    durationSeconds: 3,
    requests: requestsPerSec * 3,
    requestsPerSec,
    latencyMs: { p50: 0, p97_5: 1, p99: 1, mean: 0.5, max: 2 },
    bytesPerSec: 0,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    serverCores: 1,
    serverCpuUsPerRequest: serverCpuUsPerRequest ?? null,
    ratio: null,
    baseline: null
  }
}

describe('the ratios of a comparison over rounds', () => {
  it('are the medians of the ratios round by round, not a ratio of the median rounds', () => {
    // The machine ran fast in the first round and slow in the last: fleetsim's median round (100)
    // over bare fastify's (200) would say 0.5, where every round says 0.6 or more.
    const runs = [
      [round('fastify', 'bare', 300, 30), round('fastify', 'bare', 200, 45), round('fastify', 'bare', 100, 90)],
      [round('wiremock', 'peer', 10), round('wiremock', 'peer', 5), round('wiremock', 'peer', 4)],
      [round('fleetsim', 'fleetsim', 210, 50), round('fleetsim', 'fleetsim', 100, 90), round('fleetsim', 'fleetsim', 60, 150)]
    ]
    const rows = runs.map(mergeRounds)
    applyComparisons(rows, runs)
    const fleetsim = rows[2]
    expect(fleetsim.requestsPerSec).toBe(100)
    expect(fleetsim.ratio).toBe(0.6)
    expect(fleetsim.params.roundsRatio).toBe('0.7 / 0.5 / 0.6')
    expect(fleetsim.baseline).toBe('bare')
    // Bare fastify's CPU over fleetsim's, round by round: 0.6, 0.5, 0.6.
    expect(fleetsim.cpuRatio).toBe(0.6)
    // Against WireMock: 21, 20 and 15.
    expect(fleetsim.peerRatio).toBe(20)
    expect(fleetsim.params.roundsPeerRatio).toBe('21 / 20 / 15')
    // WireMock has its ratio to bare fastify and none to itself.
    expect(rows[1].ratio).toBe(0.033)
    expect(rows[1].peerRatio).toBeUndefined()
    expect(rows[0].ratio).toBeNull()
  })

  it('leaves out a round where the baseline answered nothing, and takes the lower middle of an even count', () => {
    const runs = [
      [round('fastify', 'bare', 100), round('fastify', 'bare', 0), round('fastify', 'bare', 100)],
      [round('fleetsim', 'fleetsim', 80), round('fleetsim', 'fleetsim', 90), round('fleetsim', 'fleetsim', 60)]
    ]
    const rows = runs.map(mergeRounds)
    applyComparisons(rows, runs)
    expect(rows[1].params.roundsRatio).toBe('0.8 / 0.6')
    expect(rows[1].ratio).toBe(0.6)
    expect(rows[1].cpuRatio).toBeUndefined()
  })
})
