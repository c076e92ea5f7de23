/**
 * WireMock, the peer: the standalone jar the `wiremock` npm package bundles, run with the
 * local `java`, serving the bytes fleetsim answered as stub files (one stub per recorded
 * request, matched by its path, query and Accept header), as a user of WireMock would mock a
 * manager. Without `java` there is no peer: `wiremockAvailable` says why, and the suites
 * note it and go on.
 */
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { BareSpec, Ready } from './protocol.js'
import type { Target } from './target.js'

const require = createRequire(import.meta.url)
const READY_TIMEOUT_MS = 60_000
/** Linux reports process CPU in clock ticks of 1/100 s (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100

/** Undefined when WireMock can run here, else the reason it cannot. */
export function wiremockUnavailable(): string | undefined {
  const java = spawnSync('java', ['-version'], { stdio: 'ignore' })
  if (java.error !== undefined || java.status !== 0) return 'no `java` on the PATH: WireMock (the peer) was not measured'
  return undefined
}

async function jarPath(): Promise<string> {
  const dir = join(dirname(require.resolve('wiremock/package.json')), 'build')
  const jar = (await readdir(dir)).find((f) => /^wiremock-standalone-.*\.jar$/.test(f))
  if (jar === undefined) throw new Error(`no wiremock-standalone jar in ${dir}`)
  return join(dir, jar)
}

async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

/** The stubs of a BareSpec, bodies written under `<root>/__files`. */
async function writeStubs(root: string, spec: BareSpec): Promise<void> {
  await mkdir(join(root, 'mappings'), { recursive: true })
  await mkdir(join(root, '__files'), { recursive: true })
  const mappings: object[] = []
  let n = 0
  const bodyFile = async (body: Buffer) => {
    const name = `body-${n++}`
    await writeFile(join(root, '__files', name), body)
    return name
  }
  for (const route of spec.routes) {
    mappings.push({
      request: { method: route.method, urlPath: route.path },
      response: { status: route.status, headers: { 'Content-Type': route.contentType }, bodyFileName: await bodyFile(await readFile(route.bodyFile)) }
    })
  }
  for (const recorded of spec.answers ?? []) {
    const answers = JSON.parse(await readFile(recorded.answersFile, 'utf8')) as Record<string, { contentType: string; body: string }>
    for (const [key, answer] of Object.entries(answers)) {
      const [scheme, accept, url] = key.split(' ')
      mappings.push({
        request: { scheme, method: recorded.method, url, headers: { Accept: { equalTo: accept } } },
        response: { status: 200, headers: { 'Content-Type': answer.contentType }, bodyFileName: await bodyFile(Buffer.from(answer.body)) }
      })
    }
  }
  await writeFile(join(root, 'mappings', 'stubs.json'), JSON.stringify({ mappings }))
}

function processCpuMs(pid: number): Promise<number> {
  return readFile(`/proc/${pid}/stat`, 'utf8').then((stat) => {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
  })
}

/** Starts WireMock on 127.0.0.1 (and HTTPS with its own certificate when `https`) answering `spec`. */
export async function startWiremock(root: string, spec: BareSpec, https: boolean): Promise<Target> {
  await writeStubs(root, spec)
  const port = await freePort()
  const tlsPort = https ? await freePort() : null
  const args = ['-jar', await jarPath(), '--bind-address', '127.0.0.1', '--port', String(port), '--root-dir', root, '--no-request-journal', '--disable-request-logging', '--disable-banner']
  if (tlsPort !== null) args.push('--https-port', String(tlsPort))
  const child = spawn('java', args, { stdio: ['ignore', 'ignore', 'inherit'] })
  let exited = false
  child.once('exit', () => (exited = true))
  const origin = `http://127.0.0.1:${port}`
  const deadline = performance.now() + READY_TIMEOUT_MS
  for (;;) {
    if (exited) throw new Error(`WireMock exited before it listened (java ${args.join(' ')})`)
    const ok = await fetch(`${origin}/__admin/health`).then((r) => r.ok, () => false)
    if (ok) break
    if (performance.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`WireMock did not answer on ${origin} within ${READY_TIMEOUT_MS} ms`)
    }
    await sleep(200)
  }
  const pid = child.pid ?? -1
  const ready: Ready = { type: 'ready', port, tlsPort, rssBeforeBuild: 0, rssAfterBuild: 0, buildMs: 0 }
  let mark = { cpuMs: 0, at: 0 }
  return {
    ready,
    pid,
    origin,
    tlsOrigin: tlsPort === null ? undefined : `https://127.0.0.1:${tlsPort}`,
    async command(command) {
      if (command.op === 'cpu-start') {
        mark = { cpuMs: await processCpuMs(pid), at: performance.now() }
        return null as never
      }
      if (command.op === 'cpu-stop') return { cpuMs: (await processCpuMs(pid)) - mark.cpuMs, wallMs: performance.now() - mark.at } as never
      throw new Error(`WireMock takes no ${command.op} command`)
    },
    async close() {
      if (exited) return
      const gone = once(child, 'exit')
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await gone
      clearTimeout(killer)
    }
  }
}
