/**
 * What the fast path's answer to agentinfo by name costs in this process, with no socket, and
 * how much of it is the memory it reads being out of the CPU's caches:
 *
 *   npm run bench:fast-path -- [--agents 10000] [--rounds 40] [--evict 0,1048576,4194304] [--format json|xml]
 *                              [--speed 600|paused] [--journal-size 10000] [--modules]
 *
 * The app of `fleetsim serve` (the bench's flags: journal, metrics and the rest on) over a fleet
 * of `--agents` (scenarios/flapping-network.yaml, its clock at speed 600 as the `built` workload
 * runs it) answers agentinfo for 2,000 agents in turn through its request listener (fast-path.ts),
 * given a stand-in request and response: the answer is built, journalled and counted as over a
 * socket, and the bytes handed to `end` are counted. Between two answers `--evict` bytes of other
 * memory are written, as a server's kernel, HTTP parser and clients take the caches between two
 * requests: 0 measures the answer with its data and code in the caches, as a loop would. A round
 * is 1,000 answers, timed answer by answer (the eviction is not timed), with a turn of the event
 * loop after it so the clock steps; after rounds that warm up, the sizes' rounds take turns.
 * Prints the median round's µs per answer for each eviction size and writes
 * `<out>/fast-path-<date>.json`. No targets: a figure to compare commits and sizes by.
 *
 * Two options take parts of the answer's work away, to see what each costs:
 * - `--speed <factor>|paused`: the clock's speed (600, as `built`). Here answers come about ten
 *   times as fast as over sockets, so at 600 most agents have not been polled since they were
 *   last asked for and their items are sent as kept; at 60000 none is, as under the `built` load;
 *   paused, every item is kept.
 * - `--journal-size <n>`: serve's flag (10000); 0 journals nothing.
 *
 * `--modules` asks for each agent with its modules (`agentwithmodules=true`), as the `built`
 * workload's "with modules" rows do.
 */
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { buildApp } from '../src/app.js'
import { parseServeConfig } from '../src/config.js'
import { createFleet } from '../src/fleet/fleet.js'
import { compileScenario } from '../src/fleet/scenario-program.js'
import { tuneHeapForServing } from '../src/lib/serving-heap.js'
import { loadScenarioFileOrThrow } from '../src/scenario/index.js'
import { createLogger } from '../src/server.js'
import { LIVELY_SCENARIO, LIVELY_SPEED, REST } from './lib/context.js'
import { BENCH_CREDENTIALS } from './lib/protocol.js'
import { RESULTS_DIR, commandResults, writeCommandResults } from './lib/results.js'

const START = Date.UTC(2026, 5, 1)
/** Agents asked for in turn, as the `built` workload asks for them (bench/suites/built.ts). */
const IN_TURN = 2000
export const ANSWERS_A_ROUND = 1000
/** Rounds before the measured ones: the compiler's and the caches' first passes. */
export const WARM_ROUNDS = 20

export interface FastPathOptions {
  agents: number
  rounds: number
  evict: number[]
  format: 'json' | 'xml'
  /** the clock's speed; 0: paused (default LIVELY_SPEED, as the `built` workload) */
  speed?: number
  /** serve's --journal-size (default serve's) */
  journalSize?: number
  /** each agent with its modules (agentwithmodules=true); default false */
  modules?: boolean
}

export interface EvictionFigures {
  /** bytes written between two answers */
  evictBytes: number
  /** the median round's µs per answer */
  usPerAnswer: number
  /** each measured round's µs per answer */
  rounds: number[]
}

export interface FastPathFigures {
  answers: number
  /** the journal's entries at the end: what --journal-size keeps of the answers */
  journalled: number
  bytesPerAnswer: number
  byEviction: EvictionFigures[]
}

