/**
 * The console in a real browser (Chromium through playwright-core): log in with the form, see
 * the counts GET /__admin/fleet gives, pause the clock and see virtual time stop, advance an
 * hour, find an agent and stop it from its page (agentinfo then says ERROR). Every page is
 * checked with axe-core (no serious or critical violation) and photographed to test-artifacts/;
 * `UPDATE_SCREENSHOTS=1` also writes the README's docs/images/console-fleet.png.
 *
 * The fleet is the mass-outage-recovery scenario (3,000 agents, timeline events at 10 m and 1 h)
 * on a paused clock. Nothing sleeps: each step waits for what the page shows.
 */
import { mkdir } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { axeViolations, launchChromium, screenshot } from '../browser/chromium.js'
import { admin } from '../admin/helpers.js'
import { AUTH, BASIC, PASSWORD, REST, USER, consoleHarness, json, type ConsoleHarness } from './helpers.js'

/** The README's screenshot, written with UPDATE_SCREENSHOTS=1. */
const DOCS_IMAGE = 'docs/images/console-fleet.png'

describe('the console in a browser', () => {
  let h: ConsoleHarness
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    h = await consoleHarness({ scenario: 'scenarios/mass-outage-recovery.yaml' })
    browser = await launchChromium()
    // axe-core is injected as a script, which the console's Content-Security-Policy refuses;
    // the last test checks the pages under their policy.
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
  })
  afterAll(async () => {
    await browser?.close()
    await h?.close()
  })

  /** The fleet page's virtual time, epoch ms. */
  const shownVirtualMs = async () => Number(await page.getAttribute('#virtual-time', 'data-ms'))
  /** Waits until the element shows exactly this text. */
  const shows = (selector: string, text: string) => page.locator(selector, { hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }).waitFor()
  const waitForVirtualMs = (ms: number) => page.locator(`#virtual-time[data-ms="${ms}"]`).waitFor()
  const shownCounts = () =>
    page.$$eval('#counts tbody tr', (rows) => Object.fromEntries(rows.map((row) => [row.getAttribute('data-state'), Number(row.querySelector('[data-count]')?.textContent?.replace(/,/g, ''))])))
  const shownOnline = (online: number) => shows('#counts tr[data-state=ONLINE] [data-count]', online.toLocaleString('en-US'))

  it('sends a visitor to the login form, and the admin credentials to the Fleet page', async () => {
    await page.goto(`${h.origin}/console/fleet`)
    expect(new URL(page.url()).pathname).toBe('/console/login')
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'console-login')
    await page.fill('#user', USER)
    await page.fill('#password', 'wrong')
    await page.click('button[type=submit]')
    expect(await page.textContent('[role=alert]')).toContain('Wrong user name or password')
    await page.fill('#user', USER)
    await page.fill('#password', PASSWORD)
    await page.click('button[type=submit]')
    await page.waitForURL(`${h.origin}/console/fleet`)
    expect(await page.textContent('h1')).toBe('Fleet')
  })

  it('shows the counts GET /__admin/fleet gives', async () => {
    const fleet = json<{ agents: number; byState: Record<string, number> }>(await admin(h.app, 'GET', '/fleet'))
    expect(fleet.agents).toBe(3000)
    expect(await shownCounts()).toEqual(fleet.byState)
    expect(await page.textContent('#total')).toBe('3,000')
  })

  it('runs the clock at a set speed and stops virtual time when paused', async () => {
    const start = await shownVirtualMs()
    await page.fill('#speed-input', '600')
    await page.click('#speed-form button')
    await shows('#speed', '600×')
    await page.click('#resume')
    // Virtual time moves on the page...
    await page.locator(`#virtual-time:not([data-ms="${start}"])`).waitFor()
    await page.click('#pause')
    await shows('#clock-state', 'paused')
    // ...and stops: once the fleet has caught up with the paused clock, the page shows that
    // second, and a later change of the fleet (an agent stopped) comes with the same time.
    await h.engine.advance(0)
    const stopped = h.engine.now()
    await waitForVirtualMs(stopped)
    const online = h.engine.counts().byState.ONLINE
    const index = h.engine.indices(new Set(['ONLINE'] as const))[Symbol.iterator]().next().value as number
    const stop = await h.app.inject({ method: 'POST', url: `${REST}/stopagent?agentUuids=${h.engine.uuid(index)}`, headers: { ...AUTH, accept: 'application/json' } })
    expect(stop.statusCode).toBe(200)
    await shownOnline(online - 1)
    expect(await shownVirtualMs()).toBe(stopped)
    expect(h.engine.clockState().paused).toBe(true)
  })

  it('advances the clock by an hour and then shows the counts GET /__admin/fleet gives', async () => {
    const before = await shownVirtualMs()
    await page.fill('#advance-input', '1h')
    await page.click('#advance-form button')
    await waitForVirtualMs(before + 3_600_000)
    expect(await page.textContent('#clock-message')).toContain('Clock paused')
    const fleet = json<{ byState: Record<string, number> }>(await admin(h.app, 'GET', '/fleet'))
    await shownOnline(fleet.byState.ONLINE)
    expect(await shownCounts()).toEqual(fleet.byState)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'console-fleet')
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      // The README's picture: the whole page as a 1280-pixel wide window shows it.
      await mkdir('docs/images', { recursive: true })
      await page.locator('#chart canvas').first().waitFor()
      await page.screenshot({ path: DOCS_IMAGE, fullPage: true })
    }
  })

  it('finds agents with the filter and pages through them', async () => {
    await page.click('nav >> text=Agents')
    await page.waitForURL(`${h.origin}/console/agents`)
    expect(await page.textContent('#agents-summary')).toBe('Agents 1–50 of 3,000')
    await page.fill('#f-label', 'site=berlin')
    await page.selectOption('#f-state', 'ONLINE')
    await page.click('#filter button[type=submit]')
    await page.waitForURL(/state=ONLINE/)
    const states = await page.$$eval('#agents tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent))
    expect(new Set(states)).toEqual(new Set(['ONLINE']))
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'console-agents')
    await page.click('a[rel=next]')
    await page.waitForURL(/offset=50/)
  })

  it("stops an agent from its page, showing stopagent's answer, and agentinfo then says ERROR", async () => {
    const name = (await page.textContent('#agents tbody tr:first-child td:first-child a')) as string
    await page.click('#agents tbody tr:first-child td:first-child a')
    await page.waitForURL(`${h.origin}/console/agents/${encodeURIComponent(name)}`)
    expect(await page.textContent('#agent-state')).toBe('ONLINE')
    await page.click('text=Stop (stopagent)')
    await page.locator('#operation-message.ok').waitFor()
    expect(await page.textContent('#operation-message')).toMatch(/^Stop \(stopagent\): HTTP 200 — /)
    await shows('#agent-state', 'ERROR')
    const info = await h.app.inject({ method: 'GET', url: `${REST}/agentinfo?agentname=${encodeURIComponent(name)}`, headers: { ...AUTH, accept: 'application/json' } })
    expect(json<{ values: Array<{ content: { status: string } }> }>(info).values[0].content.status).toBe('ERROR')
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'console-agent')
  })

  it("shows an operation's error as the operation gives it", async () => {
    await page.fill('#offline-for', 'soon')
    await page.click('form[data-form=offline] button')
    await page.locator('#operation-message.error').waitFor()
    const name = (await page.getAttribute('h1', 'data-agent')) as string
    const direct = json<{ errors: Array<{ message: string; code: string }> }>(await admin(h.app, 'POST', `/agents/${encodeURIComponent(name)}/override`, { action: 'offline', for: 'soon' }))
    expect(await page.textContent('#operation-message')).toContain(`${direct.errors[0].message} (${direct.errors[0].code})`)
  })

  it('runs its pages under their Content-Security-Policy without a violation', async () => {
    const strict = await browser.newPage()
    const violations: string[] = []
    strict.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text())
    })
    await strict.setExtraHTTPHeaders({ authorization: BASIC })
    await strict.goto(`${h.origin}/console/fleet`)
    // The stream's first event has drawn the chart (uPlot styles its elements from script).
    await strict.waitForSelector('#chart canvas, #chart[data-chart=missing]')
    await strict.goto(`${h.origin}/console/agents?state=ERROR`)
    await strict.click('#agents tbody tr:first-child td:first-child a')
    await strict.waitForSelector('#operation-message')
    expect(violations).toEqual([])
    await strict.close()
    // The pages name their icon: the browser asks no /favicon.ico, which the journal would
    // have recorded as a 404 of the client under test (the report's "requests refused").
    const refused = json<{ entries: Array<{ url: string }> }>(await admin(h.app, 'GET', '/requests?status=404'))
    expect(refused.entries.map((entry) => entry.url).filter((url) => url.includes('favicon'))).toEqual([])
  })
})
