import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { createManager } from '../../src/manager/manager.js'
import { createLogger } from '../../src/server.js'
import { readStateFile } from '../../src/state/state-file.js'
import { StateSaveError, stateSaver } from '../../src/state/state-saver.js'
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
