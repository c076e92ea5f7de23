/**
 * The console's Traffic page in a real browser (Chromium through playwright-core): a request
 * made with curl appears in the live list and opens to its request and answer bodies; the list
 * filters by operation and status; a fault rule is added (its problems shown first when it is
 * wrong), acts on the next curl request, and is removed; the client report is summed up. axe-core
 * finds no serious or critical violation, and the page is photographed to test-artifacts/.
 *
 * curl talks to the real server on 127.0.0.1 over plain HTTP. Nothing sleeps: each step waits
 * for what the page shows.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin } from '../admin/helpers.js'
import { axeViolations, launchChromium, screenshot } from '../browser/chromium.js'
import { AUTH, BASIC, consoleHarness, json, type ConsoleHarness } from './helpers.js'

const run = promisify(execFile)
const REST = '/manager/mvc/restservice'

describe('the Traffic page in a browser', () => {
  let h: ConsoleHarness
  let browser: Browser
  let page: Page
  /** the journal id of the curl request made before the page opened */
  let before: number

  /** One REST call with curl, as a client would make it; answers the HTTP status. */
  async function curl(path: string): Promise<number> {
    const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `REST_USER: ${AUTH.REST_USER}`, '-H', `REST_PASSWORD: ${AUTH.REST_PASSWORD}`, '-H', 'accept: application/json', `${h.origin}${REST}/${path}`], {
      timeout: 10_000
    })
    return Number(stdout)
  }

  /** The journal's id of the newest request. */
  const lastId = async () => json<{ lastId: number }>(await h.app.inject({ method: 'GET', url: '/__admin/requests?limit=1', headers: AUTH })).lastId
  const row = (id: number) => page.locator(`#journal tbody[data-id="${id}"] tr:not(.details)`)

  beforeAll(async () => {
    h = await consoleHarness({ agents: 40 })
    browser = await launchChromium()
    // axe-core is injected as a script, which the console's Content-Security-Policy refuses.
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
    await page.setExtraHTTPHeaders({ authorization: BASIC })
    expect(await curl('appinfo')).toBe(200)
    before = await lastId()
    await page.goto(`${h.origin}/console/traffic`)
  })
  afterAll(async () => {
    await browser?.close()
    await h?.close()
  })

  it('shows what the journal held when the page opened', async () => {
    await row(before).waitFor()
    expect(await row(before).getAttribute('data-operation')).toBe('appinfo')
  })

  it('shows a request made with curl as it is made, and opens it to its request and answer', async () => {
    expect(await curl('agentinfo.json?agentstate=ONLINE&agentwithmodules=false')).toBe(200)
    const id = await lastId()
    await row(id).waitFor()
    expect(await row(id).locator('td').allTextContents()).toEqual(['▸', String(id), expect.any(String), 'GET', 'agentinfo', '200', expect.stringMatching(/^\d+\.\d$/), ''])
    const toggle = row(id).locator('button.toggle')
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    await toggle.focus()
    await page.keyboard.press('Enter')
    const details = page.locator(`#entry-${id}`)
    await details.locator('pre[aria-label="Answer body"]').waitFor()
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    expect(await details.textContent()).toContain(`GET ${REST}/agentinfo.json?agentstate=ONLINE&agentwithmodules=false`)
    // The answer as the client got it (the journal keeps its beginning).
    const answer = JSON.parse(await h.app.inject({ method: 'GET', url: `/__admin/requests/${id}`, headers: AUTH }).then((r) => r.body)) as { responseBody: { text: string } }
    expect(answer.responseBody.text).toContain('"values"')
    expect(await details.locator('pre[aria-label="Answer body"]').textContent()).toContain(answer.responseBody.text.slice(0, 200))
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'console-traffic')
  })

  it('filters the list by operation and status, the live rows too', async () => {
    await page.selectOption('#f-operation', 'agentinfo')
    await page.selectOption('#f-status', '4xx')
    await page.locator('#journal-summary', { hasText: 'agentinfo, status 4xx' }).waitFor()
    expect(await page.locator('#journal tbody[data-id]').count()).toBe(0)
    expect(await curl('appinfo')).toBe(200)
    expect(await curl('agentinfo?agentstate=BOGUS')).toBe(400)
    const bad = await lastId()
    await row(bad).waitFor()
    const shown = () => page.locator('#journal tbody[data-id] tr:not(.details)').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-operation')} ${r.getAttribute('data-status')}`))
    expect(await shown()).toEqual(['agentinfo 400'])
    await page.selectOption('#f-operation', 'appinfo')
    await page.locator('#journal-summary', { hasText: 'appinfo, status 4xx' }).waitFor()
    expect(await shown()).toEqual([])
    await page.selectOption('#f-status', '')
    await page.locator('#journal-summary', { hasText: '(appinfo), newest' }).waitFor()
    expect(new Set(await shown())).toEqual(new Set(['appinfo 200']))
    await page.selectOption('#f-operation', '')
    await row(bad).waitFor()
  })

  it('adds a fault rule, shows it acting on the next call, and removes it', async () => {
    // A rule with a mistake: its problem is shown, nothing is added.
    await page.fill('#fault-rule', '{ name: down, operation: appinfo, error: { status: 503, rate: often } }')
    await page.click('#fault-form button[type=submit]')
    await page.locator('#fault-message.error').waitFor()
    const column = '{ name: down, operation: appinfo, error: { status: 503, rate: often } }'.indexOf('often') + 1
    expect(await page.locator('#fault-problems li').allTextContents()).toEqual([`error.rate: expected a fraction between 0 and 1, got "often" (line 1, column ${column})`])
    expect(await page.getAttribute('#fault-rule', 'aria-invalid')).toBe('true')
    expect(json<{ rules: unknown[] }>(await admin(h.app, 'GET', '/faults')).rules).toEqual([])

    await page.fill('#fault-rule', '{ name: down, operation: appinfo, error: { status: 503, rate: 1 } }')
    await page.click('#fault-form button[type=submit]')
    await page.locator('#faults tr[data-rule="added-1"]').waitFor()
    expect(await page.textContent('#fault-message')).toBe('Added fault rule added-1.')
    expect(await page.locator('#faults tr[data-rule="added-1"] td').allTextContents()).toEqual(['added-1', 'down', 'added here', 'appinfo', 'error 503 at 100%', 'Remove'])
    expect(json<{ rules: Array<{ id: string }> }>(await admin(h.app, 'GET', '/faults')).rules.map((rule) => rule.id)).toEqual(['added-1'])

    expect(await curl('appinfo')).toBe(503)
    const faulted = await lastId()
    await row(faulted).waitFor()
    expect(await row(faulted).locator('td').nth(5).textContent()).toBe('503')
    expect(await row(faulted).locator('td').nth(7).textContent()).toBe('error')
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'console-traffic-faults')

    await page.click('#faults button[aria-label="Remove fault rule down (added-1)"]')
    await page.locator('#faults tr[data-rule="added-1"]').waitFor({ state: 'detached' })
    expect(await page.textContent('#fault-message')).toBe('Removed fault rule down (added-1).')
    expect(json<{ rules: unknown[] }>(await admin(h.app, 'GET', '/faults')).rules).toEqual([])
    expect(await curl('appinfo')).toBe(200)
  })

  it('sums up the client report and links to it in full', async () => {
    await page.click('#refresh-report')
    const report = json<{ verdict: { outcome: string; counts: { requests: number } } }>(await h.app.inject({ method: 'GET', url: '/__admin/report', headers: AUTH }))
    await page.locator('#report .report-figures', { hasText: `Requests judged${report.verdict.counts.requests}` }).waitFor()
    expect(await page.getAttribute('#report .verdict', 'class')).toBe(`verdict verdict-${report.verdict.outcome}`)
    const href = (await page.getAttribute('a:has-text("Open the full client report")', 'href')) as string
    const full = await page.request.get(`${h.origin}${href}`, { headers: { authorization: BASIC } })
    expect(full.status()).toBe(200)
    expect(full.headers()['content-type']).toMatch(/^text\/html/)
  })

  it('runs under its Content-Security-Policy without a violation', async () => {
    const strict = await browser.newPage()
    const violations: string[] = []
    strict.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text())
    })
    await strict.setExtraHTTPHeaders({ authorization: BASIC })
    await strict.goto(`${h.origin}/console/traffic`)
    await strict.waitForSelector('#journal tbody[data-id]')
    expect(violations).toEqual([])
    await strict.close()
  })
})
