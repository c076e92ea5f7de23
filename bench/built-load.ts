/**
 * Where a built agentinfo answer's time goes, over sockets: the `built` workload (2,000 agents in
 * turn, one counter shared by the connections: bench/suites/built.ts) on four servers, each in a
 * process of its own, taking turns in every round:
 *
 *   npm run bench:built-load -- [--variant json] [--speed 600|paused] [--serve="<serve flags>"]
 *                               [--agents 10000] [--connections 10] [--seconds 3] [--rounds 5]
 *                               [--busy <µs>[,<µs>…]] [--out bench/results]
 *
 * - bare fastify and bare node:http, sending the bytes fleetsim answered to each request (as in
 *   `npm run bench`);
 * - fleetsim's process sending those same recorded bytes as bare node:http does: the same fleet
 *   stepping at the same speed, the same app and server, but the agentinfo requests are answered
 *   before the app sees them (bench/lib/target-child.ts, `recorded`). What it costs over bare
 *   node:http is what the fleetsim process costs when answering is not building;
 * - fleetsim, building every answer, as `npm run bench` measures it.
 * So fleetsim's own row minus the recorded one is what building the answers costs in place,
 * where the in-process `npm run bench:fast-path` times the handler alone.
 * With `--busy <µs>[,<µs>…]`, a server more for each: bare node:http doing that many µs of busy
 * work before each answer (a loop on the clock). The busy work whose ratio matches fleetsim's is
 * what fleetsim's answers cost in place, in the units of a handler's CPU time.
 *
 * `--serve="<flags>"` passes serve flags to both fleetsim processes (`--serve="--journal-size 0"`,
 * `--serve="--status-poll 10m"`), to see what a default costs (with `=`: a value that starts with a
 * dash is taken only so); `--speed paused` stops the clock (every item kept).
 * Prints each server's median round, its ratio to bare fastify (the median of the rounds' ratios)
 * and its CPU per request, and writes `<out>/built-load-<date>.json`. No targets: figures to
 * compare commits and flags by.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { parseServeConfig } from '../src/config.js'
import { compareRounds, type Contender } from './lib/compare.js'
import { AUTH_HEADERS, LIVELY_SCENARIO, LIVELY_SPEED } from './lib/context.js'
import { wholeOption, positiveOption } from './lib/options.js'
import { RESULTS_DIR, commandResults, writeCommandResults, type LoadRow } from './lib/results.js'
import { startTarget, type Target } from './lib/target.js'
import { benchTls } from './lib/tls-files.js'
import { BUILT_AGENTS, BUILT_VARIANTS, GROUP, builtPath, recordBuiltAnswers } from './suites/built.js'

export interface BuiltLoadOptions {
  /** a key of BUILT_VARIANTS: json, xml, json-modules, xml-modules, json-https, xml-https */
  variant: string
  /** the clock's speed; 0: paused */
  speed: number
  /** serve flags for both fleetsim processes */
  serveFlags: string[]
  agents: number
  connections: number
  seconds: number
  rounds: number
  /** for each, a server more: bare node:http doing that many µs of busy work per answer */
  busy: number[]
}

/** The rows, in the order they ran each round: bare fastify, bare node:http (and its busy twins), fleetsim sending recorded answers, fleetsim. */
export interface BuiltLoadResult {
  options: BuiltLoadOptions
  rows: LoadRow[]
}

export const RECORDED_NAME = 'fleetsim process, recorded answers'

/** --busy at most: 10 ms of work per answer is already a hundred answers a second. */
const MAX_BUSY_MICROSECONDS = 10_000

/** A busy twin's row name: bare node:http doing `busy` µs of work before each answer. */
export const busyName = (busy: number): string => `bare node:http + ${busy} µs of work per answer`

