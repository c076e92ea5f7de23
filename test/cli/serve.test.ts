import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { X509Certificate } from 'node:crypto'
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { request } from 'node:https'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { TLS_DIR, TLS_FILES } from '../../src/tls/tls-store.js'

let dataDir: string
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-serve-'))
})
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

function get(url: string, ca: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

function send(method: string, url: string, ca: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const auth = { REST_USER: 'admin', REST_PASSWORD: 'admin' }

describe('startServer', () => {
  let server: RunningServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('serves appinfo over HTTPS to a client that trusts only the CA, and announces one line', async () => {
    const lines: string[] = []
    const config = parseServeConfig(['--port', '0', '--agents', '20', '--workers', '1', '--data-dir', dataDir, '--log-level', 'silent'], {})
    server = await startServer(config, { announce: (line) => lines.push(line), logger: createLogger('silent', { pretty: false }) })
    expect(lines).toEqual([
      `fleetsim listening on https://127.0.0.1:${server.port}/manager/mvc/restservice (CA fingerprint ${server.ca.fingerprint}, CA file ${server.caPath})`
    ])
    const response = await get(`${server.serviceUrl}/appinfo.json`, server.ca.pem, auth)
    expect(response.status).toBe(200)
    expect(JSON.parse(response.body)).toMatchObject({ servicename: 'appinfo' })
  })

  it('answers 401 without the credentials', async () => {
    const config = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir], {})
    server = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
    expect((await get(`${server.serviceUrl}/appinfo.json`, server.ca.pem, {})).status).toBe(401)
  })

  it('reports a port that is in use, naming the address and the flag to change', async () => {
    const config = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir], {})
    server = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
    const taken = parseServeConfig(['--port', String(server.port), '--agents', '5', '--workers', '1', '--data-dir', dataDir], {})
    await expect(startServer(taken, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })).rejects.toThrow(
      `cannot listen on 127.0.0.1:${server.port}: the port is in use (another fleetsim? choose one with --port)`
    )
  })

  it('names --data-dir when it cannot be made, at once (a path under /proc hung in mkdir)', async () => {
    const file = join(dataDir, 'file')
    await writeFile(file, 'x')
    for (const [dir, why] of [
      [join(file, 'data'), 'a part of the path is a file'],
      ['/proc/fleetsim-test-data', 'ENOENT']
    ]) {
      const config = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dir], {})
      await expect(startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })).rejects.toThrow(
        new RegExp(`^--data-dir must name a directory fleetsim can write, got "${dir}" \\(${why}`)
      )
    }
  })

  it('makes the directory of --state-file, refuses a directory as the file, and says when the save at close failed', async () => {
    const quiet = { announce: () => undefined, logger: createLogger('silent', { pretty: false }) }
    const asDirectory = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, '--state-file', dataDir], {})
    await expect(startServer(asDirectory, quiet)).rejects.toThrow(`--state-file must name a file, got "${dataDir}", which is a directory; name a file in it`)
    // A loop of links read as no file yet, and the first save put a file in place of the link.
    const loop = join(dataDir, 'loop-a.bin')
    await symlink(join(dataDir, 'loop-b.bin'), loop)
    await symlink(loop, join(dataDir, 'loop-b.bin'))
    const looped = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, '--state-file', loop], {})
    await expect(startServer(looped, quiet)).rejects.toThrow(`--state-file must name a file, got "${loop}", a symbolic link in a loop of links; point the link at a file, or name another`)
    // A named pipe: the first read waited for a writer for ever, and serve could not be stopped.
    const fifo = join(dataDir, 'state.fifo')
    execFileSync('mkfifo', [fifo])
    const piped = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, '--state-file', fifo], {})
    await expect(startServer(piped, quiet)).rejects.toThrow(`--state-file must name a regular file, got "${fifo}", which is a named pipe (FIFO); name a file`)
    // A directory that takes no new files: access() says yes to root, the lock failed with ENOENT and exit 1.
    const inProc = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, '--state-file', '/proc/version'], {})
    // As root the file made and removed finds it; as another user access() does first.
    await expect(startServer(inProc, quiet)).rejects.toThrow(/^--state-file must name a file in a directory fleetsim can write, got "\/proc\/version" \((no file can be made there|no permission to write there|a read-only file system)\)$/)
    // A link into a missing directory: that directory is made, as the file's own would be, and the save goes through the link.
    const linked = join(dataDir, 'linked.bin')
    const farDir = join(dataDir, 'far', 'away')
    await symlink(join(farDir, 'state.bin'), linked)
    server = await startServer(parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, '--state-file', linked], {}), quiet)
    expect((await stat(farDir)).isDirectory()).toBe(true)
    const linkedServer = server
    server = undefined
    expect(await linkedServer.close()).toEqual({ saveFailed: false })
    expect((await stat(join(farDir, 'state.bin'))).isFile()).toBe(true)
    // A missing directory failed every save, the one at exit too, silently.
    const stateDir = join(dataDir, 'missing', 'dir')
    const config = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, '--state-file', join(stateDir, 'state.bin')], {})
    server = await startServer(config, quiet)
    expect((await stat(stateDir)).isDirectory()).toBe(true)
    await rm(stateDir, { recursive: true })
    const closing = server
    server = undefined
    expect(await closing.close()).toEqual({ saveFailed: true })
  })

  it('warns once at start when --workers is more than the CPUs, naming os.availableParallelism()', async () => {
    const lines: string[] = []
    const destination = { write: (line: string) => void lines.push(line) }
    const logger = createLogger('warn', { pretty: false, destination })
    const cpus = availableParallelism()
    server = await startServer(parseServeConfig(['--port', '0', '--agents', '5', '--workers', String(cpus + 1), '--data-dir', dataDir], {}), { announce: () => undefined, logger })
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string; workers?: number; cpus?: number }).filter((record) => record.msg.startsWith('--workers'))
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        workers: cpus + 1,
        cpus,
        msg: `--workers ${cpus + 1} is more than the ${cpus} CPU${cpus === 1 ? '' : 's'} this machine offers (os.availableParallelism()): the threads beyond ${cpus} step the fleet no faster and each costs memory and start-up time; give --workers ${cpus} or leave it out`
      })
    ])
    await server.close()
    // Within the CPUs, not a word.
    lines.length = 0
    server = await startServer(parseServeConfig(['--port', '0', '--agents', '5', '--workers', String(cpus), '--data-dir', dataDir], {}), { announce: () => undefined, logger })
    expect(lines.filter((line) => line.includes('--workers'))).toEqual([])
  })

  it('gives addagent the room of --max-added-agents, then 409', async () => {
    const config = parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--max-added-agents', '1', '--data-dir', dataDir], {})
    server = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
    const add = (name: string) => send('POST', `${server?.serviceUrl}/addagent`, server?.ca.pem as string, { ...auth, accept: 'application/json' }, JSON.stringify({ name, 'global-config': { address: '192.0.2.1', port: 4041, 'ca-fingerprint': server?.ca.fingerprint } }))
    expect((await add('one')).status).toBe(200)
    const refused = await add('two')
    expect(refused.status).toBe(409)
    expect(JSON.parse(refused.body).errors[0].message).toContain('--max-added-agents allows 1')
  })

  it('keeps the last good server certificate when a start cannot listen on its --host', async () => {
    const quiet = { announce: () => undefined, logger: createLogger('silent', { pretty: false }) }
    server = await startServer(parseServeConfig(['--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir], {}), quiet)
    await server.close()
    server = undefined
    const certFile = join(dataDir, TLS_DIR, TLS_FILES.server)
    const before = await readFile(certFile, 'utf8')
    // TEST-NET-2: an address no machine of this test has, so the certificate for it is new.
    const elsewhere = parseServeConfig(['--host', '198.51.100.7', '--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir], {})
    await expect(startServer(elsewhere, quiet)).rejects.toThrow('the address is not on this machine (check --host)')
    expect(await readFile(certFile, 'utf8')).toBe(before)
    expect(new X509Certificate(before).subjectAltName).not.toContain('198.51.100.7')
  })
})

describe('fleetsim serve', () => {
  it('prints the listening line, and exits 0 after SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--agents', '10', '--workers', '1', '--data-dir', dataDir, '--log-level', 'warn'],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    )
    const lines = createInterface({ input: child.stdout })
    let announced = ''
    for await (const line of lines) {
      if (line.startsWith('fleetsim listening on ')) {
        announced = line
        break
      }
    }
    expect(announced).toMatch(/^fleetsim listening on https:\/\/127\.0\.0\.1:\d+\/manager\/mvc\/restservice \(CA fingerprint ([0-9A-F]{2}:){19}[0-9A-F]{2}, CA file .*ca\.pem\)$/)
    child.kill('SIGTERM')
    const [code] = (await once(child, 'exit')) as [number | null]
    expect(code).toBe(0)
  })
})
