/**
 * The client report's HTML page in a real browser (Chromium through playwright-core): opened
 * from GET /__admin/report with the admin credentials, it shows the verdict and draws the
 * timeline, loads nothing else, logs no error, runs nothing a client sent, and has no serious
 * accessibility violation. A screenshot goes to test-artifacts/client-report.png.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import { axeViolations, launchChromium, screenshot } from '../browser/chromium.js'

const SCRIPT = '<script>window.pwned = true</script>'

describe('the client report in a browser', () => {
  let sim: RunningFleetsim
  let browser: Browser
  let page: Page
  const problems: string[] = []
  const loaded: string[] = []

  /** A client that repeats a list parameter, retries without backoff, and sends a script as a name. */
  async function client(): Promise<void> {
    const [online] = sim.engine.indices(new Set(['ONLINE']))
    const [offline] = sim.engine.indices(new Set(['OFFLINE']))
    const json = { ...sim.headers, accept: 'application/json' }
    for (let i = 0; i < 3; i++) {
      await fetch(`${sim.url}/stopagent?agentUuids=${sim.engine.uuid(online)}&agentUuids=${sim.engine.uuid(offline)}`, { method: 'POST', headers: json })
    }
    for (let i = 0; i < 20; i++) await fetch(`${sim.url}/agentinfo.json?agentname=${sim.engine.name(i)}`, { headers: sim.headers })
    await fetch(`${sim.url}/addagent`, { method: 'POST', headers: { ...json, 'content-type': 'application/json' }, body: JSON.stringify({ name: SCRIPT }) })
    await fetch(`${sim.url}/agentinfo.json?agentname=${encodeURIComponent(SCRIPT)}`, { headers: sim.headers })
  }

  beforeAll(async () => {
    sim = await startFleetsim({ http: true, agents: 40, seed: 5 })
    await client()
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    page.on('request', (request) => loaded.push(request.url()))
    await page.setExtraHTTPHeaders(sim.headers)
    const response = await page.goto(`${sim.origin}/__admin/report?format=html`)
    expect(response?.status()).toBe(200)
  })
  afterAll(async () => {
    await browser?.close()
    await sim?.close()
  })

  it('shows the verdict at the top and draws the timeline, loading nothing else', async () => {
    await expect(page.locator('.verdict h2').textContent()).resolves.toBe('Verdict: Fail')
    expect(await page.locator('.verdict p').first().textContent()).toMatch(/^\d+ problems in 25 requests: rule list-repeated broken 3 times/)
    await page.locator('#timeline-chart canvas').waitFor({ state: 'visible' })
    const box = await page.locator('#timeline-chart canvas').boundingBox()
    expect(box?.width).toBeGreaterThan(300)
    expect(await page.locator('#timeline-chart').getAttribute('aria-label')).toContain('latency')
    expect(loaded).toEqual([`${sim.origin}/__admin/report?format=html`])
    expect(problems).toEqual([])
    await screenshot(page, 'client-report')
  })

  it('links a finding to its request, which shows the bodies sent and answered', async () => {
    const finding = page.locator('.findings > li', { hasText: 'rule list-repeated broken 3 times' })
    const link = finding.locator('a[href^="#request-"]').first()
    const target = (await link.getAttribute('href')) ?? ''
    await link.click()
    const request = page.locator(target)
    await expect(request.locator('h3').textContent()).resolves.toContain('POST /manager/mvc/restservice/stopagent')
    // stopagent takes no body: the request's is "none", the answer's lists the failed agent.
    await expect(request.locator('.body-label').first().textContent()).resolves.toBe('Request body: none')
    await expect(request.locator('pre').textContent()).resolves.toContain('"errors"')
    expect(new URL(page.url()).hash).toBe(target)
  })

  it('shows what a client sent as text, never running it', async () => {
    await expect(page.locator('.request pre', { hasText: SCRIPT }).first().textContent()).resolves.toContain(SCRIPT)
    expect(await page.evaluate(() => (globalThis as { pwned?: boolean }).pwned)).toBeUndefined()
    expect(problems).toEqual([])
  })

  it('has no serious or critical accessibility violation', async () => {
    expect(await axeViolations(page)).toEqual([])
  })
})
