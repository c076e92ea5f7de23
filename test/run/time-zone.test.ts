import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { run } from '../../src/commands/run.js'
import { ConfigError, parseServeConfig } from '../../src/config.js'

const exec = promisify(execFile)
const ZONES = ['America/New_York', 'Asia/Tokyo']

// A child process per zone: V8 reads TZ once, so setting process.env.TZ here would prove nothing.
const node = (tz: string, args: string[]) => exec(process.execPath, args, { env: { ...process.env, TZ: tz, NO_COLOR: '1' } })

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function errorOf(action: () => unknown): Promise<ConfigError> {
  const error = await Promise.resolve().then(action).then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(ConfigError)
  return error as ConfigError
}

describe('fleetsim run in any time zone', () => {
  it('gives the same digest for the same scenario and flags with TZ=America/New_York and TZ=Asia/Tokyo', async () => {
    const offsets: number[] = []
    const digests: string[] = []
    for (const tz of ZONES) {
      const { stdout } = await node(tz, ['-e', 'process.stdout.write(String(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()))'])
      offsets.push(Number(stdout))
      const dir = await mkdtemp(join(tmpdir(), 'fleetsim-tz-'))
      dirs.push(dir)
      // A bare date: read in the local zone it would be another instant in each zone.
      await node(tz, ['--import', 'tsx', 'src/cli.ts', 'run', 'scenarios/steady-fleet.yaml', '--duration', '10m', '--workers', '1', '--start-time', '2026-01-01', '--out', dir])
      digests.push((JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as { digest: string }).digest)
    }
    // The children really ran in different zones (New York is behind UTC, Tokyo ahead).
    expect(offsets).toEqual([300, -540])
    expect(digests[0]).toMatch(/^[0-9a-f]{64}$/)
    expect(digests[1]).toBe(digests[0])
  })

  it('refuses a start time without a zone, with the message serve gives', async () => {
    const time = '2026-01-01T00:00:00'
    const fromServe = await errorOf(() => parseServeConfig(['--start-time', time], {}))
    const fromRun = await errorOf(() => run(['scenarios/steady-fleet.yaml', '--out', 'unused', '--start-time', time]))
    expect(fromServe.code).toBe('FLEETSIM_INVALID_VALUE')
    expect(fromServe.message).toBe(`--start-time must be an ISO 8601 date-time with a time zone, like 2026-01-01T00:00:00Z, got "${time}"`)
    expect(fromRun.code).toBe(fromServe.code)
    expect(fromRun.message).toBe(fromServe.message)
  })
})

describe('fleetsim serve and fleetsim run', () => {
  it('read --workers with one rule: both refuse 1e0 with the same message', async () => {
    const fromServe = await errorOf(() => parseServeConfig(['--workers', '1e0'], {}))
    const fromRun = await errorOf(() => run(['scenarios/steady-fleet.yaml', '--out', 'unused', '--workers', '1e0']))
    expect(fromServe.message).toBe('--workers must be an integer from 1 to 1024, got "1e0"')
    expect(fromRun.message).toBe(fromServe.message)
  })
})
