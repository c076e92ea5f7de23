/**
 * A real browser for the browser tests: Debian's `chromium` (installed by .ci/run) driven by
 * playwright-core, which downloads nothing. `FLEETSIM_CHROMIUM` names another binary.
 *
 * Screenshots go to `test-artifacts/` (ignored by git); the accessibility check runs axe-core
 * in the page and returns the violations of the impacts asked for.
 */
import { mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

const require = createRequire(import.meta.url)

export const CHROMIUM = process.env.FLEETSIM_CHROMIUM ?? '/usr/bin/chromium'
export const ARTIFACTS = join(process.cwd(), 'test-artifacts')

export function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
}

/** Writes a full-page screenshot to test-artifacts/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(ARTIFACTS, `${name}.png`)
  await mkdir(join(path, '..'), { recursive: true })
  await page.screenshot({ path, fullPage: true })
  return path
}

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  targets: string[]
}

/** Runs axe-core in the page; returns the violations whose impact is one of `impacts`. */
export async function axeViolations(page: Page, impacts: string[] = ['serious', 'critical']): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') })
  const all = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe
    const result = await axe.run()
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }))
  })
  return all.filter((v) => v.impact !== null && impacts.includes(v.impact))
}
