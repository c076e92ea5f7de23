import { lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { run } from '../../src/commands/run.js'
import { ConfigError } from '../../src/config.js'
import { REPORT_FILES } from '../../src/run/report.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fleetsim-run-'))
  dirs.push(dir)
  return dir
}

function capture() {
  const out: string[] = []
  const err: string[] = []
  return { io: { out: (t: string) => void out.push(t), err: { isTTY: false, write: (t: string) => err.push(t) } }, out, err }
}

describe('fleetsim run', () => {
  it('writes the report files with the time series, events and digest', async () => {
    const dir = await tempDir()
    const { io, out, err } = capture()
    const code = await run(['scenarios/mass-outage-recovery.yaml', '--duration', '30m', '--sample', '5m', '--workers', '1', '--out', dir], io)
    expect(code).toBe(0)
    for (const name of REPORT_FILES) expect((await readFile(join(dir, name), 'utf8')).length).toBeGreaterThan(0)
    const csv = (await readFile(join(dir, 'states.csv'), 'utf8')).trim().split('\n')
    expect(csv[0]).toBe('second,time,agents,ONLINE,OFFLINE,ERROR,UNMANAGED,UNTRUSTED,FORGED')
    expect(csv).toHaveLength(1 + 7)
    const events = JSON.parse(await readFile(join(dir, 'events.json'), 'utf8'))
    expect(events).toEqual([{ second: 600, name: 'datacentre-outage', action: 'offline', time: '2026-01-01T00:10:00.000Z' }])
    const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'))
    expect(summary.digest).toMatch(/^[0-9a-f]{64}$/)
    expect(summary.transitions.byPair['ONLINE->OFFLINE']).toBeGreaterThan(1000)
    const svg = await readFile(join(dir, 'chart.svg'), 'utf8')
    expect(svg).toContain('<svg')
    expect(svg).toContain('datacentre-outage (offline) at 00:10 (+10m)')
    const html = await readFile(join(dir, 'index.html'), 'utf8')
    expect(html).toContain('<h1>mass-outage-recovery</h1>')
    expect(html).toContain(`<code data-summary="digest">${summary.digest}</code>`)
    expect(out.join('')).toContain('mass-outage-recovery: 30m virtual')
    // Not a terminal: plain progress lines, ending at 100%.
    expect(err.at(-1)).toMatch(/^mass-outage-recovery 100% 30m \/ 30m virtual/)
  })

  it('runs a scenario for its timeline plus a margin without --duration, and records a lockout still on', async () => {
    const dir = await tempDir()
    const { io, out } = capture()
    expect(await run(['scenarios/manager-restart-lockout.yaml', '--workers', '1', '--out', dir], io)).toBe(0)
    const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'))
    expect(summary.durationSeconds).toBe(1800)
    expect(summary.lockouts).toEqual([{ from: 900, to: null, fromTime: '2026-01-01T00:15:00.000Z', toTime: null }])
    expect(summary.command).toBe(`fleetsim run scenarios/manager-restart-lockout.yaml --duration 30m --sample 1m --start-time 2026-01-01T00:00:00.000Z --out ${dir}`)
    expect(out.join('')).toContain('manager-restart-lockout: 30m virtual (fitted to the scenario: its timeline ends at 15m, then 15m to settle)')
    expect(out.join('')).toContain(`open ${join(dir, 'index.html')} in a browser`)
  })

  it('names the report\'s files as a shell reads them, in quotes where the path holds a space or a quote', async () => {
    const dir = join(await tempDir(), "Fleet runs, Bob's")
    const { io, out } = capture()
    expect(await run(['scenarios/manager-restart-lockout.yaml', '--duration', '1m', '--workers', '1', '--out', dir], io)).toBe(0)
    const quoted = (name: string) => `'${join(dir, name).replace(/'/g, "'\\''")}'`
    expect(out.join('')).toContain(`report: ${quoted('index.html')}, ${quoted('states.csv')},`)
    expect(out.join('')).toContain(`open ${quoted('index.html')} in a browser to see it\n`)
  })

  it('refuses an --out where a report file is the scenario file it reads, which an earlier run there would have let it replace', async () => {
    const dir = await tempDir()
    expect(await run(['scenarios/manager-restart-lockout.yaml', '--duration', '1m', '--workers', '1', '--out', dir], capture().io)).toBe(0)
    const scenario = join(dir, 'states.json')
    const text = JSON.stringify({ description: 'a scenario saved where a report was', fleet: { agents: 20 } })
    await import('node:fs/promises').then((fs) => fs.writeFile(scenario, text))
    await expect(run([scenario, '--duration', '1m', '--workers', '1', '--out', dir], capture().io)).rejects.toThrow(
      `--out "${dir}" holds states.json, which is the scenario file this run reads ("${scenario}"), and the run would write over it; choose another directory, or move the scenario file out of it`
    )
    expect(await readFile(scenario, 'utf8')).toBe(text)
  })

  it('replaces a symbolic link planted in an earlier report, not the file it names', async () => {
    const dir = await tempDir()
    expect(await run(['scenarios/manager-restart-lockout.yaml', '--duration', '1m', '--workers', '1', '--out', dir], capture().io)).toBe(0)
    const victim = join(await tempDir(), 'victim.txt')
    await writeFile(victim, 'precious\n')
    await rm(join(dir, 'states.csv'))
    await symlink(victim, join(dir, 'states.csv'))
    expect(await run(['scenarios/manager-restart-lockout.yaml', '--duration', '1m', '--workers', '1', '--out', dir], capture().io)).toBe(0)
    expect(await readFile(victim, 'utf8')).toBe('precious\n')
    expect((await lstat(join(dir, 'states.csv'))).isFile()).toBe(true)
  })

  it('records when a lockout with for lifts, to the second, between two samples', async () => {
    const dir = await tempDir()
    const scenario = join(dir, 'lock.yaml')
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(scenario, 'description: x\nfleet: { agents: 50 }\ntimeline: [{ name: lock, at: 90s, action: manager-restart, for: 100s }]\n')
    )
    expect(await run([scenario, '--sample', '1m', '--workers', '1', '--out', join(dir, 'report')], capture().io)).toBe(0)
    const summary = JSON.parse(await readFile(join(dir, 'report', 'summary.json'), 'utf8'))
    expect(summary.lockouts).toEqual([{ from: 90, to: 190, fromTime: '2026-01-01T00:01:30.000Z', toTime: '2026-01-01T00:03:10.000Z' }])
    expect(summary.lockedOut).toBe(false)
  })

  it('writes a command that, run again, gives the same digest', async () => {
    const first = await tempDir()
    expect(await run(['scenarios/mass-outage-recovery.yaml', '--duration', '20m', '--workers', '2', '--out', first], capture().io)).toBe(0)
    const summary = JSON.parse(await readFile(join(first, 'summary.json'), 'utf8'))
    const second = await tempDir()
    // The words are shell-safe here (no quotes): the command splits on spaces.
    const argv = (summary.command as string).split(' ').slice(2)
    argv[argv.indexOf('--out') + 1] = second
    expect(await run([...argv, '--workers', '1'], capture().io)).toBe(0)
    expect(JSON.parse(await readFile(join(second, 'summary.json'), 'utf8')).digest).toBe(summary.digest)
  })

  it('--agents and --seed replace the fleet.agents and fleet.seed of the scenario, as with serve --scenario, and are in the command', async () => {
    const dir = await tempDir()
    const { io, err } = capture()
    expect(await run(['scenarios/partial-reconnect-failure.yaml', '--duration', '10m', '--agents', '300', '--seed', '7', '--workers', '1', '--out', dir], io)).toBe(0)
    expect(err[0]).toBe("fleetsim run: --agents 300 replaces the scenario's fleet.agents 5000; --seed 7 replaces the scenario's fleet.seed 4242\n")
    const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'))
    expect(summary.final.agents).toBe(300)
    expect(summary.scenario.seed).toBe(7)
    expect(summary.command).toBe(`fleetsim run scenarios/partial-reconnect-failure.yaml --duration 10m --sample 1m --start-time 2026-01-01T00:00:00.000Z --agents 300 --seed 7 --out ${dir}`)
    // The same as a file that says so.
    const written = join(await tempDir(), 'written.yaml')
    const text = await readFile('scenarios/partial-reconnect-failure.yaml', 'utf8')
    await writeFile(written, text.replace('agents: 5000', 'agents: 300').replace('seed: 4242', 'seed: 7'))
    const again = await tempDir()
    expect(await run([written, '--duration', '10m', '--workers', '1', '--out', again], capture().io)).toBe(0)
    expect(JSON.parse(await readFile(join(again, 'summary.json'), 'utf8')).digest).toBe(summary.digest)
  })

  it('refuses at once, writing nothing, a run past its limits: a timeline event 3,000 days ahead (it ran until killed), too many samples or events', async () => {
    const dir = await tempDir()
    const far = join(dir, 'far.yaml')
    await writeFile(far, 'description: x\nfleet: { agents: 20 }\ntimeline: [{ name: far, at: 3000d, action: offline }]\n')
    const blink = join(dir, 'blink.yaml')
    await writeFile(blink, 'description: x\nfleet: { agents: 20 }\ntimeline: [{ name: blink, every: 1s, action: offline }]\n')
    for (const [argv, message] of [
      [[far], 'its timeline event "far" ends at 3000d, later than the 366d a run may last'],
      [[far, '--duration', '100000d'], '--duration must be at most 366d, the longest run'],
      [[far, '--duration', '30d', '--sample', '1s'], '--sample 1s over 30d makes 2,592,000 samples, more than the 100,000 a run keeps; give --sample 26s or longer'],
      [[blink, '--duration', '7d'], 'the timeline of ' + blink + ' occurs 604,801 times in 7d (event "blink" 604,801 times), more than the 100,000 timeline events a run records']
    ] as const) {
      const out = join(dir, 'report')
      const { io, err } = capture()
      const error = await run([...argv, '--workers', '1', '--out', out], io).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toContain(message)
      // Nothing ran: no progress line, no report.
      expect(err).toEqual([])
      await expect(readFile(join(out, 'summary.json'))).rejects.toThrow()
    }
  })

  it('runs the beginning of a far-future scenario with --duration, and samples a long run less often, saying so', async () => {
    const dir = await tempDir()
    const quiet = join(dir, 'quiet.yaml')
    await writeFile(quiet, 'description: x\nfleet: { agents: 5 }\nbehaviour: off\ntimeline: [{ name: far, at: 3000d, action: offline }]\n')
    const { io, err } = capture()
    expect(await run([quiet, '--duration', '80d', '--workers', '1', '--out', join(dir, 'report')], io)).toBe(0)
    expect(err[0]).toBe('fleetsim run: sampled every 2m: every 1m would make 115,200 samples, more than the 100,000 a run keeps\n')
    const summary = JSON.parse(await readFile(join(dir, 'report', 'summary.json'), 'utf8'))
    expect(summary.command).toContain('--duration 80d --sample 2m ')
    expect((await readFile(join(dir, 'report', 'states.csv'), 'utf8')).trim().split('\n')).toHaveLength(1 + 57_601)
  })

  it('exits 1 listing every problem of a bad scenario, and writes nothing', async () => {
    const dir = join(await tempDir(), 'report')
    const bad = join(await tempDir(), 'bad.yaml')
    await import('node:fs/promises').then((fs) => fs.writeFile(bad, 'description: x\nfleet: { agents: ten }\n'))
    const { io, err } = capture()
    expect(await run([bad, '--out', dir], io)).toBe(1)
    expect(err.join('')).toContain('bad.yaml:2:18 fleet.agents:')
    expect(err.join('')).toContain('is not a valid scenario (1 problem); nothing was run')
    await expect(readFile(join(dir, 'summary.json'))).rejects.toThrow()
  })

  it('refuses an --out that is a file before running anything', async () => {
    const file = join(await tempDir(), 'taken')
    await import('node:fs/promises').then((fs) => fs.writeFile(file, 'x'))
    const { io, err } = capture()
    const error = await run(['scenarios/steady-fleet.yaml', '--out', file], io).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toContain(`--out must name a directory, got "${file}", which is a file`)
    // No progress line: the run never started.
    expect(err).toEqual([])
  })

  it('warns once when --workers is more than the CPUs, and runs all the same', async () => {
    const cpus = availableParallelism()
    const { io, err } = capture()
    expect(await run(['scenarios/manager-restart-lockout.yaml', '--duration', '2m', '--workers', String(cpus + 1), '--out', await tempDir()], io)).toBe(0)
    const warnings = err.filter((line) => line.includes('--workers'))
    expect(warnings).toEqual([`fleetsim run: warning: --workers ${cpus + 1} is more than the ${cpus} CPU${cpus === 1 ? '' : 's'} this machine offers (os.availableParallelism()): the threads beyond ${cpus} step the fleet no faster and each costs memory and start-up time; give --workers ${cpus} or leave it out\n`])
  })

  it('refuses an --out holding a directory where a report file goes, before running anything', async () => {
    const dir = await tempDir()
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'index.html')))
    const { io, err } = capture()
    const error = await run(['scenarios/steady-fleet.yaml', '--out', dir], io).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toBe(`--out "${dir}" holds a directory index.html, where fleetsim writes a file of that name; remove it or choose another directory`)
    expect(err).toEqual([])
  })

  it('refuses an --out holding a report file no earlier run wrote, and replaces an earlier run\'s report', async () => {
    const dir = await tempDir()
    const fs = await import('node:fs/promises')
    await fs.writeFile(join(dir, 'index.html'), '<h1>my site</h1>')
    const { io, err } = capture()
    const error = await run(['scenarios/steady-fleet.yaml', '--duration', '2m', '--out', dir], io).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toBe(`--out "${dir}" holds index.html, a file no earlier run wrote, which this run would replace; choose a new or empty directory, or remove it`)
    expect(await fs.readFile(join(dir, 'index.html'), 'utf8')).toBe('<h1>my site</h1>')
    expect(err).toEqual([])
    // A run's own report is replaced by the next run's; other files beside it are left alone.
    const earlier = await tempDir()
    expect(await run(['scenarios/steady-fleet.yaml', '--duration', '2m', '--out', earlier], capture().io)).toBe(0)
    await fs.writeFile(join(earlier, 'notes.txt'), 'mine')
    expect(await run(['scenarios/steady-fleet.yaml', '--duration', '3m', '--out', earlier], capture().io)).toBe(0)
    expect(JSON.parse(await fs.readFile(join(earlier, 'summary.json'), 'utf8')).durationSeconds).toBe(180)
    expect(await fs.readFile(join(earlier, 'notes.txt'), 'utf8')).toBe('mine')
  })

  it('refuses a SCENARIO file that is not there as a command line to fix (exit 2, as serve --scenario), with the library\'s file', async () => {
    const { io, err } = capture()
    const error = await run(['steady-fleet', '--out', await tempDir()], io).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toMatch(/^fleetsim run needs a SCENARIO file it can read, got "steady-fleet": no such file; the library has .*scenarios\/steady-fleet\.yaml$/)
    expect(err).toEqual([])
  })

  it('exits 1 on a scenario larger than 1 MiB', async () => {
    const dir = join(await tempDir(), 'report')
    const big = join(await tempDir(), 'big.yaml')
    await import('node:fs/promises').then((fs) => fs.writeFile(big, `description: x\n# ${'x'.repeat(2 * 1024 * 1024)}\n`))
    const { io, err } = capture()
    expect(await run([big, '--out', dir], io)).toBe(1)
    expect(err.join('')).toContain(`${big} the scenario is 2097170 bytes, more than the 1048576 bytes (1 MiB) a scenario may have`)
    expect(err.join('')).toContain('is not a valid scenario (1 problem); nothing was run')
  })

  it.each([
    [['scenarios/steady-fleet.yaml'], '--out <dir> is required'],
    [['scenarios/steady-fleet.yaml', '--out', 'x', '--duration', 'soon'], '--duration must be a duration of whole seconds'],
    [['scenarios/steady-fleet.yaml', '--out', 'x', '--sample', '2h', '--duration', '1h'], '--sample (2h) must not be longer than --duration (1h)'],
    [['scenarios/steady-fleet.yaml', '--out', 'x', '--workers', '0'], '--workers must be an integer from 1 to 1024, got "0"'],
    [['scenarios/steady-fleet.yaml', '--out', 'x', '--workers', '1e0'], '--workers must be an integer from 1 to 1024, got "1e0"'],
    [['--out', 'x'], 'fleetsim run needs a SCENARIO file'],
    [['a.yaml', 'b.yaml', '--out', 'x'], 'unexpected argument "b.yaml"; fleetsim run takes at most 1 SCENARIO file'],
    [['scenarios/steady-fleet.yaml', '--out', 'x', '--start-time', 'yesterday'], '--start-time must be an ISO 8601 date-time with a time zone'],
    // Read in the local zone it would name another instant on every machine: refused, as serve does.
    [['scenarios/steady-fleet.yaml', '--out', 'x', '--start-time', '2026-01-01T00:00:00'], '--start-time must be an ISO 8601 date-time with a time zone'],
    [['scenarios/steady-fleet.yaml', '--out', 'x', '--durations', '1h'], 'unknown flag --durations; did you mean --duration? (see fleetsim run --help)']
  ])('refuses %j with a ConfigError', async (argv, message) => {
    const error = await run(argv, capture().io).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toContain(message)
  })
})
