import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run as conformance } from '../../src/commands/conformance.js'
import { CHECKS } from '../../src/conformance/checks.js'
import { run as report } from '../../src/commands/report.js'
import { ConfigError } from '../../src/config.js'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'

function capture() {
  const io = { text: '', errors: '', out: (t: string) => void (io.text += t), err: (t: string) => void (io.errors += t) }
  return io
}

describe('fleetsim conformance and fleetsim report', () => {
  let sim: RunningFleetsim
  let dir: string
  beforeAll(async () => {
    sim = await startFleetsim({ agents: 20 })
    dir = await mkdtemp(join(tmpdir(), 'fleetsim-cmd-'))
  })
  afterAll(async () => {
    await sim.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('conformance prints a pass/fail table, writes JUnit XML and exits 0 when all pass', async () => {
    const io = capture()
    const junit = join(dir, 'junit.xml')
    const args = ['--target', sim.baseUrl, '--user', sim.credentials.user, `--password=${sim.credentials.password}`, '--insecure', '--read-only', '--junit', junit]
    const writes: string[] = []
    const out = io.out
    io.out = (text: string) => void (writes.push(text), out(text))
    expect(await conformance(args, io)).toBe(0)
    expect(io.text).toMatch(/^PASS {2}auth-rejected/m)
    expect(io.text).toMatch(/^SKIP {2}addagent/m)
    expect(await readFile(junit, 'utf8')).toContain('<testsuites')
    // A line as each check ends, then the count: a run stopped part way still showed how far it got.
    expect(writes.length).toBe(CHECKS.length + 1)
    expect(writes[0]).toMatch(/^PASS {2}auth-rejected +.* \(\d+ ms\)\n$/)
    expect(writes.at(-1)).toMatch(/^\n\d+ passed, 0 failed, \d+ skipped\n$/)
  })

  it('conformance keeps its --junit file true while it runs: the checks so far and a failed case saying the run did not end', async () => {
    const junit = join(dir, 'junit-while.xml')
    // An earlier run's passes, which a run stopped part way left in place.
    await writeFile(junit, '<testsuites><testsuite name="old" tests="1" failures="0"/></testsuites>')
    const args = ['--target', sim.baseUrl, '--user', sim.credentials.user, `--password=${sim.credentials.password}`, '--insecure', '--read-only', '--junit', junit]
    const io = capture()
    const seen: string[] = []
    io.out = () => {
      // After the first check's line: what a CI job would read if the run were stopped now.
      if (seen.length === 0) seen.push(readFileSync(junit, 'utf8'))
    }
    expect(await conformance(args, io)).toBe(0)
    expect(seen[0]).not.toContain('name="old"')
    expect(seen[0]).toContain('auth-rejected')
    expect(seen[0]).toContain('the run was stopped before its end')
    expect(await readFile(junit, 'utf8')).not.toContain('the run was stopped before its end')
  })

  it('conformance checks --junit before it sends a request: a path it cannot write loses no run', async () => {
    const args = ['--target', sim.baseUrl, '--user', sim.credentials.user, `--password=${sim.credentials.password}`, '--insecure', '--read-only']
    const file = join(dir, 'a-file')
    await writeFile(file, 'x')
    sim.clearJournal()
    for (const [junit, message] of [
      [join(file, 'junit.xml'), `--junit must name a file fleetsim can write, got "${join(file, 'junit.xml')}" (a part of the path is a file)`],
      [dir, `--junit must name a file, got "${dir}", which is a directory; name a file in it`]
    ]) {
      const io = capture()
      const error = await conformance([...args, '--junit', junit], io).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toBe(message)
      expect(io.text).toBe('')
    }
    // Not one request reached the target: the suite never started.
    expect(sim.journal()).toEqual([])
    // A missing directory is made, as --out and --state-file are.
    const nested = join(dir, 'reports', 'ci', 'junit.xml')
    expect(await conformance([...args, '--junit', nested], capture())).toBe(0)
    expect(await readFile(nested, 'utf8')).toContain('<testsuites')
  })

  it('conformance writes --junit as one failed case when the target cannot be reached, where an earlier run\'s passes stayed', async () => {
    const junit = join(dir, 'unreachable.xml')
    await writeFile(junit, '<testsuites tests="40" failures="0"/>')
    // A port nothing listens on: taken from the system, then given back.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise((resolve) => probe.close(resolve))
    const io = capture()
    expect(await conformance(['--target', `http://127.0.0.1:${port}/manager/mvc`, '--junit', junit], io)).toBe(1)
    const xml = await readFile(junit, 'utf8')
    expect(xml).toContain('<testsuites tests="1" failures="1" skipped="0"')
    expect(xml).toContain('name="target: the target answers the operations of the spec"')
    expect(xml).toMatch(/<failure message="[^"]*127\.0\.0\.1/)
    expect(io.errors).toMatch(/^fleetsim conformance: /)
  })

  it('report refuses --json with --html, where it printed HTML', async () => {
    const args = ['--target', sim.baseUrl, '--json', '--html']
    await expect(report(args, capture())).rejects.toMatchObject({ code: 'FLEETSIM_CONFLICTING_FLAGS', message: '--json and --html ask for two formats of one report; give one of them' })
  })

  it('conformance exits 1 when every check selected was skipped: it ran nothing', async () => {
    const io = capture()
    const args = ['--target', sim.baseUrl, '--user', sim.credentials.user, `--password=${sim.credentials.password}`, '--insecure', '--read-only', '--only', 'addagent']
    expect(await conformance(args, io)).toBe(1)
    expect(io.text).toMatch(/^SKIP {2}addagent/m)
    expect(io.errors).toBe('fleetsim conformance: no check ran, every one selected was skipped (why: above); select checks that can run here\n')
  })

  it('conformance prints the table and exits 1 when a check fails', async () => {
    // A manager that answers every request with 200 and an empty object: reachable, but wrong.
    const manager = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
    await new Promise<void>((resolve) => manager.listen(0, '127.0.0.1', resolve))
    try {
      const io = capture()
      const { port } = manager.address() as AddressInfo
      expect(await conformance(['--target', `http://127.0.0.1:${port}/manager/mvc`, '--only', 'auth-rejected,appinfo-record'], io)).toBe(1)
      expect(io.text).toMatch(/^FAIL {2}auth-rejected/m)
      expect(io.text).toMatch(/^FAIL {2}appinfo-record +.*\n +appinfo: servicename is undefined$/m)
      expect(io.errors).toBe('')
    } finally {
      manager.closeAllConnections()
      await new Promise((resolve) => manager.close(resolve))
    }
  })

  it('report and conformance suggest the nearest flag for a typo', async () => {
    await expect(report(['--targt', sim.origin], capture())).rejects.toThrow('unknown flag --targt; did you mean --target? (see fleetsim report --help)')
    await expect(conformance(['--target', sim.baseUrl, '--read-onyl'], capture())).rejects.toThrow('unknown flag --read-onyl; did you mean --read-only? (see fleetsim conformance --help)')
  })

  it('conformance needs --target', async () => {
    await expect(conformance([], capture())).rejects.toThrow(ConfigError)
    await expect(conformance(['--target', sim.baseUrl, '--only', 'nonsense'], capture())).rejects.toThrow('--only must name checks of the suite: "nonsense" is none. The checks: auth-rejected, ')
    // Which name is wrong, and what it may have meant: a typo of one, or the checks it begins.
    await expect(conformance(['--target', sim.baseUrl, '--only', 'appinfo-record,addagnet,stop'], capture())).rejects.toThrow(
      '--only must name checks of the suite: "addagnet" is none (did you mean "addagent"?); "stop" is none (did you mean "stop-start"?). The checks: '
    )
  })

  it('conformance --only drops empty items, as a trailing comma leaves', async () => {
    const args = ['--target', sim.baseUrl, '--user', sim.credentials.user, `--password=${sim.credentials.password}`, '--insecure', '--read-only', '--only', 'auth-rejected,']
    const io = capture()
    expect(await conformance(args, io)).toBe(0)
    expect(io.text).toMatch(/^PASS {2}auth-rejected/m)
  })

  it('report prints the client report for a terminal', async () => {
    const io = capture()
    expect(await report(['--target', sim.origin, '--user', sim.credentials.user, `--password=${sim.credentials.password}`, '--ca', await caFile()], io)).toBe(0)
    expect(io.text).toContain('fleetsim client report')
    expect(io.text).toContain('Coverage')
  })

  it('report says what the simulator answered when it refuses', async () => {
    const io = capture()
    expect(await report(['--target', sim.origin, '--password', 'nope', '--insecure'], io)).toBe(1)
    expect(io.errors).toContain('401')
  })

  async function caFile(): Promise<string> {
    const path = join(dir, 'ca.pem')
    await writeFile(path, sim.ca)
    return path
  }
})
