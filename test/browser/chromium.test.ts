import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { axeViolations, launchChromium } from './chromium.js'

describe('the browser the browser tests use', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('finds a serious accessibility violation when a page has one', async () => {
    const page = await browser.newPage()
    await page.setContent('<html lang="en"><head><title>t</title></head><body><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><button></button></main></body></html>')
    const ids = (await axeViolations(page)).map((v) => v.id)
    expect(ids).toContain('button-name')
    await page.close()
  })

  it('reports none on a page that has none', async () => {
    const page = await browser.newPage()
    await page.setContent('<html lang="en"><head><title>t</title></head><body><main><h1>Fleet</h1><button>Pause</button></main></body></html>')
    expect(await axeViolations(page)).toEqual([])
    await page.close()
  })
})
