/**
 * Clients listing the ONLINE agents over and over, from a process of their own, against fleetsim
 * as the bench starts it (a child process with serve's defaults, bench/lib/target.ts):
 *
 *   npm run bench:list-load -- [--agents 10000] [--clients 2] [--format json|xml] [--https]
 *                              [--speed 600] [--status-poll 60s] [--seconds 4] [--rounds 3]
 *                              [--out bench/results]
 *
 * Each round, `--clients` kept-alive connections (bench/lib/list-client.ts, forked) ask for
 * agentinfo?agentstate=ONLINE for `--seconds`, each as soon as its last answer was read to its
 * end; a round before them warms up and is not counted. Reports, per round, the answers a second,
 * the server's CPU per answer (its whole process: the step workers included), how much of the
 * round its main thread was busy and how many of the machine's cores were idle (a main thread
 * busy all along beside idle cores: the load is bound by that thread), the share of
 * answers sent again from the kept answers (as a list made between two step rounds is) and the
 * share given a list another request was making (SharedList). No bare
 * server and no targets: figures to compare commits by, with the client in a process of its
 * own where `npm run bench` reads large answers in its own process (bench/README.md, "Items of
 * a streamed list kept as bytes").
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { parseServeConfig } from '../src/config.js'
import { runListClients, type ListClientSpec } from './lib/list-client.js'
import { AUTH_HEADERS, LIVELY_SCENARIO, REST } from './lib/context.js'
import { wholeOption, positiveOption } from './lib/options.js'
import { idleCoresBetween, machineTicks, type MachineTicks } from './lib/machine-cpu.js'
import { RESULTS_DIR, commandResults, writeCommandResults } from './lib/results.js'
import { startTarget, type Target } from './lib/target.js'
import { benchTls } from './lib/tls-files.js'

export interface ListLoadOptions {
  agents: number
  clients: number
  format: 'json' | 'xml'
  /** over HTTPS (fleetsim's own CA and server certificate, made for the run) rather than HTTP */
  https: boolean
  speed: number
  /**
   * serve's --status-poll (a duration, as serve takes it), when not its default: at speed 600 the
   * default 60 s has every agent's item written anew ten times a second
   */
  statusPoll?: string
  seconds: number
  rounds: number
}

export interface ListLoadRound {
  answers: number
  answersPerSecond: number
  /** the server's CPU (every thread of its process) over the round, per answer */
  serverCpuMsPerAnswer: number
  bytesPerAnswer: number
  /** of the answers, the share sent again from the kept answers rather than made (src/http/answer-cache.ts) */
  keptShare: number
  /** the share of the round the server's main thread was busy (its event loop at work) */
  mainThreadBusy: number
  /** the machine's cores idle on average over the round (undefined where /proc/stat cannot be read) */
  idleCores?: number
  /** of the answers, the share given a list another request was making (AnswerCache.joins) */
  joinedShare: number
  failed: number
}

/** One round of the clients against `target`, the server's CPU measured around it. */
async function round(target: Target, options: ListLoadOptions): Promise<ListLoadRound> {
  const spec: ListClientSpec = {
    origin: options.https ? (target.tlsOrigin as string) : target.origin,
    path: `${REST}/agentinfo?agentstate=ONLINE`,
    headers: { ...AUTH_HEADERS, accept: options.format === 'json' ? 'application/json' : 'application/xml' },
    clients: options.clients,
    seconds: options.seconds
  }
  let before: MachineTicks | undefined
  const result = await runListClients(spec, async () => {
    await target.command({ op: 'cpu-start' })
    before = machineTicks()
  })
  const after = machineTicks()
  const cpu = await target.command({ op: 'cpu-stop' })
  // Answers that came 2xx; the rest failed.
  const answers = result.answers - result.non2xx
  const per = (n: number) => (answers === 0 ? 0 : n / answers)
  return {
    answers,
    answersPerSecond: Number((answers / result.wallSeconds).toFixed(1)),
    serverCpuMsPerAnswer: Number(per(cpu.cpuMs).toFixed(1)),
    bytesPerAnswer: Math.round(per(result.bytes)),
    keptShare: Number(per(cpu.keptAnswers ?? 0).toFixed(3)),
    mainThreadBusy: Number(((cpu.mainThreadMs ?? 0) / cpu.wallMs).toFixed(3)),
    ...(before === undefined || after === undefined ? {} : { idleCores: Number(idleCoresBetween(before, after).toFixed(2)) }),
    joinedShare: Number(per(cpu.joinedAnswers ?? 0).toFixed(3)),
    failed: result.errors + result.timeouts + result.non2xx
  }
}

