/**
 * The console's Scenarios page in a real browser (Chromium through playwright-core): the library
 * with its descriptions, a scenario file uploaded with an error and the error marked at its line
 * (gutter, list, announcement, the cursor taken there), the fixed scenario loaded, a library
 * scenario started and opened in the editor, and the fleet reset. axe-core finds no serious or
 * critical violation, and the page is photographed to test-artifacts/.
 *
 * Nothing sleeps: each step waits for what the page shows.
 */
import { readFileSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { libraryFiles } from '../../src/scenario/index.js'
import { axeViolations, launchChromium, screenshot } from '../browser/chromium.js'
import { BASIC, consoleHarness, type ConsoleHarness } from './helpers.js'

/** Line 4 has a wrong value (at column 11), line 5 an unknown key (at column 3). */
const BROKEN = 'name: broken\ndescription: A scenario with two mistakes.\nfleet:\n  agents: ten\n  modse: { Connect: 1 }\n'
const BROKEN_LINES = BROKEN.split('\n')

describe('the Scenarios page in a browser', () => {
  let h: ConsoleHarness
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    h = await consoleHarness({ agents: 40 })
    browser = await launchChromium()
    // axe-core is injected as a script, which the console's Content-Security-Policy refuses.
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
    await page.setExtraHTTPHeaders({ authorization: BASIC })
    await page.goto(`${h.origin}/console/scenarios`)
  })
  afterAll(async () => {
    await browser?.close()
    await h?.close()
  })

  it('lists the library with each scenario’s description', async () => {
    const files = await libraryFiles()
    await page.waitForSelector('#library tbody tr[data-scenario]')
    expect(await page.locator('#library tbody tr[data-scenario]').count()).toBe(files.length)
    const row = page.locator('#library tr[data-scenario=mass-outage-recovery]')
    expect(await row.locator('td').first().textContent()).toMatch(/^3,000 agents; at 10m a network outage/)
    expect(await row.locator('td.num').textContent()).toBe('3,000')
    expect(await page.getAttribute('nav a[aria-current=page]', 'href')).toBe('/console/scenarios')
  })

  it('marks the problems of an uploaded file at their lines and takes the cursor there', async () => {
    await page.setInputFiles('#scenario-file', { name: 'broken.yaml', mimeType: 'application/yaml', buffer: Buffer.from(BROKEN) })
    // A chosen file is checked at once (PUT /__admin/scenario?dryRun=true).
    await page.waitForSelector('#gutter [data-line="4"].error')
    expect(await page.inputValue('#scenario-source')).toBe('broken.yaml')
    expect(await page.locator('#gutter .error').evaluateAll((lines) => lines.map((line) => line.getAttribute('data-line')))).toEqual(['4', '5'])
    expect(await page.getAttribute('#gutter [data-line="4"]', 'title')).toBe('expected an integer from 1 to 10000000, got "ten"')
    expect(await page.locator('#problem-list li').allTextContents()).toEqual([
      'Line 4, column 11 (fleet.agents): expected an integer from 1 to 10000000, got "ten"',
      'Line 5, column 3 (fleet.modse): unknown key "modse"; did you mean "modes"?'
    ])
    // Announced to screen readers, and the text area says it is invalid.
    expect(await page.getAttribute('#problems-summary', 'role')).toBe('status')
    expect(await page.textContent('#problems-summary')).toBe('2 problems. First: line 4, column 11: expected an integer from 1 to 10000000, got "ten"')
    expect(await page.getAttribute('#scenario-text', 'aria-invalid')).toBe('true')
    // Nothing was loaded: a check changes nothing.
    expect(h.engine.scenarioInfo()).toBeUndefined()

    // From the keyboard: Tab to the first problem, Enter, and the cursor is on line 4, column 11.
    await page.locator('#problem-list button').first().focus()
    await page.keyboard.press('Enter')
    expect(await page.evaluate('document.activeElement.id')).toBe('scenario-text')
    const start = await page.evaluate('document.activeElement.selectionStart')
    const lineStart = BROKEN_LINES.slice(0, 3).join('\n').length + 1
    expect(start).toBe(lineStart + 10)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'console-scenarios')
  })

  it('loads the corrected scenario from the editor and shows it running', async () => {
    await page.fill('#scenario-text', BROKEN.replace('ten', '25').replace('modse', 'modes'))
    await page.click('#load')
    await page.locator('#problems-summary', { hasText: /^Started / }).waitFor()
    expect(await page.textContent('#problems-summary')).toBe('Started broken at its second 0.')
    expect(await page.locator('#gutter .error').count()).toBe(0)
    expect(await page.getAttribute('#scenario-text', 'aria-invalid')).toBeNull()
    expect(h.engine.scenarioInfo()?.name).toBe('broken')
    expect(h.engine.counts().agents).toBe(25)
    await page.locator('#running', { hasText: /^broken: / }).waitFor()
  })

  it('starts a library scenario, and opens another in the editor', async () => {
    await page.click('#library tr[data-scenario=steady-fleet] button:has-text("Start")')
    await page.waitForSelector('#library-message.ok')
    expect(await page.textContent('#library-message')).toBe('Started steady-fleet at its second 0.')
    expect(h.engine.scenarioInfo()?.name).toBe('steady-fleet')
    expect(h.engine.counts().agents).toBe(1000)

    await page.click('#library tr[data-scenario=rolling-restart] button:has-text("Edit")')
    await page.locator('#library-message', { hasText: 'rolling-restart is in the editor below.' }).waitFor()
    expect(await page.inputValue('#scenario-text')).toBe(readFileSync('scenarios/rolling-restart.yaml', 'utf8'))
    expect(await page.inputValue('#scenario-source')).toBe('scenarios/rolling-restart.yaml')
    await page.click('#check')
    await page.waitForSelector('#problems-summary.ok')
    expect(await page.textContent('#problems-summary')).toBe('No problems: rolling-restart, 1,000 agents. Load it to start it.')
  })

  it('resets the running scenario to its start', async () => {
    await h.engine.advance(600)
    expect(h.engine.second()).toBe(600)
    await page.click('#reset')
    await page.waitForSelector('#running-message.ok')
    expect(await page.textContent('#running-message')).toBe('Scenario steady-fleet is back at its start: 1,000 agents.')
    expect(h.engine.second()).toBe(0)
  })

  it('runs under its Content-Security-Policy without a violation', async () => {
    const strict = await browser.newPage()
    const violations: string[] = []
    strict.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text())
    })
    await strict.setExtraHTTPHeaders({ authorization: BASIC })
    await strict.goto(`${h.origin}/console/scenarios`)
    await strict.waitForSelector('#library tbody tr[data-scenario]')
    expect(violations).toEqual([])
    await strict.close()
  })
})
