import { spawnSync } from 'node:child_process'
import { lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFleet } from '../../src/fleet/fleet.js'
import { createManager, type ManagerSnapshot } from '../../src/manager/manager.js'
import { readStateFile, removeStaleTemporaries, temporaryPath, writeStateFile } from '../../src/state/state-file.js'
import { CA as ca } from '../http/helpers.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleetsim-temporaries-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''])
  return child.pid as number
}

async function touch(...names: string[]): Promise<void> {
  for (const name of names) await writeFile(join(dir, name), 'partial save')
}

describe('temporary state files', () => {
  it('are removed at start-up when their process is dead or had this pid before', async () => {
    const dead = deadPid()
    await touch(`.state.bin.${dead}.tmp`, `.state.bin.${process.pid}.tmp`, `.state.bin.999999999.tmp`)
    const removed = removeStaleTemporaries(join(dir, 'state.bin'))
    expect(removed.sort()).toEqual([`.state.bin.${dead}.tmp`, `.state.bin.${process.pid}.tmp`, '.state.bin.999999999.tmp'].map((name) => join(dir, name)).sort())
    expect(await readdir(dir)).toEqual([])
  })

  it('are kept while their process runs: another fleetsim may be saving to the same file', async () => {
    await touch(`.state.bin.${process.ppid}.tmp`)
    expect(removeStaleTemporaries(join(dir, 'state.bin'))).toEqual([])
    expect(await readdir(dir)).toEqual([`.state.bin.${process.ppid}.tmp`])
  })

  it('are told apart from every other file next to the state file', async () => {
    const others = ['state.bin', '.state.bin.tmp', '.state.bin.12x.tmp', '.state.bin.0.tmp', '.other.bin.123.tmp', '.state.bin.123.tmp.keep', 'state.bin.123.tmp']
    await touch(...others)
    expect(removeStaleTemporaries(join(dir, 'state.bin'))).toEqual([])
    expect((await readdir(dir)).sort()).toEqual(others.sort())
  })

  it('are nothing to remove when the state file directory does not exist yet', () => {
    expect(removeStaleTemporaries(join(dir, 'missing', 'state.bin'))).toEqual([])
  })

  it('are removed when a save fails while writing, and the state file is left as it was', async () => {
    const engine = await createFleet({ agents: 5, seed: 1, workers: 1, paused: true, caFingerprint: ca.fingerprint })
    try {
      const path = join(dir, 'state.bin')
      await writeFile(path, 'the previous state')
      // A header that is one byte longer each time it is read: the save measures it, then finds
      // it changed while writing, and gives up with the temporary file half written.
      let length = 0
      const changing = { get text() { return 'x'.repeat(++length) } }
      const manager = { ...createManager(engine, ca).snapshot(), changing } as unknown as ManagerSnapshot
      const state = { savedAt: 'now', caFingerprint: ca.fingerprint, engine: await engine.snapshot(), manager }
      await expect(writeStateFile(path, state)).rejects.toThrow('the state changed while it was saved')
      expect(await readdir(dir)).toEqual(['state.bin'])
      expect(await readFile(path, 'utf8')).toBe('the previous state')
      expect(temporaryPath(path)).toBe(join(dir, `.state.bin.${process.pid}.tmp`))
    } finally {
      await engine.close()
    }
  })

  it('go next to the file a symbolic link names, and the save replaces that file, not the link', async () => {
    const engine = await createFleet({ agents: 5, seed: 1, workers: 1, paused: true, caFingerprint: ca.fingerprint })
    try {
      // The state kept elsewhere (another volume), reached through a link next to the server.
      await mkdir(join(dir, 'volume'))
      const real = join(dir, 'volume', 'state.bin')
      const link = join(dir, 'state.bin')
      const state = async (savedAt: string) => ({ savedAt, caFingerprint: ca.fingerprint, engine: await engine.snapshot(), manager: createManager(engine, ca).snapshot() })
      await writeStateFile(real, await state('first'))
      await symlink(real, link)
      await writeStateFile(link, await state('second'))
      expect((await lstat(link)).isSymbolicLink()).toBe(true)
      expect((await readStateFile(real)).savedAt).toBe('second')
      await writeFile(join(dir, 'volume', '.state.bin.999999999.tmp'), 'partial save')
      expect(removeStaleTemporaries(link)).toEqual([join(await realpath(join(dir, 'volume')), '.state.bin.999999999.tmp')])
      // A link to a file not written yet (the first save): the save goes to the file it names.
      const later = join(dir, 'volume', 'later.bin')
      const laterLink = join(dir, 'later.bin')
      await symlink(later, laterLink)
      await writeStateFile(laterLink, await state('first of its own'))
      expect((await lstat(laterLink)).isSymbolicLink()).toBe(true)
      expect((await readStateFile(later)).savedAt).toBe('first of its own')
    } finally {
      await engine.close()
    }
  })
})
