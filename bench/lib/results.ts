/**
 * The results file: every figure of a run, the machine and versions it ran on, and the
 * targets it was checked against. Written as `bench/results/<scope>-<date>.json`; the table
 * in bench/README.md is regenerated from these files (table.ts).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, totalmem, platform, release, arch } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { GcMode } from './protocol.js'

/** One autocannon run. Latency in ms; ratio = requests/s over the baseline row's requests/s. */
export interface LoadRow {
  group: string
  name: string
  target: 'fleetsim' | 'fastify' | 'node' | 'wiremock'
  params: Record<string, string | number | boolean>
  connections: number
  durationSeconds: number
  requests: number
  requestsPerSec: number
  latencyMs: { p50: number; p97_5: number; p99: number; mean: number; max: number }
  bytesPerSec: number
  errors: number
  timeouts: number
  non2xx: number
  /** server process CPU (all threads, fleet stepping included) per answered request, µs */
  serverCpuUsPerRequest: number | null
  /** server process CPU over the run, in cores */
  serverCores: number | null
  /** of serverCpuUsPerRequest, the server's GC pauses per answered request, µs (absent in results before 2026-11-24) */
  serverGcUsPerRequest?: number | null
  /**
   * fleetsim's: of its answers, the share sent again from its kept answers (src/http/answer-cache.ts)
   * rather than made for the request (absent in results before 2026-11-25)
   */
  keptShare?: number
  /** fleetsim's: of its answers, the share given a list another request was making (absent before 2026-11-25) */
  joinedShare?: number
  ratio: number | null
  /** name of the bare fastify row the ratio is taken against */
  baseline: string | null
  /** the baseline's server CPU per request over this row's (1 = as cheap as the bare route) */
  cpuRatio?: number | null
  /** requests/s over WireMock's (the peer) for the same requests, where it was measured */
  peerRatio?: number | null
}

/** A large agentinfo answer: how fast it starts, how big it is, what it does to memory. */
export interface ListRow {
  name: string
  agents: number
  state: string
  format: 'json' | 'xml'
  items: number
  answerBytes: number
  /** median and worst of the samples, wall ms from request to first body byte, unloaded */
  firstByteMs: { median: number; max: number; samples: number }
  totalMs: { median: number; max: number }
}

/** Many clients listing a large fleet at once: what it does to memory and to a small request beside them. */
export interface MemoryRow {
  agents: number
  clients: number
  seconds: number
  /** server RSS in MB when the load started, the highest sample during it, and the difference */
  rssMb: { before: number; max: number; growth: number }
  /** p99 of a one-agent agentinfo request sent all along, ms */
  smallRequestP99Ms: number
}

export interface ScaleRow {
  agents: number
  buildSeconds: number
  rssMb: number
  bytesPerAgent: number
  /** full speed: advance in large chunks (rounds of up to an hour) */
  fullSpeed: { virtualSecondsPerWallSecond: number; agentStepsPerSecond: number; rounds: number }
  /** one round per virtual second, as at speed 1 */
  perSecondRounds: { roundMs: number; virtualSecondsPerWallSecond: number }
  /** process CPU (all threads) with the clock at speed 1 */
  cpuAtSpeed1: { cores: number; windowSeconds: number; virtualSeconds: number }
  /** agentinfo for one agent (JSON, HTTP) while the fleet steps flat out */
  agentinfoWhileStepping: { requestsPerSec: number; p50: number; p99: number; errors: number; virtualSecondsStepped: number }
  /** 24 virtual hours, wall seconds (measured on the smallest fleet) */
  dayWallSeconds: number | null
}

export interface TargetCheck {
  name: string
  goal: string
  value: string
  met: boolean
}

export interface BenchResults {
  scope: string
  profile: 'full' | 'quick' | 'smoke'
  command: string
  startedAt: string
  wallSeconds: number
  /** how the servers collected garbage; absent in runs before the choice existed (parallel) */
  gc?: GcMode
  machine: Machine
  versions: Record<string, string>
  git: { commit: string; dirty: boolean }
  rows: LoadRow[]
  lists: ListRow[]
  /** absent in runs before the memory check existed */
  memory?: MemoryRow[]
  scale: ScaleRow[]
  targets: TargetCheck[]
  notes: string[]
}