export async function measureBuiltLoad(options: BuiltLoadOptions, progress: (line: string) => void = () => {}): Promise<BuiltLoadResult> {
  const variant = BUILT_VARIANTS.find((v) => v.key === options.variant)
  if (variant === undefined) throw new Error(`no built variant ${JSON.stringify(options.variant)}`)
  const scratch = await mkdtemp(join(tmpdir(), 'fleetsim-built-load-'))
  const started: Target[] = []
  try {
    const tls = await benchTls(scratch)
    const fleetSpec = {
      kind: 'fleetsim' as const,
      agents: options.agents,
      seed: 7,
      scenario: LIVELY_SCENARIO,
      speed: options.speed === 0 ? LIVELY_SPEED : options.speed,
      paused: options.speed === 0,
      caFingerprint: tls.caFingerprint,
      tls: tls.files,
      serveFlags: options.serveFlags
    }
    const fleet = await startTarget(fleetSpec)
    started.push(fleet)
    const names = await fleet.command({ op: 'names', count: Math.min(BUILT_AGENTS, options.agents) })
    const answers = await recordBuiltAnswers(fleet, [variant], names, join(scratch, 'answers.json'), progress)
    const originOf = (target: Target) => (variant.https ? (target.tlsOrigin as string) : target.origin)
    const fastify = await startTarget({ kind: 'fastify', routes: [], answers, tls: tls.files })
    started.push(fastify)
    const node = await startTarget({ kind: 'node', routes: [], answers, tls: tls.files })
    started.push(node)
    const busy: Contender[] = []
    for (const microseconds of options.busy) {
      const server = await startTarget({ kind: 'node', routes: [], answers, tls: tls.files, busyMicroseconds: microseconds })
      started.push(server)
      busy.push({ target: 'node', name: `${busyName(microseconds)}, ${variant.label}`, server, origin: originOf(server) })
    }
    // The same fleet (same seed, scenario and speed) in a process of its own, sending what the first answered.
    const recorded = await startTarget({ ...fleetSpec, recorded: answers })
    started.push(recorded)
    const contenders: Contender[] = [
      { target: 'fastify', name: `bare fastify, ${variant.label}`, server: fastify, origin: originOf(fastify) },
      { target: 'node', name: `bare node:http, ${variant.label}`, server: node, origin: originOf(node) },
      ...busy,
      { target: 'fleetsim', name: `${RECORDED_NAME}, ${variant.label}`, server: recorded, origin: originOf(recorded) },
      { target: 'fleetsim', name: `fleetsim, ${variant.label}`, server: fleet, origin: originOf(fleet) }
    ]
    // One counter for all connections: concurrent requests ask for different agents (as `built`).
    let next = 0
    const rows = await compareRounds(
      {
        group: GROUP,
        path: builtPath(variant, names[0]),
        nextPath: () => builtPath(variant, names[next++ % names.length]),
        headers: { ...AUTH_HEADERS, accept: variant.accept },
        connections: options.connections,
        durationSeconds: options.seconds,
        warmupSeconds: 1,
        params: { variant: variant.key, agents: options.agents, inTurn: names.length, scenario: 'flapping-network', speed: options.speed === 0 ? 'paused' : options.speed, busyMicroseconds: options.busy.join(',') }
      },
      contenders,
      options.rounds,
      progress
    )
    return { options, rows }
  } finally {
    await Promise.all(started.map((t) => t.close()))
    await rm(scratch, { recursive: true, force: true })
  }
}

const USAGE =
  'usage: npm run bench:built-load -- [--variant json|xml|json-modules|xml-modules|json-https|xml-https] [--speed 600|paused] [--serve="<serve flags>"] [--agents 10000] [--connections 10] [--seconds 3] [--rounds 5] [--busy <µs>[,<µs>…]] [--out bench/results]'

/**
 * The serve flags the bench's fleetsim processes act on: the app's (bench/lib/target-child.ts
 * hands the parsed flags to buildApp) and the fleet's status poll. The fleet's size, seed,
 * scenario and clock are this command's own options, the server is the bench's (plain node:http
 * on 127.0.0.1), and the credentials and application path are the workload's.
 */
const PASSED_ON = new Set([
  'log-level',
  'metrics-auth',
  'console',
  'status-poll',
  'body-limit',
  'max-list-items',
  'max-query-length',
  'max-added-agents',
  'strict',
  'latency',
  'error-rate',
  'fault-operations',
  'journal-size',
  'journal-max-bytes',
  'journal-body-bytes',
  'kept-answers-max-bytes'
])

/** What serve would say of `flags`, or what this command does not pass on, or undefined if both take them. */
function serveFlagsError(flags: string[]): string | undefined {
  try {
    parseServeConfig(flags, {})
  } catch (error) {
    return `--serve: ${(error as Error).message}`
  }
  for (const flag of flags) {
    if (!flag.startsWith('--')) continue
    const name = flag.slice(2).split('=')[0].replace(/^no-/, '')
    if (!PASSED_ON.has(name)) return `--serve: --${name} is not passed on to the fleetsim processes; they take ${[...PASSED_ON].map((n) => `--${n}`).join(', ')} (the fleet's size and clock are this command's --agents and --speed)`
  }
  return undefined
}

