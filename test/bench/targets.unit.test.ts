/** The targets a bench run is checked against (bench/lib/targets.ts), from rows made up here. */
import { describe, expect, it } from 'vitest'
import type { BenchResults, LoadRow } from '../../bench/lib/results.js'
import { checkTargets } from '../../bench/lib/targets.js'

const LIST = 'agentinfo by state'

function row(overrides: Partial<LoadRow>): LoadRow {
  return {
    group: LIST,
    name: 'fleetsim, ONLINE of 10k, JSON over HTTPS',
    target: 'fleetsim',
    params: {},
    connections: 2,
    durationSeconds: 2,
    requests: 60,
    requestsPerSec: 30,
    latencyMs: { p50: 60, p97_5: 200, p99: 300, mean: 70, max: 350 },
    bytesPerSec: 1,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    serverCpuUsPerRequest: 30_000,
    serverCores: 0.9,
    ratio: null,
    baseline: null,
    ...overrides
  }
}

const results = (rows: LoadRow[]) => ({ rows, lists: [], scale: [], targets: [] }) as unknown as BenchResults

describe('the peer target', () => {
  it('asks for twice WireMock and says what that was in bare fastify\'s rate', () => {
    // fleetsim at 30/s, bare fastify at 60/s (ratio 0.5), WireMock at 29/s (peerRatio 30/29): twice WireMock is 58/60 of bare fastify.
    const [check] = checkTargets(results([row({ ratio: 0.5, peerRatio: 30 / 29 })]))
    expect(check).toEqual({
      name: 'agentinfo by state: ONLINE of 10k, JSON over HTTPS',
      goal: '>= 2 × WireMock req/s',
      value: '1.03 × (2 × WireMock = 0.97 × bare fastify)',
      met: false
    })
  })

  it('is met at twice WireMock whatever bare fastify did, and says only the peer ratio without a bare fastify row', () => {
    const [withBare] = checkTargets(results([row({ ratio: 1.1, peerRatio: 2.2 })]))
    expect(withBare).toMatchObject({ value: '2.20 × (2 × WireMock = 1.00 × bare fastify)', met: true })
    const [alone] = checkTargets(results([row({ ratio: null, peerRatio: 2.5 })]))
    expect(alone).toMatchObject({ value: '2.50 ×', met: true })
  })

  it('checks only fleetsim rows measured against the peer', () => {
    expect(checkTargets(results([row({ target: 'wiremock', name: 'WireMock, same bytes', ratio: 0.5 }), row({ peerRatio: null, ratio: 0.8 })]))).toEqual([])
  })
})
