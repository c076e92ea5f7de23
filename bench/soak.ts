/**
 * Soak run: fleetsim with a lively scenario (flapping-network at high speed) under autocannon
 * load that mixes agentinfo, stopagent and startagent, for a bounded time (default 10 minutes,
 * at most 24 hours), on loopback only.
 *
 *   npm run soak -- --duration 10m [--connections 8] [--speed 600] [--out bench/results/soak.json]
 *
 * The server runs in a child process (this file again, with FLEETSIM_SOAK_ROLE=server) so that
 * autocannon's own work does not show up as the server's event-loop lag or memory. The child
 * samples RSS, heap and event-loop delay once a second and reports them over IPC; the parent
 * drives the load and writes one JSON result (errors, 5xx, memory start/end/max, lag
 * percentiles) to bench/results/. Each failed check (lib/soak-checks.ts) is a sentence on
 * stderr saying what failed and what it means, and the exit code is then 1.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, totalmem } from 'node:os'
import { dirname, resolve } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { countsConsistent, settledCounts, soakFailures, type CountsComparison } from './lib/soak-checks.js'

const ROLE_ENV = 'FLEETSIM_SOAK_ROLE'
const SCENARIO = 'scenarios/flapping-network.yaml'
const START = Date.parse('2026-06-01T00:00:00Z')
const USER = 'soak'
const PASSWORD = 'soak-password'
const MAX_DURATION_S = 24 * 3600
const LAG_RESOLUTION_MS = 10
/** seconds autocannon waits for an answer */
const TIMEOUT_S = 10

interface Sample {
  /** seconds since the load started */
  t: number
  rssBytes: number
  heapUsedBytes: number
  /** event-loop delay over the last second, milliseconds */
  lagP50Ms: number
  lagP99Ms: number
  lagMaxMs: number
  /** virtual seconds the fleet lags behind its clock */
  fleetLagSeconds: number
  agents: number
}

type ServerMessage =
  | { kind: 'ready'; port: number; names: string[]; uuids: string[] }
  | { kind: 'sample'; sample: Sample }
  | { kind: 'done'; serverErrors: number; responses: number; fleet: CountsComparison; agents: number; virtualSeconds: number }

// ---- server side ---------------------------------------------------------------------------------

async function serve(speed: number): Promise<void> {
  const { parseServeConfig } = await import('../src/config.js')
  const { buildApp } = await import('../src/app.js')
  const { createLogger } = await import('../src/server.js')
  const { createFleet } = await import('../src/fleet/fleet.js')
  const { compileScenario } = await import('../src/fleet/scenario-program.js')
  const { loadScenarioFileOrThrow } = await import('../src/scenario/index.js')

  const ids = new Map<string, number>()
  const scenario = compileScenario(await loadScenarioFileOrThrow(SCENARIO), START, {
    templateId: (name) => ids.get(name) ?? (ids.set(name, ids.size), ids.size - 1)
  })
  // One worker: the other core drives the load.
  const fleet = await createFleet({ agents: 0, seed: 0, workers: 1, speed, startTime: START, caFingerprint: 'AB:CD', scenario })
  const ca = {
    fingerprint: 'AB:CD',
    subject: 'CN=soak',
    issuer: 'CN=soak',
    serialNumber: '01',
    notBefore: new Date(START),
    notAfter: new Date(START + 365 * 86400_000),
    sigAlgName: 'SHA256withRSA',
    pem: ''
  }
  // The app `fleetsim serve` answers with (fast path included), at the level a load test uses.
  const config = parseServeConfig(['--user', USER, '--password', PASSWORD, '--log-level', 'warn'], {})
  const { app, handler } = await buildApp({ fleet, ca, logger: createLogger(config.logLevel) }, config)
  let serverErrors = 0
  let responses = 0
  const server = createServer((request, response) => {
    response.once('finish', () => {
      responses++
      if (response.statusCode >= 500) serverErrors++
    })
    handler(request, response)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port

  const everyone = [...fleet.indices()]
  const picked = everyone.filter((_, k) => k % Math.max(1, Math.floor(everyone.length / 200)) === 0)
  send({ kind: 'ready', port, names: picked.map((i) => fleet.name(i)), uuids: picked.map((i) => fleet.uuid(i)) })

  // The histogram records whole timer intervals, resolution included; it is taken off below.
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS })
  const lagMs = (nanoseconds: number): number => Math.max(0, nanoseconds / 1e6 - LAG_RESOLUTION_MS)
  lag.enable()
  const began = performance.now()
  const sampler = setInterval(() => {
    const memory = process.memoryUsage()
    send({
      kind: 'sample',
      sample: {
        t: Math.round((performance.now() - began) / 100) / 10,
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        lagP50Ms: lagMs(lag.percentile(50)),
        lagP99Ms: lagMs(lag.percentile(99)),
        lagMaxMs: lagMs(lag.max),
        fleetLagSeconds: fleet.lagSeconds(),
        agents: fleet.size()
      }
    })
    lag.reset()
  }, 1000)

  await once(process, 'message')
  clearInterval(sampler)
  lag.disable()
  // Compared between step rounds: a scan during one sees agents the counts have not caught up with.
  const counts = await settledCounts(fleet)
  const result: ServerMessage = { kind: 'done', serverErrors, responses, fleet: counts, agents: fleet.size(), virtualSeconds: fleet.second() }
  server.closeAllConnections()
  server.close()
  await app.close()
  await fleet.close()
  send(result)
  process.disconnect?.()
}

function send(message: ServerMessage): void {
  process.send?.(message)
}

// ---- load side -----------------------------------------------------------------------------------

