/**
 * One load run with autocannon's programmatic API, bounded in time and in requests, with a
 * progress bar on a terminal and one summary line either way. Results are reduced to the
 * figures the table shows.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import autocannon from 'autocannon'
import { runListClients } from './list-client.js'
import type { LoadRow } from './results.js'
import type { Target } from './target.js'

export interface LoadSpec {
  /** row name, e.g. `agentinfo one agent JSON` */
  name: string
  /** which server answered: fleetsim, fastify (bare baseline), node (bare baseline), wiremock (the peer) */
  target: 'fleetsim' | 'fastify' | 'node' | 'wiremock'
  group: string
  origin: string
  /** path and query */
  path: string
  method?: 'GET' | 'POST' | 'DELETE'
  headers?: Record<string, string>
  connections: number
  durationSeconds: number
  /** stop after this many requests even if time is left */
  maxRequests?: number
  /** large answers: go on past durationSeconds until this many answers came, for at most maxSeconds */
  minRequests?: number
  maxSeconds?: number
  /** a new path per request (e.g. deleteagent with fresh UUIDs); overrides `path` */
  nextPath?: () => string
  /** per-request timeout in seconds */
  timeoutSeconds?: number
  /** free-form facts shown next to the row (fleet size, UUIDs per request, clock) */
  params?: Record<string, string | number | boolean>
  /** the server's process: its CPU time over the run is reported per request */
  server?: Pick<Target, 'command'>
  /** seconds of the same load first, not measured (JIT compilation, caches, pools) */
  warmupSeconds?: number
  /**
   * Answers of megabytes: measured by timing each answer (largeAnswerLoad) rather than with
   * autocannon, whose run times are whole seconds, too coarse for a dozen answers.
   */
  large?: boolean
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits))

/** A fleetsim row's shares of answers sent kept and joined (LoadRow.keptShare, joinedShare), when the server counted them. */
function answerShares(cpu: { keptAnswers?: number; joinedAnswers?: number } | undefined, answers: number): { keptShare?: number; joinedShare?: number } {
  if (cpu?.keptAnswers === undefined || answers === 0) return {}
  const share = (n: number) => round(Math.min(1, n / answers), 3)
  return { keptShare: share(cpu.keptAnswers), joinedShare: share(cpu.joinedAnswers ?? 0) }
}

const keptNote = (row: LoadRow) =>
  row.keptShare === undefined ? '' : `, ${Math.round(row.keptShare * 100)}% sent kept, ${Math.round((row.joinedShare ?? 0) * 100)}% joined a list being made`

export async function runLoad(spec: LoadSpec, progress: (line: string) => void): Promise<LoadRow> {
  if (spec.large === true) return largeAnswerLoad(spec, progress)
  const started = performance.now()
  const url = spec.origin + spec.path
  const options: autocannon.Options = {
    url,
    method: spec.method ?? 'GET',
    headers: spec.headers ?? {},
    connections: spec.connections,
    timeout: spec.timeoutSeconds ?? 10,
    ...(spec.maxRequests !== undefined ? { amount: spec.maxRequests } : { duration: spec.durationSeconds }),
    ...(spec.nextPath !== undefined ? { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: spec.nextPath?.() ?? spec.path }) }] } : {})
  }
  if (spec.warmupSeconds !== undefined && spec.warmupSeconds > 0 && spec.maxRequests === undefined) {
    await autocannon({ ...options, duration: spec.warmupSeconds })
  }
  await spec.server?.command({ op: 'cpu-start' })
  let instance!: autocannon.Instance
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)))
  })
  const interactive = process.stderr.isTTY === true
  autocannon.track(instance, { renderProgressBar: interactive, renderResultsTable: false, renderLatencyTable: false, outputStream: process.stderr })
  // `amount` makes autocannon ignore `duration`: the timer bounds such runs in time as well.
  const timer = spec.maxRequests !== undefined ? setTimeout(() => instance.stop(), spec.durationSeconds * 1000) : undefined
  const result = await finished
  clearTimeout(timer)
  const cpu = await spec.server?.command({ op: 'cpu-stop' })
  const wallSeconds = (performance.now() - started) / 1000
  // autocannon's own duration is whole seconds; the run's start and finish are exact.
  const runSeconds = Math.max(0.001, (new Date(result.finish).getTime() - new Date(result.start).getTime()) / 1000)
  const row: LoadRow = {
    group: spec.group,
    name: spec.name,
    target: spec.target,
    params: spec.params ?? {},
    connections: spec.connections,
    durationSeconds: round(wallSeconds),
    requests: result.requests.total,
    requestsPerSec: round(result.requests.total / runSeconds, 1),
    latencyMs: {
      p50: result.latency.p50,
      p97_5: result.latency.p97_5,
      p99: result.latency.p99,
      mean: round(result.latency.mean),
      max: result.latency.max
    },
    bytesPerSec: Math.round(result.throughput.total / runSeconds),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    serverCpuUsPerRequest: cpu === undefined || result.requests.total === 0 ? null : Math.round((cpu.cpuMs * 1000) / result.requests.total),
    serverCores: cpu === undefined ? null : round(cpu.cpuMs / cpu.wallMs),
    serverGcUsPerRequest: cpu === undefined || result.requests.total === 0 ? null : round((cpu.gcMs * 1000) / result.requests.total, 1),
    ...answerShares(cpu, result.requests.total),
    ratio: null,
    baseline: null
  }
  progress(
    `${spec.group} | ${spec.name} [${spec.target}]: ${row.requestsPerSec} req/s, p50 ${row.latencyMs.p50} ms, p99 ${row.latencyMs.p99} ms, ` +
      `${(row.bytesPerSec / 1e6).toFixed(1)} MB/s, server ${row.serverCpuUsPerRequest ?? '?'} µs CPU/request (${row.serverGcUsPerRequest ?? '?'} in GC; ${row.serverCores ?? '?'} cores)${keptNote(row)}, errors ${row.errors}, timeouts ${row.timeouts}, non-2xx ${row.non2xx}`
  )
  return row
}

