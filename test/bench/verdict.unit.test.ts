import { describe, expect, it } from 'vitest'
import type { LoadRow, ScaleRow, TargetCheck } from '../../bench/lib/results.js'
import { benchFailures, verdict } from '../../bench/lib/verdict.js'
import { USAGE, parseCommand } from '../../bench/run.js'

const met: TargetCheck = { name: 'stopagent with 10,000 agentUuids', goal: 'p50 < 100 ms', value: 'p50 48 ms', met: true }
const missed: TargetCheck = { name: 'agentinfo one agent, JSON over HTTP', goal: '>= 90% of bare fastify req/s', value: '85.2%', met: false }

function row(overrides: Partial<LoadRow>): LoadRow {
  return {
    group: 'agentinfo one agent',
    name: 'fleetsim, JSON',
    target: 'fleetsim',
    params: {},
    connections: 10,
    durationSeconds: 2,
    requests: 12000,
    requestsPerSec: 6000,
    latencyMs: { p50: 0, p97_5: 1, p99: 1, mean: 0.2, max: 3 },
    bytesPerSec: 1,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    serverCpuUsPerRequest: 15,
    serverCores: 0.9,
    ratio: 0.95,
    baseline: 'bare fastify, JSON',
    ...overrides
  }
}

const scale = (errors: number) => ({ agents: 10_000, agentinfoWhileStepping: { requestsPerSec: 1, p50: 0, p99: 1, errors, virtualSecondsStepped: 1 } }) as ScaleRow

describe('the bench verdict', () => {
  it('passes a run whose targets were met and whose requests all got 2xx answers', () => {
    expect(benchFailures({ targets: [met], rows: [row({})], scale: [scale(0)] })).toEqual([])
    expect(verdict([], false)).toEqual({ lines: ['bench: passed (every target met, no failed requests)'], exitCode: 0 })
  })

  it('names a missed target with its goal and what was measured', () => {
    expect(benchFailures({ targets: [met, missed], rows: [], scale: [] })).toEqual(['target missed: agentinfo one agent, JSON over HTTP (goal >= 90% of bare fastify req/s), measured 85.2%.'])
  })

  it('names a load run with failed requests and what failed', () => {
    expect(benchFailures({ targets: [], rows: [row({ errors: 2, non2xx: 1 })], scale: [scale(3)] })).toEqual([
      '"fleetsim, JSON" (agentinfo one agent) had 2 socket errors, 1 answer not 2xx in 12,000 requests: its figures include failed requests, not only answers.',
      'agentinfo while 10,000 agents stepped flat out had 3 errors: the server failed requests while its fleet stepped.'
    ])
  })

  it('fails the command with a sentence per failure and a hint at --report-only', () => {
    const { lines, exitCode } = verdict(['target missed: x (goal y), measured z.'], false)
    expect(exitCode).toBe(1)
    expect(lines[0]).toBe('bench: FAILED: target missed: x (goal y), measured z.')
    expect(lines[1]).toMatch(/^bench: 1 check failed\. .*--report-only reports without failing\.$/)
  })

  it('reports the failures and exits 0 with --report-only', () => {
    expect(parseCommand(['--quick', '--report-only'])).toMatchObject({ reportOnly: true, options: { profile: 'quick', scope: 'all' } })
    expect(parseCommand(['--quick']).reportOnly).toBe(false)
    expect(verdict(['a.', 'b.'], true)).toEqual({ lines: ['bench: a.', 'bench: b.', 'bench: 2 checks failed; exit code 0 as --report-only asks'], exitCode: 0 })
  })

  it('has a usage that names every option parseCommand takes, and no other', () => {
    const named = [...new Set(USAGE.match(/--[a-z-]+/g))].sort()
    expect(named).toEqual(['--no-table', '--out', '--parallel-gc', '--quick', '--report-only', '--scope', '--smoke'])
    for (const option of named) {
      const argv = option === '--out' ? [option, 'x'] : option === '--scope' ? [option, 'list'] : [option]
      expect(() => parseCommand(argv)).not.toThrow()
    }
  })
})
