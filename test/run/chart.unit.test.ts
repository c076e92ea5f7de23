import { describe, expect, it } from 'vitest'
import { niceStep, renderChart } from '../../src/run/chart.js'
import type { RunResult } from '../../src/run/runner.js'

const counts = (online: number, offline: number) => ({ ONLINE: online, OFFLINE: offline, ERROR: 0, UNMANAGED: 0, UNTRUSTED: 0, FORGED: 0 })

const result: RunResult = {
  scenario: { name: 'a <b> & c', description: '', source: 'x', seed: 1 },
  startTime: 0,
  durationSeconds: 3600,
  sampleSeconds: 1800,
  samples: [0, 1800, 3600].map((second, k) => ({ second, agents: 100, byState: counts(100 - k * 10, k * 10) })),
  events: [
    { second: 600, name: 'outage', action: 'offline' },
    { second: 1200, name: 'outage', action: 'offline' }
  ],
  final: { second: 3600, agents: 100, byState: counts(80, 20) },
  transitions: { total: 20, byPair: { 'ONLINE->OFFLINE': 20 } },
  moduleCrashes: 0,
  moduleRestarts: 0,
  lockedOut: false,
  digest: 'ab'.repeat(32),
  wallMs: 1
}

describe('the run chart', () => {
  it('draws one area per state present, escapes text, and explains the event markers', () => {
    const svg = renderChart(result)
    expect(svg.match(/<path /g)).toHaveLength(2)
    expect(svg).toContain('a &#60;b&#62; &#38; c')
    expect(svg).toContain('outage (offline) ×2, first at 10m')
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(2)
  })

  it('picks round axis steps', () => {
    expect(niceStep(3000, 5)).toBe(1000)
    expect(niceStep(1000, 5)).toBe(200)
    expect(niceStep(101_000, 5)).toBe(25_000)
  })
})
