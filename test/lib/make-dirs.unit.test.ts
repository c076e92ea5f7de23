import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeDirs } from '../../src/lib/make-dirs.js'

describe('makeDirs', () => {
  let root: string
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'make-dirs-'))
  })
  afterEach(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('makes every missing directory, each with the mode asked for', async () => {
    const deep = join(root, 'a', 'b', 'c')
    await makeDirs(deep, 0o700)
    for (const dir of [join(root, 'a'), join(root, 'a', 'b'), deep]) {
      const info = await stat(dir)
      expect(info.isDirectory()).toBe(true)
      expect(info.mode & 0o777).toBe(0o700)
    }
  })

  it('leaves a directory that exists as it is', async () => {
    await makeDirs(root)
    await expect(makeDirs(root)).resolves.toBeUndefined()
  })

  it('refuses a path through a file with ENOTDIR', async () => {
    await writeFile(join(root, 'file'), 'x')
    await expect(makeDirs(join(root, 'file'))).rejects.toMatchObject({ code: 'ENOTDIR' })
    await expect(makeDirs(join(root, 'file', 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' })
  })

  // mkdir(…, { recursive: true }) never returns here on Node 20.
  it.runIf(process.platform === 'linux')('fails at once under /proc, which refuses new entries', async () => {
    await expect(makeDirs('/proc/fleetsim-test/report')).rejects.toMatchObject({ code: 'ENOENT' })
  })
})