export async function measureListLoad(options: ListLoadOptions): Promise<{ options: ListLoadOptions; rounds: ListLoadRound[] }> {
  const scratch = await mkdtemp(join(tmpdir(), 'fleetsim-list-load-'))
  let target: Target | undefined
  try {
    const tls = options.https ? await benchTls(scratch) : undefined
    target = await startTarget({
      kind: 'fleetsim',
      agents: options.agents,
      seed: 7,
      scenario: LIVELY_SCENARIO,
      speed: options.speed,
      paused: false,
      caFingerprint: tls?.caFingerprint ?? 'AA:BB',
      ...(options.statusPoll === undefined ? {} : { serveFlags: ['--status-poll', options.statusPoll] }),
      ...(tls === undefined ? {} : { tls: tls.files })
    })
    await round(target, { ...options, seconds: Math.min(options.seconds, 1) })
    const rounds: ListLoadRound[] = []
    for (let k = 0; k < options.rounds; k++) rounds.push(await round(target, options))
    return { options, rounds }
  } finally {
    await target?.close()
    await rm(scratch, { recursive: true, force: true })
  }
}

const USAGE =
  'usage: npm run bench:list-load -- [--agents 10000] [--clients 2] [--format json|xml] [--https] [--speed 600] [--status-poll 60s] [--seconds 4] [--rounds 3] [--out bench/results]'

/** What serve would say of `--status-poll <value>`, or undefined if it takes it. */
function statusPollError(value: string): string | undefined {
  try {
    parseServeConfig(['--status-poll', value], {})
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

/** The command line, or a sentence saying what is wrong with it. */
function options(): (ListLoadOptions & { out: string | undefined }) | string {
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({
      options: {
        agents: { type: 'string', default: '10000' },
        clients: { type: 'string', default: '2' },
        format: { type: 'string', default: 'json' },
        https: { type: 'boolean', default: false },
        speed: { type: 'string', default: '600' },
        'status-poll': { type: 'string' },
        seconds: { type: 'string', default: '4' },
        rounds: { type: 'string', default: '3' },
        out: { type: 'string' }
      }
    }))
  } catch (error) {
    return (error as Error).message
  }
  const whole = (name: string, min: number) => wholeOption(values, name, min)
  const agents = whole('agents', 1)
  const clients = whole('clients', 1)
  const rounds = whole('rounds', 1)
  const speed = positiveOption(values, 'speed')
  const seconds = positiveOption(values, 'seconds')
  for (const checked of [agents, clients, rounds]) if (typeof checked === 'string') return checked
  if (values.format !== 'json' && values.format !== 'xml') return `--format must be json or xml, got ${JSON.stringify(values.format)}`
  if (typeof speed === 'string') return speed
  if (typeof seconds === 'string') return seconds
  const out = typeof values.out === 'string' ? values.out : undefined
  const statusPoll = values['status-poll']
  // Checked as serve checks it, so that a wrong value is refused here rather than by the server process.
  if (typeof statusPoll === 'string') {
    const wrong = statusPollError(statusPoll)
    if (wrong !== undefined) return wrong
  }
  return {
    agents: agents as number,
    clients: clients as number,
    rounds: rounds as number,
    format: values.format,
    https: values.https === true,
    speed,
    ...(typeof statusPoll === 'string' ? { statusPoll } : {}),
    seconds,
    out
  }
}

async function main(): Promise<number> {
  const parsed = options()
  if (typeof parsed === 'string') {
    process.stderr.write(`bench:list-load: ${parsed}\n${USAGE}\n`)
    return 2
  }
  const { out, ...load } = parsed
  const began = performance.now()
  const measured = await measureListLoad(load)
  const command = `npm run bench:list-load -- --agents ${load.agents} --clients ${load.clients} --format ${load.format}${load.https ? ' --https' : ''} --speed ${load.speed}${load.statusPoll === undefined ? '' : ` --status-poll ${load.statusPoll}`} --seconds ${load.seconds} --rounds ${load.rounds}`
  const file = await writeCommandResults(out ?? RESULTS_DIR, { ...commandResults('list-load', command, began), ...measured })
  process.stdout.write(
    [
      `ONLINE of ${load.agents} agents, ${load.format.toUpperCase()} over ${load.https ? 'HTTPS' : 'HTTP'}, speed ${load.speed}${load.statusPoll === undefined ? '' : `, status poll ${load.statusPoll}`}, ${load.clients} clients in a process of their own, rounds of ${load.seconds} s:`,
      '| round | answers a second | server CPU per answer | server main thread busy | machine cores idle | sent kept | joined a list being made | bytes an answer | failed |',
      '|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
      ...measured.rounds.map(
        (r, k) =>
          `| ${k + 1} | ${r.answersPerSecond} | ${r.serverCpuMsPerAnswer} ms | ${Math.round(r.mainThreadBusy * 100)}% | ${r.idleCores ?? '–'} | ${Math.round(r.keptShare * 100)}% | ${Math.round(r.joinedShare * 100)}% | ${r.bytesPerAnswer} | ${r.failed} |`
      ),
      `results: ${file}`,
      ''
    ].join('\n')
  )
  return measured.rounds.some((r) => r.failed > 0 || r.answers === 0) ? 1 : 0
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main()
