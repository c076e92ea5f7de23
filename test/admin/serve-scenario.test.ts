/** `fleetsim serve --scenario FILE`: the server runs the scenario and serves the admin API. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { main } from '../../src/commands/index.js'
import { parseServeConfig } from '../../src/config.js'
import { startFleetsim } from '../../src/embed.js'
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

async function serve(scenario: string, flags: string[] = [], env: Record<string, string> = {}): Promise<RunningServer> {
  dataDir ??= await mkdtemp(join(tmpdir(), 'fleetsim-admin-'))
  // A fixed start time: the fleet's records (and so its digest) hold times.
  const config = parseServeConfig(['--http', '--port', '0', '--paused', '--workers', '1', '--start-time', '2026-01-01T00:00:00Z', '--data-dir', dataDir, '--scenario', scenario, ...flags], env)
  return startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
}

/** The agents the running scenario fails to reconnect, and the fleet's size and digest. */
async function fleetOf(running: RunningServer) {
  const origin = new URL(running.baseUrl).origin
  const info = (await (await fetch(`${origin}/__admin/scenario`, { headers })).json()) as { reconnectFailureSets: string[][] }
  return { agents: running.fleet.size(), failing: info.reconnectFailureSets, digest: await running.fleet.digest() }
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

  it('--agents and --seed (or their env twins) replace the fleet.agents and fleet.seed of --scenario, as a file saying the same would', async () => {
    const file = 'scenarios/partial-reconnect-failure.yaml'
    server = await serve(file, ['--agents', '200', '--seed', '7'])
    const replaced = await fleetOf(server)
    await server.close()
    expect(replaced.agents).toBe(200)
    // The same scenario written with those values gives the same fleet, bit for bit.
    dataDir ??= await mkdtemp(join(tmpdir(), 'fleetsim-admin-'))
    const written = join(dataDir, 'written.yaml')
    const text = await readFile(file, 'utf8')
    await writeFile(written, text.replace('agents: 5000', 'agents: 200').replace('seed: 4242', 'seed: 7'))
    server = await serve(written)
    expect(await fleetOf(server)).toEqual(replaced)
    await server.close()
    // From the environment, as from the command line.
    server = await serve(file, [], { FLEETSIM_AGENTS: '200', FLEETSIM_SEED: '7' })
    expect(await fleetOf(server)).toEqual(replaced)
    await server.close()
    // Only --agents: the scenario's seed (4242) holds, so other agents fail.
    server = await serve(file, ['--agents', '200'])
    const ownSeed = await fleetOf(server)
    expect(ownSeed.agents).toBe(200)
    expect(ownSeed.failing).not.toEqual(replaced.failing)
  })

  it("scenarios/README.md's example, --scenario partial-reconnect-failure.yaml --seed 4242, fails the 10 agents the file's seed fails", async () => {
    server = await serve('scenarios/partial-reconnect-failure.yaml')
    const own = await fleetOf(server)
    await server.close()
    server = await serve('scenarios/partial-reconnect-failure.yaml', ['--seed', '4242'])
    const given = await fleetOf(server)
    expect(given).toEqual(own)
    expect(given.agents).toBe(5000)
    expect(given.failing[0]).toHaveLength(10)
  })

  it('startFleetsim takes agents and seed with a scenario as serve takes --agents and --seed', async () => {
    const file = 'scenarios/partial-reconnect-failure.yaml'
    const own = await startFleetsim({ scenario: file })
    const ownSize = own.engine.size()
    await own.close()
    expect(ownSize).toBe(5000)
    const given = await startFleetsim({ scenario: file, agents: 200, seed: 7 })
    const digest = await given.engine.digest()
    const size = given.engine.size()
    await given.close()
    expect(size).toBe(200)
    server = await serve(file, ['--agents', '200', '--seed', '7'])
    expect(await server.fleet.digest()).toBe(digest)
  })

  it('DELETE /__admin/scenario goes back to the default fleet of --agents (1000 without it), not to an empty one', async () => {
    const file = 'scenarios/partial-reconnect-failure.yaml'
    for (const [flags, agents] of [
      [[], 1000],
      [['--agents', '30'], 30]
    ] as const) {
      server = await serve(file, [...flags])
      const origin = new URL(server.baseUrl).origin
      const answer = (await (await fetch(`${origin}/__admin/scenario`, { method: 'DELETE', headers })).json()) as { agents: number }
      expect(answer.agents).toBe(agents)
      expect(server.fleet.size()).toBe(agents)
      await server.close()
      server = undefined
    }
  })

  it('refuses --agents below the ramp the scenario starts with, naming both values', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-admin-'))
    const ramp = join(dataDir, 'ramp.yaml')
    await writeFile(ramp, 'description: x\nfleet: { agents: 500, ramp: { over: 10m, initial: 100 } }\n')
    await expect(serve(ramp, ['--agents', '20'])).rejects.toThrow(
      `--agents 20 is fewer than the 100 agents the ramp of ${ramp} has present at the start (fleet.ramp.initial); give --agents 100 or more, or lower fleet.ramp.initial`
    )
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
