/**
 * The server under load, in its own process (forked by target.ts): fleetsim (a fleet, the
 * manager app and a node:http(s) server, as src/server.ts assembles them), or a bare baseline
 * (fastify or plain node:http) answering fixed bytes. Listens on 127.0.0.1 only, on a free
 * port, and answers the driver's commands over IPC (protocol.ts).
 */
import { readFileSync } from 'node:fs'
import { PerformanceObserver } from 'node:perf_hooks'
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { once } from 'node:events'
import Fastify from 'fastify'
import pino from 'pino'
import { buildApp } from '../../src/app.js'
import { tuneHeapForServing } from '../../src/lib/serving-heap.js'
import { AnswerCache, DEFAULT_KEPT_ANSWERS } from '../../src/http/answer-cache.js'
import { parseServeConfig } from '../../src/config.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import type { AgentStateName } from '../../src/protocol/states.js'
import { loadScenarioFileOrThrow } from '../../src/scenario/index.js'
import { createLogger } from '../../src/server.js'
import { TLS_MIN_VERSION } from '../../src/tls/tls-store.js'
import type { CaInfo } from '../../src/tls/ca-info.js'
import { BENCH_CREDENTIALS, answerKey, busyFor, type BareAnswers, type BareSpec, type ChildMessage, type Command, type CommandResults, type RssSample, type TargetSpec, type TlsFiles } from './protocol.js'

export const BENCH_START_TIME = Date.parse('2026-06-01T00:00:00Z')
/**
 * Request lines of multi-agent operations carry every UUID in the query: 10,000 UUIDs are
 * about 370 kB, far above node's default 16 kB header limit.
 */
export const MAX_HEADER_BYTES = 1024 * 1024
/** fleetsim's log level under load: warnings and errors only (docs: README, load testing). */
export const BENCH_LOG_LEVEL = 'warn'

const CA: CaInfo = {
  fingerprint: '',
  subject: 'CN=fleetsim CA,O=fleetsim',
  issuer: 'CN=fleetsim CA,O=fleetsim',
  serialNumber: '01',
  notBefore: new Date('2026-01-01T00:00:00Z'),
  notAfter: new Date('2036-01-01T00:00:00Z'),
  sigAlgName: 'SHA256withECDSA',
  pem: ''
}

function send(message: ChildMessage): void {
  process.send?.(message)
}

function httpsServer(handler: RequestListener, tls: TlsFiles): Server {
  return createHttpsServer(
    { key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile), minVersion: TLS_MIN_VERSION, maxHeaderSize: MAX_HEADER_BYTES },
    handler
  )
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return (server.address() as { port: number }).port
}

async function startFleetsim(spec: Extract<TargetSpec, { kind: 'fleetsim' }>): Promise<{ handler: RequestListener; fleet: FleetEngine; buildMs: number }> {
  // As `fleetsim serve` does (src/commands/serve.ts), unless the spec asks for node's default; bare targets run with node's defaults.
  if (spec.pretenuring !== true) tuneHeapForServing()
  let scenario
  if (spec.scenario !== undefined) {
    const loaded = await loadScenarioFileOrThrow(spec.scenario)
    const ids = new Map<string, number>()
    scenario = compileScenario({ ...loaded, fleet: { ...loaded.fleet, agents: spec.agents, seed: spec.seed } }, BENCH_START_TIME, {
      templateId: (name) => ids.get(name) ?? (ids.set(name, ids.size), ids.size - 1)
    })
  }
  // The app of `fleetsim serve` with its defaults (journal, metrics, faults, admin), except: the
  // bench's credentials, the query limit matching the header limit (10,000 UUIDs take about
  // 370 kB), and warn-level logs, as a load test would run it (at info every request is a line).
  const config = parseServeConfig(
    [
      ...['--user', BENCH_CREDENTIALS.user, '--password', BENCH_CREDENTIALS.password],
      ...['--max-query-length', String(MAX_HEADER_BYTES - 16 * 1024), '--log-level', BENCH_LOG_LEVEL],
      ...(spec.serveFlags ?? [])
    ],
    {}
  )
  const started = performance.now()
  const fleet = await createFleet({
    agents: spec.agents,
    seed: spec.seed,
    speed: spec.speed,
    paused: spec.paused,
    startTime: BENCH_START_TIME,
    caFingerprint: spec.caFingerprint,
    // As serve builds its fleet (src/simulation.ts): the manager's status poll is a fleet option.
    statusPoll: config.statusPoll,
    ...(spec.workers !== undefined ? { workers: spec.workers } : {}),
    ...(scenario !== undefined ? { scenario } : {})
  })
  const buildMs = performance.now() - started
  // Discarded lines are still formatted and written (synchronously, as to stdout), to /dev/null.
  const logger = createLogger(config.logLevel, spec.discardLogs === true ? { destination: pino.destination('/dev/null') } : {})
  // The cache buildApp would make, held here to count the answers sent from it (cpu-stop).
  answerCache = new AnswerCache(fleet, DEFAULT_KEPT_ANSWERS, config.keptAnswersMaxBytes)
  const { handler } = await buildApp({ fleet, ca: { ...CA, fingerprint: spec.caFingerprint }, logger, answers: answerCache }, config)
  return { handler: spec.recorded === undefined ? handler : recordedFirst(spec.recorded, handler), fleet, buildMs }
}

