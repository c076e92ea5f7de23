import { execFile } from 'node:child_process'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

describe('the built fleetsim executable', () => {
  it('is executable after `npm run build`, as npx and `npm link` run it (not only through node)', async () => {
    // tsc writes a new dist/cli.js without the executable bit; npm sets it once, when it first
    // links the bin, so a checkout rebuilt later (or cloned again where npx had cached the link)
    // answered `npx fleetsim` with "Permission denied".
    // Written anew, as in a fresh clone: tsc keeps the mode of a file it overwrites.
    rmSync('dist/cli.js', { force: true })
    await run('npm', ['run', 'build'], { env: { ...process.env, NO_COLOR: '1' } })
    expect(statSync('dist/cli.js').mode & 0o111).toBe(0o111)
    const { stdout } = await run('./dist/cli.js', ['--version'])
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
    expect(stdout).toContain(version)
  }, 120_000)
})
