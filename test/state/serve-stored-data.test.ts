import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { parseExposition, valueOf } from '../metrics/helpers.js'

let dataDir: string
let server: RunningServer | undefined
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-stored-'))
})
afterEach(async () => {
  await server?.close()
  server = undefined
  await rm(dataDir, { recursive: true, force: true })
})

const quiet = { announce: () => undefined, logger: createLogger('silent', { pretty: false }) }
const headers = { REST_USER: 'admin', REST_PASSWORD: 'admin', accept: 'application/json', 'content-type': 'application/json' }

function config(extra: string[] = []) {
  return parseServeConfig(
    ['--http', '--port', '0', '--agents', '20', '--workers', '1', '--paused', '--data-dir', dataDir, '--state-file', join(dataDir, 'state.bin'), ...extra],
    {}
  )
}

async function call(method: string, path: string, body?: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${server!.port}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

async function metric(name: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${server!.port}/metrics`)).text()
  return valueOf(parseExposition(text), name)
}

const setLabel = (name: string) => call('POST', '/manager/mvc/restservice/setcustomlabel', { name, value: 'v' })

describe('serve with --state-file', () => {
  it('answers a failed POST /__admin/snapshot with E_STATE_SAVE_FAILED naming the file and the cause, and counts it', async () => {
    server = await startServer(config(), quiet)
    const path = join(dataDir, 'state.bin')
    await mkdir(path)
    await writeFile(join(path, 'in-the-way'), 'x')

    const answer = await call('POST', '/__admin/snapshot')
    expect(answer.status).toBe(500)
    const [error] = answer.json.errors as Array<{ code: string; message: string }>
    expect(error.code).toBe('E_STATE_SAVE_FAILED')
    expect(error.message).toContain(`Could not save the simulation to ${path} (`)
    expect(error.message).toMatch(/EISDIR|ENOTEMPTY|EEXIST/)
    expect(await metric('fleetsim_state_save_failures_total')).toBe(1)
    expect(await metric('fleetsim_state_saves_total')).toBe(0)

    await rm(path, { recursive: true })
    expect((await call('POST', '/__admin/snapshot')).status).toBe(200)
    expect(await metric('fleetsim_state_saves_total')).toBe(1)
    expect(await metric('fleetsim_state_save_failures_total')).toBe(1)
  })

  it('removes temporary files that killed saves left, at start-up', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid
    await writeFile(join(dataDir, `.state.bin.${dead}.tmp`), 'half a state')
    server = await startServer(config(), quiet)
    expect((await readdir(dataDir)).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('bounds stored data by the flags, and resumes a state holding more than lowered flags allow', async () => {
    server = await startServer(config(['--max-labels', '2']), quiet)
    expect((await setLabel('a')).status).toBe(200)
    expect((await setLabel('b')).status).toBe(200)
    const refused = await setLabel('c')
    expect(refused.status).toBe(409)
    expect(JSON.stringify(refused.json)).toContain('--max-labels allows 2')
    await server.close()

    server = await startServer(config(['--max-labels', '1']), quiet)
    expect((await setLabel('a')).status).toBe(200)
    expect(JSON.stringify((await setLabel('c')).json)).toContain('already has 2 custom labels, and --max-labels allows 1')
  })
})