export interface Machine {
  cpuModel: string
  cpus: number
  memoryGiB: number
  platform: string
  node: string
}

export function machine(): Machine {
  const list = cpus()
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cpus: list.length,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    platform: `${platform()} ${release()} ${arch()}`,
    node: process.version
  }
}

export function versions(): Record<string, string> {
  const require = createRequire(import.meta.url)
  const out: Record<string, string> = {}
  const own = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  out.fleetsim = own.version
  for (const name of ['fastify', 'piscina', 'autocannon', 'typebox', 'fast-json-stringify']) {
    try {
      const path = require.resolve(`${name}/package.json`)
      out[name] = (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version
    } catch {
      out[name] = 'unknown'
    }
  }
  return out
}

export function gitState(): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench/lib', 'bench/suites', 'bench/run.ts'], { encoding: 'utf8' }).trim() !== ''
    return { commit, dirty }
  } catch {
    return { commit: 'unknown', dirty: false }
  }
}

/** Where results files go unless `--out` says otherwise: bench/results. */
export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url))

/** `2026-06-01T12-30-00` (UTC): sortable and safe in file names. */
export function fileStamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/:/g, '-')
}

export async function writeResults(dir: string, results: BenchResults): Promise<string> {
  await mkdir(dir, { recursive: true })
  const suffix = results.profile === 'full' ? '' : `-${results.profile}`
  const file = join(dir, `${results.scope.replaceAll(',', '+')}${suffix}-${fileStamp(new Date(results.startedAt))}.json`)
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`)
  return file
}

/** What the results of a command of its own (bench:console, bench:items) start with. */
export interface CommandResults {
  scope: string
  /** the command line that made them */
  command: string
  startedAt: string
  wallSeconds: number
  machine: Machine
  versions: Record<string, string>
  git: { commit: string; dirty: boolean }
}

/** The start of such results, for a run that began at `began` (performance.now()) and ends now. */
export function commandResults(scope: string, command: string, began: number): CommandResults {
  const wallMs = performance.now() - began
  return {
    scope,
    command,
    startedAt: new Date(Date.now() - wallMs).toISOString(),
    wallSeconds: Number((wallMs / 1000).toFixed(1)),
    machine: machine(),
    versions: versions(),
    git: gitState()
  }
}

/** Writes such results as `<dir>/<scope>-<stamp>.json` and returns the file's path. */
export async function writeCommandResults(dir: string, results: CommandResults): Promise<string> {
  await mkdir(dir, { recursive: true })
  const file = join(dir, `${results.scope}-${fileStamp(new Date(results.startedAt))}.json`)
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`)
  return file
}

/** Fills ratio and baseline of every row of a group from that group's bare fastify row. */
export function applyRatios(rows: LoadRow[], baselineOf: (row: LoadRow) => LoadRow | undefined): void {
  for (const row of rows) {
    const base = baselineOf(row)
    if (base === undefined || base.requestsPerSec === 0) continue
    row.baseline = base.name
    row.ratio = Number((row.requestsPerSec / base.requestsPerSec).toFixed(3))
    if (row.serverCpuUsPerRequest && base.serverCpuUsPerRequest) row.cpuRatio = Number((base.serverCpuUsPerRequest / row.serverCpuUsPerRequest).toFixed(3))
  }
}

/**
 * One row from several alternating rounds of the same run: the round with the median
 * requests/s stands for all of them, and every round's rate is kept in the params.
 */
export function mergeRounds(rounds: LoadRow[]): LoadRow {
  const sorted = [...rounds].sort((a, b) => a.requestsPerSec - b.requestsPerSec)
  const median = sorted[Math.floor((sorted.length - 1) / 2)]
  if (rounds.length === 1) return median
  return {
    ...median,
    params: { ...median.params, rounds: rounds.length, roundsReqPerSec: rounds.map((r) => r.requestsPerSec).join(' / ') },
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    timeouts: rounds.reduce((sum, r) => sum + r.timeouts, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0)
  }
}
