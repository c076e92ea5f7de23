/** `fleetsim serve --scenario FILE`: the server runs the scenario and serves the admin API. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { main } from '../../src/commands/index.js'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { billionLaughs } from '../scenario/helpers.js'

let server: RunningServer | undefined
let dataDir: string | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
  dataDir = undefined
})

const headers = { REST_USER: 'admin', REST_PASSWORD: 'admin', accept: 'application/json' }

async function serve(scenario: string): Promise<RunningServer> {
  dataDir ??= await mkdtemp(join(tmpdir(), 'fleetsim-admin-'))
  const config = parseServeConfig(['--http', '--port', '0', '--paused', '--workers', '1', '--data-dir', dataDir, '--scenario', scenario], {})
  return startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
}

describe('serving a scenario', () => {
  it('builds the fleet from --scenario, creates its templates and serves /__admin', async () => {
    server = await serve('scenarios/partial-reconnect-failure.yaml')
    const origin = new URL(server.baseUrl).origin
    const info = await (await fetch(`${origin}/__admin/scenario`, { headers })).json()
    expect(info).toMatchObject({ name: 'partial-reconnect-failure', second: 0 })
    const fleet = (await (await fetch(`${origin}/__admin/fleet`, { headers })).json()) as { agents: number }
    expect(fleet.agents).toBe(5000)
    const template = await fetch(`${server.serviceUrl}/viewagentortemplate?name=linux-baseline`, { headers })
    expect(template.status).toBe(200)
  })

  it('refuses to start on a scenario that does not validate', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-admin-'))
    const bad = join(dataDir, 'bad.yaml')
    await import('node:fs/promises').then((fs) => fs.writeFile(bad, 'description: x\nfleet: { agents: ten }\n'))
    await expect(serve(bad)).rejects.toThrow(/fleet\.agents/)
  })

  it('refuses to start on a 10,000-deep scenario, again and again, with the problem rather than a crash', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-admin-'))
    const deep = join(dataDir, 'deep.yaml')
    await writeFile(deep, `description: x\nfleet: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`)
    for (let i = 0; i < 3; i++) await expect(serve(deep)).rejects.toMatchObject({ code: 'FSC_INVALID', issues: [expect.objectContaining({ code: 'FSC_TOO_DEEP', line: 2, column: 71 })] })
  })

  it('fleetsim serve --scenario prints the scenario problem and exits 1, with no stack trace', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-admin-'))
    const bomb = join(dataDir, 'bomb.yaml')
    await writeFile(bomb, billionLaughs())
    const output = { stdout: '', stderr: '', out: (t: string) => void (output.stdout += t), err: (t: string) => void (output.stderr += t) }
    const code = await main(['serve', '--http', '--port', '0', '--data-dir', dataDir, '--scenario', bomb], output)
    expect(code).toBe(1)
    expect(output.stderr).toMatch(new RegExp(`^fleetsim: invalid scenario:\\n${bomb}:6:\\d+ with alias \\*d, aliases stand for \\d+ values, more than the 10000 a scenario may repeat`))
    expect(output.stderr).not.toMatch(/\n\s+at /)
  })
})
