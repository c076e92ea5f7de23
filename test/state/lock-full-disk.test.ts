/**
 * A lock that cannot be written (a full disk) is removed, not left empty: an empty lock names
 * no process, and every later start was refused by it until it was removed by hand. The disk is
 * full for the lock's own write only: lockStateFile is given an `open` whose handle says ENOSPC.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { lockStateFile, type LockFiles } from '../../src/state/state-lock.js'

const dir = mkdtempSync(join(tmpdir(), 'fleetsim-lock-full-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fullDisk: LockFiles = {
  async open(path, flags) {
    const handle = await open(path, flags)
    return Object.assign(Object.create(handle) as FileHandle, {
      writeFile: async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      },
      close: () => handle.close()
    })
  }
}

describe("the state file's lock on a full disk", () => {
  it('is removed when it cannot be written, so the next start takes it', async () => {
    const stateFile = join(dir, 'state.bin')
    await expect(lockStateFile(stateFile, fullDisk)).rejects.toThrow(`cannot write the lock ${stateFile}.lock of --state-file ${stateFile}: ENOSPC: no space left on device, write`)
    expect(existsSync(`${stateFile}.lock`)).toBe(false)
    const lock = await lockStateFile(stateFile)
    expect(existsSync(`${stateFile}.lock`)).toBe(true)
    await lock.release()
  })
})