/** The command line, or a sentence saying what is wrong with it. */
function options(): (BuiltLoadOptions & { out: string | undefined }) | string {
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({
      options: {
        variant: { type: 'string', default: 'json' },
        speed: { type: 'string', default: String(LIVELY_SPEED) },
        serve: { type: 'string', default: '' },
        agents: { type: 'string', default: '10000' },
        connections: { type: 'string', default: '10' },
        seconds: { type: 'string', default: '3' },
        rounds: { type: 'string', default: '5' },
        busy: { type: 'string', default: '' },
        out: { type: 'string' }
      }
    }))
  } catch (error) {
    return (error as Error).message
  }
  const whole = (name: string, min: number) => wholeOption(values, name, min)
  const agents = whole('agents', 1)
  const connections = whole('connections', 1)
  const rounds = whole('rounds', 1)
  for (const checked of [agents, connections, rounds]) if (typeof checked === 'string') return checked
  const busy: number[] = []
  for (const part of String(values.busy).split(',').filter((p) => p !== '')) {
    const microseconds = Number(part)
    if (!Number.isInteger(microseconds) || microseconds < 1 || microseconds > MAX_BUSY_MICROSECONDS) {
      return `--busy takes whole numbers of µs of work per answer, from 1 to ${MAX_BUSY_MICROSECONDS}, separated by commas; got ${JSON.stringify(part)}`
    }
    busy.push(microseconds)
  }
  const variant = String(values.variant)
  if (!BUILT_VARIANTS.some((v) => v.key === variant)) return `--variant must be one of ${BUILT_VARIANTS.map((v) => v.key).join(', ')}, got ${JSON.stringify(variant)}`
  const speed = values.speed === 'paused' ? 0 : positiveOption(values, 'speed')
  if (typeof speed === 'string') return `--speed must be a number above 0 or paused, got ${JSON.stringify(values.speed)}`
  const seconds = positiveOption(values, 'seconds')
  if (typeof seconds === 'string') return seconds
  const serveFlags = String(values.serve).split(/\s+/).filter((flag) => flag !== '')
  // Checked as serve checks them, so that a wrong flag is refused here rather than by a server process.
  const wrong = serveFlagsError(serveFlags)
  if (wrong !== undefined) return wrong
  return {
    variant,
    speed,
    serveFlags,
    agents: agents as number,
    connections: connections as number,
    seconds,
    rounds: rounds as number,
    busy,
    out: typeof values.out === 'string' ? values.out : undefined
  }
}

/** The printed table: each server's median round, its ratio to bare fastify by round, and its CPU per request. */
export function builtLoadTable(result: BuiltLoadResult): string[] {
  return [
    '| server | requests/s (median round) | ÷ bare fastify (median of rounds) | by round | server CPU per request | of it in GC |',
    '|---|--:|--:|--:|--:|--:|',
    ...result.rows.map(
      (row) =>
        `| ${row.name} | ${row.requestsPerSec} | ${row.ratio ?? '–'} | ${row.params.roundsRatio ?? '–'} | ${row.serverCpuUsPerRequest ?? '–'} µs | ${row.serverGcUsPerRequest ?? '–'} µs |`
    )
  ]
}

async function main(): Promise<number> {
  const parsed = options()
  if (typeof parsed === 'string') {
    process.stderr.write(`bench:built-load: ${parsed}\n${USAGE}\n`)
    return 2
  }
  const { out, ...load } = parsed
  const began = performance.now()
  const result = await measureBuiltLoad(load, (line) => process.stderr.write(`${line}\n`))
  const speed = load.speed === 0 ? 'paused' : String(load.speed)
  const serve = load.serveFlags.length === 0 ? '' : ` --serve="${load.serveFlags.join(' ')}"`
  const command = `npm run bench:built-load -- --variant ${load.variant} --speed ${speed}${serve} --agents ${load.agents} --connections ${load.connections} --seconds ${load.seconds} --rounds ${load.rounds}${load.busy.length > 0 ? ` --busy ${load.busy.join(',')}` : ''}`
  const file = await writeCommandResults(out ?? RESULTS_DIR, { ...commandResults('built-load', command, began), ...result })
  process.stdout.write(
    [
      `agentinfo for ${Math.min(BUILT_AGENTS, load.agents)} of ${load.agents} agents in turn, ${load.variant}, clock ${load.speed === 0 ? 'paused' : `at speed ${speed}`}${serve === '' ? '' : `, serve flags ${load.serveFlags.join(' ')}`}, ${load.connections} connections, ${load.rounds} rounds of ${load.seconds} s:`,
      ...builtLoadTable(result),
      `results: ${file}`,
      ''
    ].join('\n')
  )
  return result.rows.some((row) => row.errors + row.timeouts + row.non2xx > 0 || row.requests === 0) ? 1 : 0
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main()