interface RecordedAnswer {
  status: number
  contentType: string
  body: Buffer
}

/** A BareAnswers file as a map from `<accept> <url>` to the answer's type and bytes. */
function readAnswers(spec: BareAnswers): Map<string, RecordedAnswer> {
  const answers = JSON.parse(readFileSync(spec.answersFile, 'utf8')) as Record<string, { contentType: string; body: string }>
  return new Map(Object.entries(answers).map(([key, answer]) => [key, { status: 200, contentType: answer.contentType, body: Buffer.from(answer.body) }]))
}

/** The recorded answer to a request, by its scheme, Accept header and URL, if one of `files` holds it. */
function recordedAnswers(files: readonly BareAnswers[]): (request: IncomingMessage) => RecordedAnswer | undefined {
  const answers = new Map<string, RecordedAnswer>()
  for (const recorded of files) for (const [key, answer] of readAnswers(recorded)) answers.set(key, answer)
  return (request) => answers.get(answerKey((request.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http', request.headers.accept ?? '', request.url ?? '/'))
}

/** fleetsim's handler behind the recorded answers: a request that has one is sent it, as the bare node:http target sends it. */
function recordedFirst(files: readonly BareAnswers[], handler: RequestListener): RequestListener {
  const recordedAnswer = recordedAnswers(files)
  return (request, response) => {
    const answer = recordedAnswer(request)
    if (answer === undefined) return handler(request, response)
    response.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': answer.body.length })
    response.end(answer.body)
  }
}

async function startBare(kind: 'fastify' | 'node', spec: BareSpec): Promise<RequestListener> {
  const bodies = spec.routes.map((route) => ({ ...route, body: readFileSync(route.bodyFile) }))
  const recordedAnswer = recordedAnswers(spec.answers ?? [])
  if (kind === 'node') {
    const busy = spec.busyMicroseconds ?? 0
    const byKey = new Map(bodies.map((route) => [`${route.method} ${route.path}`, route]))
    return (request: IncomingMessage, response: ServerResponse) => {
      const url = request.url ?? '/'
      const query = url.indexOf('?')
      const route = byKey.get(`${request.method} ${query === -1 ? url : url.slice(0, query)}`) ?? recordedAnswer(request)
      if (route === undefined) {
        response.writeHead(404).end()
        return
      }
      if (busy > 0) busyFor(busy)
      response.writeHead(route.status, { 'content-type': route.contentType, 'content-length': route.body.length })
      response.end(route.body)
    }
  }
  const app = Fastify({ logger: false })
  // Requests carry the same headers as fleetsim's (a JSON content type, no body): accept them.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, _body, done) => done(null, undefined))
  for (const route of bodies) {
    app.route({ method: route.method, url: route.path, handler: (_request, reply) => reply.code(route.status).type(route.contentType).send(route.body) })
  }
  for (const recorded of spec.answers ?? []) {
    app.route({
      method: recorded.method,
      url: recorded.path,
      handler: (request, reply) => {
        const answer = recordedAnswer(request.raw)
        if (answer === undefined) return reply.code(404).send()
        return reply.code(200).type(answer.contentType).send(answer.body)
      }
    })
  }
  await app.ready()
  return app.routing.bind(app) as RequestListener
}

function rssSampler() {
  let timer: NodeJS.Timeout | undefined
  let stats: RssSample = { samples: 0, first: 0, min: Infinity, max: 0, mean: 0 }
  const take = () => {
    const rss = process.memoryUsage.rss()
    stats.mean = (stats.mean * stats.samples + rss) / (stats.samples + 1)
    stats.samples++
    stats.min = Math.min(stats.min, rss)
    stats.max = Math.max(stats.max, rss)
  }
  return {
    start(everyMs: number) {
      clearInterval(timer)
      stats = { samples: 0, first: process.memoryUsage.rss(), min: Infinity, max: 0, mean: 0 }
      take()
      timer = setInterval(take, everyMs)
    },
    stop(): RssSample {
      clearInterval(timer)
      take()
      return stats
    }
  }
}

/**
 * GC pauses of this process so far, in ms. With --single-threaded-gc (the bench's default) the
 * collector runs on the server's own thread, so this is time the server was not answering. The
 * same observer runs in every target, bare or fleetsim.
 */
let gcMs = 0
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration
}).observe({ entryTypes: ['gc'] })

/** fleetsim's kept answers (src/http/answer-cache.ts), to count what they answered; none in a bare target */
let answerCache: AnswerCache | undefined

let cpuMark = { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization(), at: performance.now(), gcMs: 0, kept: 0, joined: 0 }

async function handle(fleet: FleetEngine | undefined, sampler: ReturnType<typeof rssSampler>, command: Command): Promise<unknown> {
  if (command.op === 'sample-start') return sampler.start(command.everyMs), null
  if (command.op === 'sample-stop') return sampler.stop()
  if (command.op === 'cpu-start') {
    cpuMark = { cpu: process.cpuUsage(), elu: performance.eventLoopUtilization(), at: performance.now(), gcMs, kept: answerCache?.hits ?? 0, joined: answerCache?.joins ?? 0 }
    return null
  }
  if (command.op === 'cpu-stop') {
    const used = process.cpuUsage(cpuMark.cpu)
    return {
      cpuMs: (used.user + used.system) / 1000,
      wallMs: performance.now() - cpuMark.at,
      gcMs: gcMs - cpuMark.gcMs,
      // The event loop's active time: the main thread at work, where the process's CPU also counts its workers'.
      mainThreadMs: performance.eventLoopUtilization(cpuMark.elu).active,
      ...(answerCache === undefined ? {} : { keptAnswers: answerCache.hits - cpuMark.kept, joinedAnswers: answerCache.joins - cpuMark.joined })
    } satisfies CommandResults['cpu-stop']
  }
  if (fleet === undefined) throw new Error(`${command.op} needs a fleetsim target`)
  const states = (state: string | undefined) => (state === undefined ? undefined : new Set([state as AgentStateName]))
  switch (command.op) {
    case 'uuids':
    case 'names': {
      const out: string[] = []
      let skip = command.op === 'uuids' ? (command.offset ?? 0) : 0
      for (const i of fleet.indices(states(command.state))) {
        if (skip-- > 0) continue
        out.push(command.op === 'uuids' ? fleet.uuid(i) : fleet.name(i))
        if (out.length === command.count) break
      }
      return out satisfies CommandResults['uuids']
    }
    case 'clock':
      return fleet.setClock({ ...(command.speed !== undefined ? { speed: command.speed } : {}), ...(command.paused !== undefined ? { paused: command.paused } : {}) })
    case 'advance': {
      const rounds = fleet.stats.stepRounds
      const started = performance.now()
      for (let done = 0; done < command.seconds; done += command.chunk) await fleet.advance(Math.min(command.chunk, command.seconds - done))
      return { wallMs: performance.now() - started, rounds: fleet.stats.stepRounds - rounds } satisfies CommandResults['advance']
    }
    case 'cpu': {
      const second = fleet.second()
      await fleet.setClock({ speed: command.speed, paused: false })
      const cpu = process.cpuUsage()
      const started = performance.now()
      await new Promise((resolve) => setTimeout(resolve, command.seconds * 1000))
      const used = process.cpuUsage(cpu)
      const wallMs = performance.now() - started
      await fleet.setClock({ paused: true })
      return {
        cores: (used.user + used.system) / 1000 / wallMs,
        userMs: used.user / 1000,
        systemMs: used.system / 1000,
        wallMs,
        virtualSeconds: fleet.second() - second
      } satisfies CommandResults['cpu']
    }
    case 'stats': {
      const counts = fleet.counts()
      return {
        agents: counts.agents,
        byState: counts.byState,
        second: fleet.second(),
        stepRounds: fleet.stats.stepRounds,
        lagSeconds: fleet.lagSeconds()
      } satisfies CommandResults['stats']
    }
  }
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]) as TargetSpec
  const rssBeforeBuild = process.memoryUsage.rss()
  let fleet: FleetEngine | undefined
  let handler: RequestListener
  let buildMs = 0
  if (spec.kind === 'fleetsim') ({ handler, fleet, buildMs } = await startFleetsim(spec))
  else handler = await startBare(spec.kind, spec)
  const rssAfterBuild = process.memoryUsage.rss()
  const servers = [createHttpServer({ maxHeaderSize: MAX_HEADER_BYTES }, handler)]
  if (spec.tls !== undefined) servers.push(httpsServer(handler, spec.tls))
  const [port, tlsPort] = await Promise.all(servers.map(listen))
  const sampler = rssSampler()
  process.on('message', (message: { id: number; command: Command }) => {
    handle(fleet, sampler, message.command).then(
      (value) => send({ type: 'reply', id: message.id, value }),
      (error: unknown) => send({ type: 'reply', id: message.id, error: error instanceof Error ? error.message : String(error) })
    )
  })
  // The driver closing the IPC channel (or dying) ends the target.
  process.on('disconnect', () => {
    for (const server of servers) {
      server.closeAllConnections()
      server.close()
    }
    void fleet?.close().finally(() => process.exit(0))
    if (fleet === undefined) process.exit(0)
  })
  send({ type: 'ready', port, tlsPort: tlsPort ?? null, rssBeforeBuild, rssAfterBuild, buildMs })
}

main().catch((error: unknown) => {
  send({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  process.exit(1)
})
