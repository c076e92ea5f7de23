/**
 * The layer rule (.dependency-cruiser.cjs, `npm run depcheck`) catches what it is there for:
 * an import that points up a floor, one sideways between folders of a floor, and a cycle.
 * Each case is a tiny tree of its own, cruised with the project's configuration.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const CONFIG = resolve('.dependency-cruiser.cjs')
const CLI = resolve('node_modules/dependency-cruiser/bin/dependency-cruise.mjs')
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

/** Cruises a tree of `files` (path → source) and returns the exit code and the report. */
async function cruise(files: Record<string, string>): Promise<{ code: number; report: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'fleetsim-layers-'))
  dirs.push(dir)
  for (const [path, source] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), source)
  }
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true, noEmit: true } }))
  try {
    const { stdout } = await run(process.execPath, [CLI, 'src', '--config', CONFIG, '--output-type', 'err'], { cwd: dir })
    return { code: 0, report: stdout }
  } catch (error) {
    const failed = error as { code: number; stdout: string }
    return { code: failed.code, report: failed.stdout }
  }
}

describe('the layer rule', () => {
  it('passes a tree whose imports point down', async () => {
    const result = await cruise({ 'src/app.ts': "import { x } from './protocol/errors.js'\nexport const y = x\n", 'src/protocol/errors.ts': 'export const x = 1\n' })
    expect(result.code).toBe(0)
  })

  it('fails an import from the protocol vocabulary up to the composition root', async () => {
    const result = await cruise({ 'src/app.ts': 'export const y = 1\n', 'src/protocol/errors.ts': "import { y } from '../app.js'\nexport const x = y\n" })
    expect(result.code).not.toBe(0)
    expect(result.report).toContain('floor-0-imports-up: src/protocol/errors.ts → src/app.ts')
  })

  it('fails an import between two folders of one floor', async () => {
    const result = await cruise({ 'src/metrics/a.ts': "import { j } from '../journal/b.js'\nexport const a = j\n", 'src/journal/b.ts': 'export const j = 1\n' })
    expect(result.code).not.toBe(0)
    expect(result.report).toContain('floor-4-metrics-imports-sideways: src/metrics/a.ts → src/journal/b.ts')
  })

  it('fails a cycle inside one folder', async () => {
    const result = await cruise({ 'src/fleet/a.ts': "import { b } from './b.js'\nexport const a = () => b\n", 'src/fleet/b.ts': "import { a } from './a.js'\nexport const b = () => a\n" })
    expect(result.code).not.toBe(0)
    expect(result.report).toContain('no-cycles')
  })

  it('fails the conformance client importing the server side', async () => {
    const result = await cruise({ 'src/conformance/suite.ts': "import { f } from '../fleet/fleet.js'\nexport const s = f\n", 'src/fleet/fleet.ts': 'export const f = 1\n' })
    expect(result.code).not.toBe(0)
    expect(result.report).toContain('conformance-is-a-client')
  })
})
