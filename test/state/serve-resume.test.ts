import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'

let dataDir: string
let server: RunningServer | undefined
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-resume-'))
})
afterEach(async () => {
  await server?.close()
  server = undefined
  await rm(dataDir, { recursive: true, force: true })
})

const quiet = { announce: () => undefined, logger: createLogger('silent', { pretty: false }) }
const admin = { REST_USER: 'admin', REST_PASSWORD: 'admin', 'content-type': 'application/json' }

function config(extra: string[] = []) {
  return parseServeConfig(
    ['--http', '--port', '0', '--agents', '500', '--workers', '1', '--paused', '--start-time', '2026-09-01T00:00:00Z', '--data-dir', dataDir, '--state-file', join(dataDir, 'state.bin'), ...extra],
    {}
  )
}

async function call(method: string, path: string, body?: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${server!.port}${path}`, { method, headers: admin, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

describe('serve with --state-file', () => {
  it('saves on request and at exit, and a new server resumes with the same digest', async () => {
    server = await startServer(config(), quiet)
    await call('POST', '/__admin/clock/advance', { seconds: 3600 })
    const saved = await call('POST', '/__admin/snapshot')
    expect(saved.status).toBe(200)
    expect(saved.json.path).toBe(join(dataDir, 'state.bin'))
    await call('POST', '/__admin/clock/advance', { seconds: 600 })
    const before = (await call('GET', '/__admin/fleet')).json
    await server.close()

    // The saved run keeps its fleet and clock: --agents and the clock's flags are said to be ignored, not dropped without a word.
    const lines: string[] = []
    // config() gives --start-time and --paused too.
    server = await startServer(config(['--agents', '9', '--speed', '60']), {
      announce: () => undefined,
      logger: createLogger('warn', { pretty: false, destination: { write: (line: string) => void lines.push(line) } })
    })
    expect(lines.map((line) => JSON.parse(line).msg)).toContain(
      'resuming from the state file: --agents, --speed, --start-time, --paused ignored (the saved run keeps its own; remove the state file to start anew)'
    )
    const after = (await call('GET', '/__admin/fleet')).json
    expect(after).toEqual(before)
    expect((await call('GET', '/__admin/clock')).json.now).toBe('2026-09-01T01:10:00.000Z')
  })

  it('refuses to start over a file that is not a fleetsim state, and leaves it alone', async () => {
    const path = join(dataDir, 'state.bin')
    await writeFile(path, 'precious notes\n')
    await expect(startServer(config(), quiet)).rejects.toThrow(/is not a fleetsim state file/)
    expect(await readFile(path, 'utf8')).toBe('precious notes\n')
  })

  it('answers POST /__admin/snapshot without --state-file with a 409 that says how to fix it', async () => {
    server = await startServer(parseServeConfig(['--http', '--port', '0', '--agents', '10', '--workers', '1', '--data-dir', dataDir], {}), quiet)
    const answer = await call('POST', '/__admin/snapshot')
    expect(answer.status).toBe(409)
    expect(JSON.stringify(answer.json)).toContain('--state-file')
  })
})
