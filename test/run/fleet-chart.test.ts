/**
 * The fleet chart component (web/chart/fleet-chart.js) on its own in Chromium: the contract the
 * console codes against (create, setData, push, destroy), read back through the summary table
 * that stands for the canvases.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UPLOT_FILES, webPath } from '../../src/lib/web-assets.js'
import { launchChromium } from '../browser/chromium.js'

const START = Date.parse('2026-01-01T00:00:00Z')
const online = (n: number, offline = 0) => ({ ONLINE: n, OFFLINE: offline, ERROR: 0, UNMANAGED: 0, UNTRUSTED: 0, FORGED: 0 })

// What the page holds, typed here (the tests' TypeScript has no DOM library).
type Chart = { setData(series: unknown): void; push(sample: unknown): void; destroy(): void }
interface ChartElement {
  innerHTML: string
  getAttribute(name: string): string | null
  querySelector(selector: string): { textContent: string | null } | null
}
interface PageGlobals {
  document: { getElementById(id: string): ChartElement }
  FleetChart: { create(element: ChartElement, options: unknown): Chart }
  chart: Chart
}

describe('the fleet chart component', () => {
  let browser: Browser
  let page: Page
  const errors: string[] = []
  beforeAll(async () => {
    browser = await launchChromium()
    page = await browser.newPage()
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())))
    page.on('pageerror', (e) => void errors.push(e.message))
    await page.setContent('<html lang="en"><head><title>chart</title></head><body><main><div id="c" style="width: 800px"></div></main></body></html>')
    for (const path of [UPLOT_FILES.script, webPath('chart', 'fleet-chart.js')]) await page.addScriptTag({ path })
    for (const path of [UPLOT_FILES.style, webPath('chart', 'fleet-chart.css')]) await page.addStyleTag({ path })
  })
  afterAll(async () => {
    await browser?.close()
  })

  const caption = () => page.textContent('#c caption')
  const cell = (state: string, column: number) => page.textContent(`#c .fleet-chart-table tbody tr:has(th:text-is("${state}")) td:nth-of-type(${column})`)

  it('draws pushed samples live and opens and closes a lockout band from lockedOut', async () => {
    await page.evaluate(
      ({ start, samples }) => {
        const g = globalThis as unknown as PageGlobals
        const chart = g.FleetChart.create(g.document.getElementById('c'), { startTime: start, events: [{ second: 60, label: 'outage' }] })
        g.chart = chart
        for (const sample of samples) chart.push(sample)
      },
      {
        start: START,
        samples: [
          { second: 0, byState: online(100) },
          { second: 60, byState: online(90, 10) },
          { second: 120, byState: online(0, 100), lockedOut: true, events: [{ second: 120, label: 'manager-restart' }] },
          { second: 180, byState: online(100), lockedOut: false }
        ]
      }
    )
    expect(await page.locator('#c canvas').count()).toBe(2)
    expect(await caption()).toBe(
      'Agents by state from 2026-01-01 00:00:00 UTC to 2026-01-01 00:03:00 UTC, 100 agents at the end; 2 timeline events (outage at 2026-01-01 00:01:00 UTC; manager-restart at 2026-01-01 00:02:00 UTC); manager lockout from 2026-01-01 00:02:00 UTC to 2026-01-01 00:03:00 UTC.'
    )
    expect(await cell('OFFLINE', 1)).toBe('0')
    expect(await cell('OFFLINE', 2)).toBe('100')
    expect(await cell('OFFLINE', 3)).toBe('2026-01-01 00:02:00 UTC')
    expect(await page.getAttribute('#c', 'role')).toBe('figure')
  })

  it('replaces everything with setData, and says a lockout without an end is still on', async () => {
    await page.evaluate(() => {
      ;(globalThis as unknown as PageGlobals).chart.setData({ seconds: [0, 3600], byState: { ONLINE: [5, 0], OFFLINE: [0, 5] }, events: [], lockouts: [{ from: 1800, to: null }] })
    })
    expect(await caption()).toBe('Agents by state from 2026-01-01 00:00:00 UTC to 2026-01-01 01:00:00 UTC, 5 agents at the end; manager lockout from 2026-01-01 00:30:00 UTC, still on.')
  })

  it('spans ten minutes around a lone sample (a paused clock), and the samples\' own span once longer', async () => {
    const spans = await page.evaluate(async () => {
      // uPlot sets its scales from new data in a microtask.
      const settled = () => new Promise((resolve) => setTimeout(resolve, 0))
      const g = globalThis as unknown as PageGlobals & { uPlot: new (...args: unknown[]) => { scales: { x: { min: number; max: number } } } }
      // The chart's two uPlot panels, caught as it makes them.
      const made: Array<{ scales: { x: { min: number; max: number } } }> = []
      const Original = g.uPlot
      g.uPlot = Object.assign(function (...args: unknown[]) {
        const plot = new Original(...args)
        made.push(plot)
        return plot
      }, Original) as unknown as typeof g.uPlot
      try {
        const element = g.document.getElementById('c')
        g.chart.destroy()
        const chart = g.FleetChart.create(element, {})
        chart.push({ second: 3600, byState: { ONLINE: 5 } })
        await settled()
        const lone = made.map((plot) => [plot.scales.x.min, plot.scales.x.max])
        chart.push({ second: 7200, byState: { ONLINE: 5 } })
        await settled()
        const two = made.map((plot) => [plot.scales.x.min, plot.scales.x.max])
        g.chart = chart
        return { lone, two }
      } finally {
        g.uPlot = Original
      }
    })
    expect(spans.lone).toEqual([[3300, 3900], [3300, 3900]])
    expect(spans.two).toEqual([[3600, 7200], [3600, 7200]])
  })

  it('keeps at most maxPoints samples when pushed, and leaves nothing behind when destroyed', async () => {
    const after = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals
      const element = g.document.getElementById('c')
      g.chart.destroy()
      const chart = g.FleetChart.create(element, { maxPoints: 2 })
      for (const second of [0, 60, 120]) chart.push({ second, byState: { ONLINE: 1 } })
      const text = element.querySelector('caption')!.textContent
      chart.destroy()
      return { text, html: element.innerHTML, role: element.getAttribute('role') }
    })
    expect(after.text).toBe('Agents by state from 1970-01-01 00:01:00 UTC to 1970-01-01 00:02:00 UTC, 1 agent at the end.')
    expect(after).toMatchObject({ html: '', role: null })
    expect(errors).toEqual([])
  })
})
