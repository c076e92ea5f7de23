import { mkdtemp, rm as realRm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer } from '../../src/server.js'

/** The lock's removal fails (a directory made read-only while serving), every other removal works. */
const lockRemoval = vi.hoisted(() => ({ fails: false }))
vi.mock('node:fs/promises', async (original) => {
  const actual = await original<typeof import('node:fs/promises')>()
  return {
    ...actual,
    rm: async (path: string, options?: Parameters<typeof actual.rm>[1]) => {
      if (lockRemoval.fails && String(path).endsWith('.lock')) throw Object.assign(new Error(`EACCES: permission denied, unlink '${String(path)}'`), { code: 'EACCES' })
      return actual.rm(path, options)
    }
  }
})

let dataDir: string
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-lock-release-'))
  lockRemoval.fails = false
})
afterEach(async () => {
  lockRemoval.fails = false
  await realRm(dataDir, { recursive: true, force: true })
})

describe('closing a server with --state-file', () => {
  it('says a lock it could not remove, and still closes with its save, where the error was thrown and hid a failed save', async () => {
    const lines: string[] = []
    const logger = createLogger('info', { pretty: false, destination: { write: (line: string) => void lines.push(line) } })
    const config = parseServeConfig(['--http', '--port', '0', '--agents', '50', '--workers', '1', '--paused', '--data-dir', dataDir, '--state-file', join(dataDir, 'state.bin')], {})
    const server = await startServer(config, { announce: () => undefined, logger })
    lockRemoval.fails = true
    await expect(server.close()).resolves.toEqual({ saveFailed: false })
    const records = lines.map((line) => JSON.parse(line) as { msg: string; lock?: string })
    expect(records.map((r) => r.msg)).toContain('saved the simulation')
    const said = records.find((r) => r.msg === 'could not remove the lock of --state-file; the next start takes it over')
    expect(said?.lock).toBe(join(dataDir, 'state.bin.lock'))
  })
})