export interface FetchedAnswer {
  status: number
  contentType: string
  body: Buffer
  /** body bytes received (also when the body was not kept) */
  bytes: number
  /** wall ms from sending the request to the first body byte */
  firstByteMs: number
  /** wall ms from sending the request to the last body byte */
  totalMs: number
}

/** One request with node's client: the exact answer bytes, time to first byte and to the end. */
export function fetchAnswer(origin: string, path: string, options: { method?: string; headers?: Record<string, string>; keepBody?: boolean } = {}): Promise<FetchedAnswer> {
  const url = new URL(path, origin)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let firstByteMs = -1
    const chunks: Buffer[] = []
    let size = 0
    const request = send(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, rejectUnauthorized: false, agent: false },
      (response) => {
        response.on('data', (chunk: Buffer) => {
          if (firstByteMs < 0) firstByteMs = performance.now() - started
          size += chunk.length
          if (options.keepBody !== false) chunks.push(chunk)
        })
        response.on('end', () => {
          const totalMs = performance.now() - started
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks),
            bytes: size,
            firstByteMs: firstByteMs < 0 ? totalMs : firstByteMs,
            totalMs
          })
        })
        response.on('error', reject)
      }
    )
    request.on('error', reject)
    request.end()
  })
}

/**
 * Large answers: `connections` clients, each on its own kept-alive connection, ask one after
 * the other for `durationSeconds` (and until `minRequests` answers came, up to `maxSeconds`), or
 * until `maxRequests` answers came; every answer is read to its end and timed. The clients run
 * in a process of their own (list-client.ts says why). Answers/s is answers over the exact wall
 * time of the run.
 */
async function largeAnswerLoad(spec: LoadSpec, progress: (line: string) => void): Promise<LoadRow> {
  const got = await runListClients(
    {
      origin: spec.origin,
      path: spec.path,
      method: spec.method,
      headers: spec.headers ?? {},
      clients: spec.connections,
      seconds: spec.durationSeconds,
      minAnswers: spec.minRequests,
      maxSeconds: spec.maxSeconds,
      maxAnswers: spec.maxRequests,
      timeoutSeconds: spec.timeoutSeconds
    },
    async () => spec.server?.command({ op: 'cpu-start' })
  )
  const cpu = await spec.server?.command({ op: 'cpu-stop' })
  const { times, bytes, errors, timeouts, non2xx, wallSeconds } = got
  const sorted = [...times].sort((a, b) => a - b)
  const at = (q: number) => (sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]))
  const row: LoadRow = {
    group: spec.group,
    name: spec.name,
    target: spec.target,
    params: spec.params ?? {},
    connections: spec.connections,
    durationSeconds: round(wallSeconds),
    requests: times.length,
    requestsPerSec: round(times.length / wallSeconds, 2),
    latencyMs: { p50: at(0.5), p97_5: at(0.975), p99: at(0.99), mean: round(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)), max: Math.round(sorted.at(-1) ?? 0) },
    bytesPerSec: Math.round(bytes / wallSeconds),
    errors,
    timeouts,
    non2xx,
    serverCpuUsPerRequest: cpu === undefined || times.length === 0 ? null : Math.round((cpu.cpuMs * 1000) / times.length),
    serverCores: cpu === undefined ? null : round(cpu.cpuMs / cpu.wallMs),
    serverGcUsPerRequest: cpu === undefined || times.length === 0 ? null : round((cpu.gcMs * 1000) / times.length, 1),
    ...answerShares(cpu, times.length),
    ratio: null,
    baseline: null
  }
  progress(
    `${spec.group} | ${spec.name} [${spec.target}]: ${row.requestsPerSec} answers/s, p50 ${row.latencyMs.p50} ms, p99 ${row.latencyMs.p99} ms, ` +
      `${(row.bytesPerSec / 1e6).toFixed(1)} MB/s, server ${row.serverCpuUsPerRequest ?? '?'} µs CPU/answer (${row.serverGcUsPerRequest ?? '?'} in GC)${keptNote(row)}, errors ${errors}, timeouts ${timeouts}, non-2xx ${non2xx}`
  )
  return row
}
