/**
 * A lock that cannot be written (a full disk) is removed, not left empty: an empty lock names
 * no process, and every later start was refused by it until it was removed by hand. The disk is
 * made full for the lock's own write only, by wrapping the handle `open` returns; while `diskFull`
 * is false the mock is Node's own functions (files of this tier share a process: isolate false).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'

let diskFull = false
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  const open: typeof real.open = async (...args) => {
    const handle = await real.open(...args)
    if (!diskFull) return handle
    return Object.assign(Object.create(handle) as typeof handle, {
      writeFile: async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      },
      close: () => handle.close()
    })
  }
  return { ...real, open, default: { ...real, open } }
})

const { lockStateFile } = await import('../../src/state/state-lock.js')

const dir = mkdtempSync(join(tmpdir(), 'fleetsim-lock-full-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the state file\'s lock on a full disk', () => {
  it('is removed when it cannot be written, so the next start takes it', async () => {
    const stateFile = join(dir, 'state.bin')
    diskFull = true
    await expect(lockStateFile(stateFile)).rejects.toThrow(`cannot write the lock ${stateFile}.lock of --state-file ${stateFile}: ENOSPC: no space left on device, write`)
    expect(existsSync(`${stateFile}.lock`)).toBe(false)
    diskFull = false
    const lock = await lockStateFile(stateFile)
    expect(existsSync(`${stateFile}.lock`)).toBe(true)
    await lock.release()
  })
})
