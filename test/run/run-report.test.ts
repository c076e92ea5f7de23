/**
 * The run report in a real browser: index.html opened from file://, as a user opens it.
 * The report of the demonstration scenario stays in test-artifacts/run-report/ with its
 * screenshot; `UPDATE_SCREENSHOTS=1` also writes the README's docs/images/run-report.png.
 */
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../../src/commands/run.js'
import { ARTIFACTS, axeViolations, launchChromium, screenshot } from '../browser/chromium.js'

/** A seeded scenario with small states, an outage, a restart wave and a lockout: the README's picture. */
const DEMO = 'test/run/fixtures/report-demo.yaml'
const OUT = 'test-artifacts/run-report'
const DOCS_IMAGE = 'docs/images/run-report.png'

/** A canvas, typed here: the tests' TypeScript has no DOM library. */
interface Canvas {
  width: number
  height: number
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } }
}

const quiet = { out: () => undefined, err: { isTTY: false, write: () => true } }

interface Opened {
  page: Page
  /** console errors, uncaught exceptions and requests for anything but the file itself */
  problems: string[]
}

async function open(browser: Browser, dir: string): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  const url = pathToFileURL(resolve(dir, 'index.html')).href
  page.on('request', (request) => {
    if (request.url() !== url) problems.push(`request: ${request.url()}`)
  })
  await page.goto(url)
  await page.waitForSelector('#chart canvas')
  return { page, problems }
}

describe("fleetsim run's index.html in Chromium", () => {
  let browser: Browser
  let demo: Opened
  beforeAll(async () => {
    await rm(OUT, { recursive: true, force: true })
    expect(await run([DEMO, '--workers', '2', '--out', OUT], quiet)).toBe(0)
    browser = await launchChromium()
    demo = await open(browser, OUT)
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('draws both panels of the chart from file://, with no request, console error or exception', async () => {
    const { page, problems } = demo
    expect(await page.locator('#chart canvas').count()).toBe(2)
    // Something was drawn: the main panel's canvas is mostly coloured, not blank.
    const coloured = await page.locator('#chart canvas').first().evaluate((element) => {
      const canvas = element as unknown as Canvas
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height)
      let n = 0
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && (data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200)) n++
      return n / (data.length / 4)
    })
    expect(coloured).toBeGreaterThan(0.3)
    expect(await page.locator('#chart').getAttribute('role')).toBe('figure')
    expect(problems).toEqual([])
  })

  it('shows the figures of summary.json', async () => {
    const summary = JSON.parse(await readFile(join(OUT, 'summary.json'), 'utf8'))
    const shown = await demo.page.locator('[data-summary]').evaluateAll((cells) => cells.map((cell) => [cell.getAttribute('data-summary'), cell.textContent]))
    const expected = (path: string) => {
      const value = path.split('.').reduce((at, key) => at[key], path.startsWith('final.') && path !== 'final.agents' ? { final: summary.final.byState } : summary)
      return typeof value === 'number' ? value.toLocaleString('en-US') : String(value)
    }
    const keys = shown.map(([key]) => key)
    for (const key of ['final.ONLINE', 'final.OFFLINE', 'final.UNTRUSTED', 'final.FORGED', 'final.agents', 'transitions.total', 'moduleCrashes', 'moduleRestarts', 'timelineEvents', 'digest']) {
      expect(keys).toContain(key)
    }
    for (const [key, text] of shown) {
      if (key === 'durationSeconds') continue
      expect({ key, text }).toEqual({ key, text: expected(key!) })
    }
    // The demonstration has what the chart must make visible: small states and a lockout that lifted.
    expect(summary.final.byState.FORGED).toBeGreaterThan(0)
    expect(summary.final.byState.FORGED / summary.final.agents).toBeLessThan(0.01)
    expect(summary.lockouts).toMatchObject([{ from: 3000, to: 4200 }])
    expect(await demo.page.locator('#chart table.fleet-chart-table tbody tr').count()).toBe(6)
    expect(await demo.page.textContent('body')).toContain(summary.command)
  })

  it('has no serious or critical accessibility violations', async () => {
    expect(await axeViolations(demo.page)).toEqual([])
  })

  it('is photographed for test-artifacts/ (and for the README with UPDATE_SCREENSHOTS=1)', async () => {
    const path = await screenshot(demo.page, 'run-report')
    expect((await readFile(path)).subarray(1, 4).toString()).toBe('PNG')
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      // The top of the page: header, chart and summary; the events and the command follow below.
      const bottom = await demo.page.locator('h2', { hasText: 'Timeline events' }).evaluate((h) => h.getBoundingClientRect().top + (globalThis as unknown as { scrollY: number }).scrollY)
      await mkdir('docs/images', { recursive: true })
      await demo.page.setViewportSize({ width: 1200, height: Math.ceil(bottom) - 8 })
      await demo.page.screenshot({ path: DOCS_IMAGE })
      await copyFile(DOCS_IMAGE, join(ARTIFACTS, 'run-report-readme.png'))
    }
  })

  it('shows a scenario named <script> as text and runs none of its names', async () => {
    const dir = join(ARTIFACTS, 'run-report-hostile')
    await mkdir(dir, { recursive: true })
    const name = '<script>window.pwned=1</script>'
    await writeFile(
      join(dir, 'hostile.yaml'),
      [
        `name: "${name}"`,
        `description: "</p><img src=x onerror=\\"window.pwned=2\\">"`,
        'fleet: { agents: 20 }',
        `timeline: [{ name: "</script><script>window.pwned=3</script>", at: 1m, action: offline, for: 1m }]`,
        ''
      ].join('\n')
    )
    expect(await run([join(dir, 'hostile.yaml'), '--workers', '1', '--out', join(dir, 'report')], quiet)).toBe(0)
    const { page, problems } = await open(browser, join(dir, 'report'))
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined()
    expect(await page.textContent('h1')).toBe(name)
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.locator('table.data td', { hasText: 'window.pwned=3' }).count()).toBe(1)
    expect(problems).toEqual([])
    await page.close()
  })
})