export async function measureFastPath(options: FastPathOptions): Promise<FastPathFigures> {
  tuneHeapForServing()
  const loaded = await loadScenarioFileOrThrow(LIVELY_SCENARIO)
  const ids = new Map<string, number>()
  const scenario = compileScenario({ ...loaded, fleet: { ...loaded.fleet, agents: options.agents, seed: 7 } }, START, {
    templateId: (name) => ids.get(name) ?? (ids.set(name, ids.size), ids.size - 1)
  })
  const journal = options.journalSize === undefined ? [] : ['--journal-size', String(options.journalSize)]
  const config = parseServeConfig(['--user', BENCH_CREDENTIALS.user, '--password', BENCH_CREDENTIALS.password, '--log-level', 'warn', ...journal], {})
  const speed = options.speed ?? LIVELY_SPEED
  const fleet = await createFleet({ agents: options.agents, seed: 7, speed: speed === 0 ? LIVELY_SPEED : speed, paused: speed === 0, startTime: START, caFingerprint: 'AB:CD', statusPoll: config.statusPoll, scenario })
  const ca = { fingerprint: 'AB:CD', subject: 'CN=fleetsim CA', issuer: 'CN=fleetsim CA', serialNumber: '01', notBefore: new Date(START), notAfter: new Date(START + 3.15e11), sigAlgName: 'SHA256withECDSA', pem: '' }
  const app = await buildApp({ fleet, ca, logger: createLogger('warn'), processMetrics: false }, config)
  try {
    const paths: string[] = []
    for (const index of fleet.indices()) {
      paths.push(`${REST}/agentinfo?agentname=${encodeURIComponent(fleet.name(index))}${options.modules === true ? '&agentwithmodules=true' : ''}`)
      if (paths.length === IN_TURN) break
    }
    const accept = options.format === 'json' ? 'application/json' : 'application/xml'
    const headers = { host: '127.0.0.1:9443', accept, rest_user: BENCH_CREDENTIALS.user, rest_password: BENCH_CREDENTIALS.password }
    const rawHeaders = Object.entries(headers).flat()
    const socket = { encrypted: false }
    let bytes = 0
    let answers = 0
    const response = {
      writeHead: () => response,
      end: (body: Buffer) => {
        bytes += body.length
        answers++
      }
    }
    let next = 0
    const ask = () => {
      const request = { method: 'GET', url: paths[next++ % paths.length], headers, rawHeaders, httpVersion: '1.1', socket }
      app.handler(request as unknown as IncomingMessage, response as unknown as ServerResponse)
    }
    const round = async (evictBytes: number, other: Uint8Array): Promise<number> => {
      let ns = 0
      for (let k = 0; k < ANSWERS_A_ROUND; k++) {
        // A byte a cache line: every line of `other` is written, so it takes the caches' room.
        for (let at = 0; at < evictBytes; at += 64) other[at]++
        const began = process.hrtime.bigint()
        ask()
        ns += Number(process.hrtime.bigint() - began)
      }
      await new Promise((resolve) => setImmediate(resolve))
      return Math.round(ns / ANSWERS_A_ROUND / 10) / 100
    }
    const others = options.evict.map((evictBytes) => new Uint8Array(Math.max(1, evictBytes)))
    for (let k = 0; k < WARM_ROUNDS; k++) await round(0, others[0])
    // The sizes' rounds in turn, so that the machine's changes of speed fall on all of them alike.
    const rounds: number[][] = options.evict.map(() => [])
    for (let k = 0; k < options.rounds; k++) {
      for (let size = 0; size < options.evict.length; size++) rounds[size].push(await round(options.evict[size], others[size]))
    }
    const byEviction: EvictionFigures[] = options.evict.map((evictBytes, size) => {
      const sorted = [...rounds[size]].sort((a, b) => a - b)
      return { evictBytes, usPerAnswer: sorted[Math.floor((sorted.length - 1) / 2)], rounds: rounds[size] }
    })
    const asked = (WARM_ROUNDS + options.rounds * options.evict.length) * ANSWERS_A_ROUND
    // Every request is the fast path's to answer: one handed to fastify would be measured as its.
    if (answers !== asked) throw new Error(`the fast path answered ${answers} of ${asked} requests`)
    return { answers, journalled: app.traffic.journal.size, bytesPerAnswer: Math.round(bytes / answers), byEviction }
  } finally {
    await app.close()
    await fleet.close()
  }
}

