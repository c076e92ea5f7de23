import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { createManager } from '../../src/manager/manager.js'
import { createLogger } from '../../src/server.js'
import { readStateFile } from '../../src/state/state-file.js'
import { StateSaveError, savePeriodically, stateSaver } from '../../src/state/state-saver.js'
import { CA } from '../http/helpers.js'

const logger = createLogger('silent', { pretty: false })
let dir: string
let engine: FleetEngine
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleetsim-saver-'))
  engine = await createFleet({ agents: 5, seed: 1, workers: 1, paused: true, caFingerprint: CA.fingerprint })
})
afterEach(async () => {
  await engine.close()
  await rm(dir, { recursive: true, force: true })
})

describe('the state saver', () => {
  it('is not made without --state-file', () => {
    expect(stateSaver({ stateFile: undefined }, engine, createManager(engine, CA), CA, logger)).toBeUndefined()
  })

  it('counts saves and failures, and rejects a failed save with the file and the cause', async () => {
    const path = join(dir, 'state.bin')
    const save = stateSaver({ stateFile: path }, engine, createManager(engine, CA), CA, logger)!
    await save()
    await rm(path)
    await mkdir(path)
    await writeFile(join(path, 'in-the-way'), 'x')

    const failure = await save().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(StateSaveError)
    expect(failure).toMatchObject({ path, reason: expect.stringMatching(/EISDIR|ENOTEMPTY|EEXIST/) })
    expect(save.totals).toEqual({ saves: 1, failures: 1 })

    // The next save is not held up by the failed one.
    await rm(path, { recursive: true })
    await expect(save()).resolves.toMatchObject({ path })
    expect(save.totals).toEqual({ saves: 2, failures: 1 })
    expect((await readStateFile(path, CA.fingerprint)).caFingerprint).toBe(CA.fingerprint)
  })

  it('removes the temporary files of interrupted saves when it is made', async () => {
    const stale = join(dir, '.state.bin.999999999.tmp')
    await writeFile(stale, 'partial')
    stateSaver({ stateFile: join(dir, 'state.bin') }, engine, createManager(engine, CA), CA, logger)
    await expect(rm(stale)).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('periodic saves (--snapshot-interval)', () => {
  it('start the next save an interval after the last one ended, so saves slower than the interval do not queue up', async () => {
    vi.useFakeTimers()
    try {
      let started = 0
      let running = 0
      let most = 0
      // Each save takes 2.5 intervals, as saves of 2.5 s every second did when ten were queued at SIGTERM.
      const save = () => {
        started++
        most = Math.max(most, ++running)
        return new Promise<void>((resolve) => setTimeout(() => resolve(void running--), 2500))
      }
      const errors: unknown[] = []
      const saves = savePeriodically(save, 1000, (error) => errors.push(error))
      await vi.advanceTimersByTimeAsync(10_500)
      // 1 s wait + 2.5 s save, three times over, with the fourth under way: never two at once.
      expect(started).toBe(3)
      expect(most).toBe(1)
      saves.stop()
      await vi.advanceTimersByTimeAsync(10_000)
      expect(started).toBe(3)
      expect(errors).toEqual([])
    } finally {
      vi.useRealTimers()
    }
  })

  it('go on after a failed save, handing its error over', async () => {
    vi.useFakeTimers()
    try {
      let started = 0
      const errors: unknown[] = []
      const saves = savePeriodically(() => Promise.reject(new Error(`disk full ${++started}`)), 1000, (error) => errors.push((error as Error).message))
      await vi.advanceTimersByTimeAsync(3500)
      saves.stop()
      expect(errors).toEqual(['disk full 1', 'disk full 2', 'disk full 3'])
    } finally {
      vi.useRealTimers()
    }
  })
})
