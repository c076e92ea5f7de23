/**
 * One server per --state-file: a second `fleetsim serve` given the same file refuses to start,
 * naming the pid of the first (two of them each saved over the other's saves). The lock is
 * `<file>.lock`, removed when the server closes; one left by a process that is gone is taken.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { access, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'

let dir: string
const servers: RunningServer[] = []
const children: ChildProcess[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleetsim-lock-'))
})
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await Promise.all(servers.splice(0).map((server) => server.close()))
  await rm(dir, { recursive: true, force: true })
})

const quiet = { announce: () => undefined, logger: createLogger('silent', { pretty: false }) }
const stateFile = () => join(dir, 'state', 'sim.bin')
const config = () => parseServeConfig(['--http', '--port', '0', '--agents', '10', '--workers', '1', '--paused', '--data-dir', dir, '--state-file', stateFile()], {})
const exists = (path: string) => access(path).then(() => true, () => false)
/** A lock's text: the pid, the host and the taker's random token, a line each. */
const lockOf = (pid: number | undefined) => new RegExp(`^${pid}\\n${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n[0-9a-f-]{36}\\n$`)

async function started(): Promise<RunningServer> {
  const server = await startServer(config(), quiet)
  servers.push(server)
  return server
}

describe('the lock of --state-file', () => {
  it('refuses a second server in the same process, and lets one start once the first closed', async () => {
    const first = await started()
    const lock = `${stateFile()}.lock`
    expect(await readFile(lock, 'utf8')).toMatch(lockOf(process.pid))
    await expect(startServer(config(), quiet)).rejects.toThrow(
      `--state-file ${stateFile()} is in use by another server in this process (pid ${process.pid}, lock ${lock}): two servers saving to one file overwrite each other's saves; stop that one, or give this server another --state-file`
    )
    // The refused server took nothing: the first still holds its lock.
    expect(await readFile(lock, 'utf8')).toMatch(lockOf(process.pid))
    await first.close()
    servers.splice(servers.indexOf(first), 1)
    expect(await exists(lock)).toBe(false)
    await started()
  })

  it('refuses a second server in the same process that reaches the file by another path (it took the lock as stale: two held it)', async () => {
    await mkdir(join(dir, 'real'))
    await symlink(join(dir, 'real'), join(dir, 'link'))
    const at = (file: string) => parseServeConfig(['--http', '--port', '0', '--agents', '10', '--workers', '1', '--paused', '--data-dir', dir, '--state-file', file], {})
    const first = await startServer(at(join(dir, 'real', 'sim.bin')), quiet)
    servers.push(first)
    const lock = join(dir, 'real', 'sim.bin.lock')
    const text = await readFile(lock, 'utf8')
    await expect(startServer(at(join(dir, 'link', 'sim.bin')), quiet)).rejects.toThrow(`is in use by another server in this process (pid ${process.pid}`)
    expect(await readFile(lock, 'utf8')).toBe(text)
    await first.close()
    servers.splice(0)
    expect(await exists(lock)).toBe(false)
  })

  it('refuses a server given the same file through a link to it, before any save (it took a lock of its own)', async () => {
    await mkdir(join(dir, 'volume'))
    const real = join(dir, 'volume', 'sim.bin')
    const link = join(dir, 'sim.bin')
    // A link to a file the first run has not written yet.
    await symlink(real, link)
    const at = (file: string) => parseServeConfig(['--http', '--port', '0', '--agents', '10', '--workers', '1', '--paused', '--data-dir', dir, '--state-file', file], {})
    const first = await startServer(at(real), quiet)
    servers.push(first)
    await expect(startServer(at(link), quiet)).rejects.toThrow(`is in use by another server in this process (pid ${process.pid}`)
    expect(await exists(`${link}.lock`)).toBe(false)
    await first.close()
    servers.splice(0)
  })

  it('takes a lock of this pid that no server of this process holds (an earlier life of the pid, or an older fleetsim\'s lock)', async () => {
    await mkdir(join(dir, 'state'))
    await writeFile(`${stateFile()}.lock`, `${process.pid}\n${hostname()}\n`)
    await started()
    expect(await readFile(`${stateFile()}.lock`, 'utf8')).toMatch(lockOf(process.pid))
  })

  it('takes a lock left by a process that is gone, and refuses one of another host, naming no process or that is no file (a bare EISDIR)', async () => {
    const lock = `${stateFile()}.lock`
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'state')))
    // A pid no process has (beyond every pid_max).
    await writeFile(lock, `2147483646\n${hostname()}\n`)
    const server = await started()
    expect(await readFile(lock, 'utf8')).toMatch(lockOf(process.pid))
    await server.close()
    servers.splice(0)

    await writeFile(lock, '4242\nelsewhere.example\n')
    await expect(startServer(config(), quiet)).rejects.toThrow(`--state-file ${stateFile()} is in use by fleetsim pid 4242 on host elsewhere.example (lock ${lock})`)
    await expect(startServer(config(), quiet)).rejects.toThrow(`if that server no longer runs, remove ${lock}`)
    await writeFile(lock, '')
    await expect(startServer(config(), quiet)).rejects.toThrow(`${lock}, the lock of --state-file ${stateFile()}, names no process: another fleetsim may be taking it this moment; if none is, remove ${lock} and start again`)
    // Refusals leave the lock as it was.
    expect(await readFile(lock, 'utf8')).toBe('')
    await rm(lock)
    await mkdir(lock)
    await expect(startServer(config(), quiet)).rejects.toThrow(
      `cannot read ${lock}, the lock of --state-file ${stateFile()}: EISDIR: illegal operation on a directory, read; it should be a file a fleetsim made, remove it if no fleetsim runs with this file`
    )
  })

  it('says in the log that it took over the lock of a fleetsim that is gone, naming its pid', async () => {
    await mkdir(join(dir, 'state'))
    await writeFile(`${stateFile()}.lock`, `2147483646\n${hostname()}\n`)
    const lines: string[] = []
    const logger = createLogger('warn', { pretty: false, destination: { write: (line: string) => void lines.push(line) } })
    servers.push(await startServer(config(), { announce: () => undefined, logger }))
    const tookOver = lines.map((line) => JSON.parse(line) as { msg: string; stalePid: number; lock: string }).find((entry) => entry.msg.startsWith('took over the lock'))
    expect(tookOver).toMatchObject({ stalePid: 2147483646, lock: `${stateFile()}.lock` })
  })

  it('refuses a lock whose pid runs, saying to remove it when that pid is no fleetsim (a pid used again after a kill -9)', async () => {
    const lock = `${stateFile()}.lock`
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'state')))
    // Any running process but this one: the server cannot tell it from a fleetsim.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    children.push(other)
    await once(other, 'spawn')
    await writeFile(lock, `${other.pid}\n${hostname()}\n`)
    await expect(startServer(config(), quiet)).rejects.toThrow(
      `--state-file ${stateFile()} is in use by another fleetsim (pid ${other.pid}, lock ${lock}): two servers saving to one file overwrite each other's saves; stop that one, or give this server another --state-file; if pid ${other.pid} is no fleetsim (its pid used again after that server was killed), remove ${lock} and start again`
    )
    expect(await readFile(lock, 'utf8')).toBe(`${other.pid}\n${hostname()}\n`)
  })

  it('two fleetsim serve processes: the second exits 1 naming the pid of the first, which saves and removes its lock at SIGTERM', async () => {
    const serve = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--http', '--port', '0', '--agents', '10', '--workers', '1', '--data-dir', dir, '--log-level', 'warn', '--state-file', stateFile()], {
        stdio: ['ignore', 'pipe', 'pipe']
      })
      children.push(child)
      let stderr = ''
      child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text))
      return { child, stderr: () => stderr }
    }
    const first = serve()
    for await (const line of createInterface({ input: first.child.stdout! })) if (line.startsWith('fleetsim listening on ')) break
    const lock = `${stateFile()}.lock`
    expect(await readFile(lock, 'utf8')).toMatch(lockOf(first.child.pid))

    const second = serve()
    const [code] = (await once(second.child, 'exit')) as [number | null]
    expect(code).toBe(1)
    expect(second.stderr()).toBe(
      `fleetsim: --state-file ${stateFile()} is in use by another fleetsim (pid ${first.child.pid}, lock ${lock}): two servers saving to one file overwrite each other's saves; stop that one, or give this server another --state-file; if pid ${first.child.pid} is no fleetsim (its pid used again after that server was killed), remove ${lock} and start again\n`
    )

    first.child.kill('SIGTERM')
    const [firstCode] = (await once(first.child, 'exit')) as [number | null]
    expect(firstCode).toBe(0)
    expect(await exists(stateFile())).toBe(true)
    expect(await exists(lock)).toBe(false)
  })
})
