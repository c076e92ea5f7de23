import { runInNewContext } from 'node:vm'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { clockTime, niceStep, peaks, renderChart, STATE_COLOURS, timeTicks } from '../../src/run/chart.js'
import { webPath } from '../../src/lib/web-assets.js'
import { counts, runResult } from './run-result.fixture.js'

describe('the run chart (SVG)', () => {
  it('draws a run of more samples than a call can take as arguments (12 hours at --sample 1s)', () => {
    const samples = Array.from({ length: 43_201 }, (_, second) => ({ second, agents: 100, byState: counts({ ONLINE: 99, OFFLINE: 1 }) }))
    // The second panel's maximum ran Math.max over 4 values a sample: "Maximum call stack size exceeded".
    const svg = renderChart(runResult({ samples, durationSeconds: 43_200, sampleSeconds: 1, final: samples[43_200], events: [], lockouts: [], lockedOut: false }))
    expect(svg.startsWith('<svg')).toBe(true)
  })

  it('stacks one area per state present in the main panel, and escapes text from the scenario', () => {
    const svg = renderChart(runResult())
    // ONLINE, UNTRUSTED, FORGED, OFFLINE are present: four areas, titled by state.
    expect(svg.match(/<path d="M[^"]*Z" fill=/g)).toHaveLength(4)
    expect(svg).toContain('a &#60;b&#62; &#38; c')
    expect(svg).not.toContain('<b>')
  })

  it('draws the states that are not ONLINE again as lines in a second panel, on a log scale', () => {
    const svg = renderChart(runResult())
    const lines = [...svg.matchAll(/<path d="M[^"Z]*" fill="none" stroke="([^"]+)"[^>]*><title>(\w+)<\/title>/g)].map((m) => [m[2], m[1]])
    expect(lines).toEqual([
      ['UNTRUSTED', STATE_COLOURS.UNTRUSTED],
      ['FORGED', STATE_COLOURS.FORGED],
      ['OFFLINE', STATE_COLOURS.OFFLINE]
    ])
    expect(svg).toContain('not ONLINE (log)')
    // Powers of ten up to three times the largest count (100).
    for (const tick of ['>1<', '>10<', '>100<']) expect(svg).toContain(tick)
  })

  it('marks the peaks of the small states with their share and absolute time', () => {
    const svg = renderChart(runResult())
    expect(svg).toContain('FORGED peak 1 (1.0%) at 00:00')
    expect(svg).toContain('OFFLINE peak 100 (100.0%) at 00:40')
    expect(peaks(runResult().samples).map((p) => p.state)).toEqual(['UNTRUSTED', 'FORGED', 'OFFLINE'])
  })

  it('shades a lockout still on at the end and says so', () => {
    const svg = renderChart(runResult())
    expect(svg.match(/class="lockout"/g)).toHaveLength(2)
    expect(svg).toContain('manager lockout since 00:30: still on')
    const lifted = renderChart(runResult({ lockouts: [{ from: 1800, to: 2700 }], lockedOut: false }))
    expect(lifted).toContain('manager lockout 00:30–00:45 (15m)')
  })

  it('marks every event occurrence and explains the letters with absolute times', () => {
    const svg = renderChart(runResult())
    expect(svg.match(/class="event"/g)).toHaveLength(3)
    expect(svg).toContain('outage (offline) ×2, first at 00:10 (+10m)')
    expect(svg).toContain('restart (manager-restart) at 00:30 (+30m)')
  })

  it('draws one event line per pixel column: an event every second of a day draws some 700 lines, not 86,401', () => {
    const events = Array.from({ length: 86_401 }, (_, second) => ({ second, name: 'blink', action: 'offline' }))
    const svg = renderChart(runResult({ durationSeconds: 86_400, events, lockouts: [], lockedOut: false }))
    const lines = svg.match(/class="event"/g)?.length ?? 0
    expect(lines).toBeGreaterThan(700)
    expect(lines).toBeLessThanOrEqual(723)
    expect(svg.length).toBeLessThan(300_000)
    expect(svg).toContain('blink (offline) ×86401, first at')
  })

  it('puts absolute virtual times on the axis, at round times even when the run starts off the hour', () => {
    const svg = renderChart(runResult({ startTime: Date.parse('2026-03-04T10:07:00Z') }))
    expect(svg).toContain('>10:10<')
    expect(svg).toContain('>11:00<')
    expect(svg).toContain('>2026-03-04<')
    expect(timeTicks(Date.parse('2026-03-04T10:07:00Z'), 3600, 900)).toEqual([480, 1380, 2280, 3180])
    expect(clockTime(Date.parse('2026-03-04T10:07:00Z'), true)).toBe('03-04 10:07')
  })

  it('picks round axis steps', () => {
    expect(niceStep(3000, 5)).toBe(1000)
    expect(niceStep(1000, 5)).toBe(200)
    expect(niceStep(101_000, 5)).toBe(25_000)
  })
})

describe('the fleet chart of the browser (web/chart/fleet-chart.js)', () => {
  it('uses the colours and states of the SVG chart, so the two tell the story alike', () => {
    const window: { FleetChart?: { COLOURS: Record<string, string>; STATES: string[] } } = {}
    runInNewContext(readFileSync(webPath('chart', 'fleet-chart.js'), 'utf8'), { window })
    expect(window.FleetChart?.COLOURS).toEqual(STATE_COLOURS)
    expect(window.FleetChart?.STATES).toEqual(['ONLINE', 'ERROR', 'UNTRUSTED', 'FORGED', 'UNMANAGED', 'OFFLINE'])
  })
})
