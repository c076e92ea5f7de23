import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { FLEET_BUILDING, FLEET_BUILT, LARGE_FLEET_AGENTS } from '../../src/metrics/build-log.js'
import { createLogger, startServer } from '../../src/server.js'

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

/** Starts serve with these flags; returns its log records' messages and the listening line, in order. */
async function startUp(flags: string[]): Promise<Array<Record<string, unknown>>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-build-log-'))
  dirs.push(dataDir)
  const said: Array<Record<string, unknown>> = []
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) said.push(JSON.parse(line) as Record<string, unknown>)
      done()
    }
  })
  const config = parseServeConfig(['--port', '0', '--http', '--paused', '--workers', '1', '--data-dir', dataDir, ...flags], {})
  const server = await startServer(config, { logger: createLogger(config.logLevel, { destination }), announce: (line) => said.push({ announce: line }) })
  await server.close()
  return said
}

describe('start-up of a large fleet', () => {
  it('logs that the fleet is being built before the listening line, and how long it took', { timeout: 60_000 }, async () => {
    const said = await startUp(['--agents', String(LARGE_FLEET_AGENTS)])
    const building = said.findIndex((record) => record.msg === FLEET_BUILDING)
    const built = said.findIndex((record) => record.msg === FLEET_BUILT)
    const listening = said.findIndex((record) => record.announce !== undefined)
    expect(said[building]).toMatchObject({ level: 30, agents: LARGE_FLEET_AGENTS })
    expect(said[built]).toMatchObject({ level: 30, agents: LARGE_FLEET_AGENTS, seconds: expect.any(Number) })
    expect(building).toBeGreaterThanOrEqual(0)
    expect(building).toBeLessThan(built)
    expect(built).toBeLessThan(listening)
  })

  it('stays quiet at --log-level silent', { timeout: 60_000 }, async () => {
    const said = await startUp(['--agents', String(LARGE_FLEET_AGENTS), '--log-level', 'silent'])
    expect(said.map((record) => Object.keys(record))).toEqual([['announce']])
  })

  it('says nothing about building a small fleet', async () => {
    const said = await startUp(['--agents', '100'])
    expect(said.filter((record) => record.msg === FLEET_BUILDING || record.msg === FLEET_BUILT)).toEqual([])
  })
})
