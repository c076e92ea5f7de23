import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { replaceFiles } from '../../src/lib/replace-files.js'

const root = mkdtempSync(join(tmpdir(), 'fleetsim-replace-files-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const freshDir = () => mkdtempSync(join(root, `case-${n++}-`))

describe('files replaced together', () => {
  it('replaces a symbolic link where a file goes, not the file it names (a planted link had it written over)', async () => {
    const dir = freshDir()
    const victim = join(root, `victim-${n}.txt`)
    writeFileSync(victim, 'precious\n')
    symlinkSync(victim, join(dir, 'states.csv'))
    await replaceFiles([[join(dir, 'states.csv'), 'second,agents\n']])
    expect(readFileSync(victim, 'utf8')).toBe('precious\n')
    expect(lstatSync(join(dir, 'states.csv')).isFile()).toBe(true)
    expect(readFileSync(join(dir, 'states.csv'), 'utf8')).toBe('second,agents\n')
  })

  it('leaves every earlier file as it was when one cannot be written, and no temporary file behind', async () => {
    const dir = freshDir()
    writeFileSync(join(dir, 'index.html'), 'earlier report\n')
    const unwritable = join(dir, 'missing-dir', 'summary.json')
    await expect(replaceFiles([[join(dir, 'index.html'), 'new report\n'], [unwritable, '{}']])).rejects.toThrow(`cannot write ${unwritable}: ENOENT`)
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe('earlier report\n')
    expect(readdirSync(dir)).toEqual(['index.html'])
  })
})
