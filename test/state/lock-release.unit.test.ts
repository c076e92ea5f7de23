import { describe, expect, it } from 'vitest'
import { releaseAtClose, type StateLock } from '../../src/state/state-lock.js'

describe('the lock of --state-file at close', () => {
  it('is released, and a failure to remove it is said, not thrown (thrown, it hid a failed save at exit)', async () => {
    const said: Array<{ fields: Record<string, unknown>; message: string }> = []
    const logger = { error: (fields: Record<string, unknown>, message: string) => void said.push({ fields, message }) }
    let released = 0
    const lock = (fails: boolean): StateLock => ({
      path: '/data/state.bin.lock',
      release: async () => {
        released++
        if (fails) throw Object.assign(new Error("EACCES: permission denied, unlink '/data/state.bin.lock'"), { code: 'EACCES' })
      }
    })
    await expect(releaseAtClose(lock(false), logger as never)).resolves.toBeUndefined()
    expect(said).toEqual([])
    await expect(releaseAtClose(lock(true), logger as never)).resolves.toBeUndefined()
    expect(released).toBe(2)
    expect(said).toEqual([
      { fields: { err: expect.objectContaining({ code: 'EACCES' }), lock: '/data/state.bin.lock' }, message: 'could not remove the lock of --state-file; the next start takes it over' }
    ])
  })
})