const USAGE =
  'usage: npm run bench:fast-path -- [--agents 10000] [--rounds 40] [--evict 0,1048576,4194304] [--format json|xml] [--speed 600|paused] [--journal-size 10000] [--modules] [--out bench/results]'

/** The command line, or a sentence saying what is wrong with it. */
function options(): (Required<FastPathOptions> & { out: string | undefined }) | string {
  let values: { agents?: string; rounds?: string; evict?: string; format?: string; speed?: string; 'journal-size'?: string; modules?: boolean; out?: string }
  try {
    ;({ values } = parseArgs({
      options: {
        agents: { type: 'string', default: '10000' },
        rounds: { type: 'string', default: '40' },
        evict: { type: 'string', default: '0,1048576,4194304' },
        format: { type: 'string', default: 'json' },
        speed: { type: 'string', default: String(LIVELY_SPEED) },
        'journal-size': { type: 'string', default: '10000' },
        modules: { type: 'boolean', default: false },
        out: { type: 'string' }
      }
    }))
  } catch (error) {
    return (error as Error).message
  }
  const agents = Number(values.agents)
  const rounds = Number(values.rounds)
  const evict = String(values.evict).split(',').map(Number)
  if (!Number.isInteger(agents) || agents < IN_TURN) return `--agents must be a whole number of at least ${IN_TURN} (the agents asked for in turn), got ${JSON.stringify(values.agents)}`
  if (!Number.isInteger(rounds) || rounds < 1) return `--rounds must be a positive whole number, got ${JSON.stringify(values.rounds)}`
  if (evict.some((n) => !Number.isInteger(n) || n < 0 || n > 256 * 1024 * 1024)) return `--evict must be whole numbers of bytes from 0 to 268435456, joined by commas, got ${JSON.stringify(values.evict)}`
  if (values.format !== 'json' && values.format !== 'xml') return `--format must be json or xml, got ${JSON.stringify(values.format)}`
  const paused = values.speed === 'paused'
  const speed = paused ? 0 : Number(values.speed)
  if (!paused && !(Number.isFinite(speed) && speed > 0 && speed <= 1_000_000)) return `--speed must be a number above 0 and at most 1000000, or paused, got ${JSON.stringify(values.speed)}`
  const journalSize = Number(values['journal-size'])
  if (!Number.isInteger(journalSize) || journalSize < 0) return `--journal-size must be a whole number of at least 0, got ${JSON.stringify(values['journal-size'])}`
  return { agents, rounds, evict, format: values.format, speed, journalSize, modules: values.modules === true, out: values.out }
}

async function main(): Promise<number> {
  const parsed = options()
  if (typeof parsed === 'string') {
    process.stderr.write(`bench:fast-path: ${parsed}\n${USAGE}\n`)
    return 2
  }
  const began = performance.now()
  const figures = await measureFastPath(parsed)
  const speed = parsed.speed === 0 ? 'paused' : String(parsed.speed)
  const command = `npm run bench:fast-path -- --agents ${parsed.agents} --rounds ${parsed.rounds} --evict ${parsed.evict.join(',')} --format ${parsed.format} --speed ${speed} --journal-size ${parsed.journalSize}${parsed.modules ? ' --modules' : ''}`
  const file = await writeCommandResults(parsed.out ?? RESULTS_DIR, { ...commandResults('fast-path', command, began), ...figures })
  process.stdout.write(
    [
      `agentinfo by name, ${IN_TURN} agents of ${parsed.agents} in turn, ${parsed.format.toUpperCase()}${parsed.modules ? ' with modules' : ''}, ${figures.bytesPerAnswer} bytes an answer, clock ${parsed.speed === 0 ? 'paused' : `at speed ${speed}`}, journal of ${parsed.journalSize}, through the fast path in this process:`,
      '| memory written between two answers | µs an answer (median round) | rounds |',
      '|--:|--:|---|',
      ...figures.byEviction.map((f) => `| ${f.evictBytes.toLocaleString('en-US')} bytes | ${f.usPerAnswer} | ${f.rounds.join(' ')} |`),
      `results: ${file}`,
      ''
    ].join('\n')
  )
  return 0
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main()