function parseDurationSeconds(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text)
  if (match === null) throw new Error(`--duration must be a number with s, m or h (10m, 90s, 1h), got "${text}"`)
  const seconds = Number(match[1]) * (match[2] === 'h' ? 3600 : match[2] === 'm' ? 60 : 1)
  if (!(seconds >= 1 && seconds <= MAX_DURATION_S)) throw new Error(`--duration must be from 1s to 24h, got "${text}"`)
  return Math.round(seconds)
}

function positiveInteger(name: string, text: string, max: number): number {
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`--${name} must be an integer from 1 to ${max}, got "${text}"`)
  return value
}

function summarise(values: number[]): { start: number; end: number; max: number; min: number } {
  return { start: values[0] ?? 0, end: values.at(-1) ?? 0, max: Math.max(...values), min: Math.min(...values) }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

const mib = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10

async function drive(): Promise<number> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10m' },
      connections: { type: 'string', default: '8' },
      speed: { type: 'string', default: '600' },
      out: { type: 'string' }
    }
  })
  const duration = parseDurationSeconds(values.duration)
  const connections = positiveInteger('connections', values.connections, 1000)
  const speed = positiveInteger('speed', values.speed, 86400)
  const here = dirname(fileURLToPath(import.meta.url))
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const out = resolve(values.out ?? `${here}/results/soak-${stamp}.json`)

  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [String(speed)], {
    env: { ...process.env, [ROLE_ENV]: 'server' },
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const samples: Sample[] = []
  let done: Extract<ServerMessage, { kind: 'done' }> | undefined
  const ready = new Promise<Extract<ServerMessage, { kind: 'ready' }>>((resolveReady, reject) => {
    child.on('message', (message: ServerMessage) => {
      if (message.kind === 'ready') resolveReady(message)
      else if (message.kind === 'sample') samples.push(message.sample)
      else done = message
    })
    child.once('exit', (code) => reject(new Error(`the soak server exited early (code ${code})`)))
  })
  const { port, names, uuids } = await ready
  process.stdout.write(`soak: ${duration}s against 127.0.0.1:${port}, ${connections} connections, speed ${speed}\n`)

  const headers = { REST_USER: USER, REST_PASSWORD: PASSWORD, accept: 'application/json' }
  let n = 0
  const pick = <T>(items: T[]): T => items[n++ % items.length]
  const base = '/manager/mvc/restservice'
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration,
    timeout: TIMEOUT_S,
    headers,
    requests: [
      { method: 'GET', setupRequest: (request) => ({ ...request, path: `${base}/agentinfo?agentname=${encodeURIComponent(pick(names))}` }) },
      { method: 'GET', setupRequest: (request) => ({ ...request, path: `${base}/agentinfo?agentstate=OFFLINE` }) },
      { method: 'POST', setupRequest: (request) => ({ ...request, path: `${base}/stopagent?agentUuids=${pick(uuids)}` }) },
      { method: 'POST', setupRequest: (request) => ({ ...request, path: `${base}/startagent?agentUuids=${pick(uuids)}` }) }
    ]
  })
  const load = await instance

  child.send({ kind: 'stop' })
  await once(child, 'exit')
  if (done === undefined) throw new Error('the soak server did not report its totals')

  const rss = summarise(samples.map((s) => s.rssBytes))
  const heap = summarise(samples.map((s) => s.heapUsedBytes))
  const result = {
    command: `npm run soak -- --duration ${values.duration} --connections ${connections} --speed ${speed}`,
    date: new Date().toISOString(),
    machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? 'unknown', memoryBytes: totalmem(), node: process.version },
    scenario: SCENARIO,
    durationSeconds: duration,
    virtualSeconds: done.virtualSeconds,
    requests: {
      total: load.requests.total,
      perSecondMean: load.requests.average,
      non2xx: load.non2xx,
      errors: load.errors,
      timeouts: load.timeouts,
      serverErrors5xx: done.serverErrors,
      latencyP50Ms: load.latency.p50,
      latencyP99Ms: load.latency.p99,
      latencyMaxMs: load.latency.max
    },
    memory: {
      rssMiB: { start: mib(rss.start), end: mib(rss.end), max: mib(rss.max), growth: mib(rss.end - rss.start) },
      heapUsedMiB: { start: mib(heap.start), end: mib(heap.end), max: mib(heap.max), growth: mib(heap.end - heap.start) }
    },
    eventLoopLagMs: {
      p50OfSeconds: percentile(samples.map((s) => s.lagP50Ms), 50),
      p99OfSecondlyP99: percentile(samples.map((s) => s.lagP99Ms), 99),
      max: Math.max(...samples.map((s) => s.lagMaxMs))
    },
    fleet: {
      agentsAtEnd: done.agents,
      countsConsistent: countsConsistent(done.fleet),
      ...(countsConsistent(done.fleet) ? {} : { countsByState: done.fleet.counts, scannedByState: done.fleet.scanned }),
      maxLagVirtualSeconds: Math.max(...samples.map((s) => s.fleetLagSeconds))
    },
    failures: soakFailures({
      errors: load.errors,
      timeouts: load.timeouts,
      non2xx: load.non2xx,
      serverErrors: done.serverErrors,
      timeoutSeconds: TIMEOUT_S,
      fleet: done.fleet
    }),
    samples
  }
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`)
  const { samples: _samples, ...summary } = result
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\nsoak: result written to ${out}\n`)
  if (result.failures.length === 0) {
    process.stdout.write('soak: passed (no failed requests, no 5xx, fleet counts consistent)\n')
    return 0
  }
  for (const failure of result.failures) process.stderr.write(`soak: FAILED: ${failure}\n`)
  return 1
}

if (process.env[ROLE_ENV] === 'server') {
  await serve(Number(process.argv[2]))
} else {
  process.exitCode = await drive()
}
