/**
 * Clients that ask for a large answer and never read it, against fleetsim as the bench starts it
 * (a child process with serve's defaults, bench/lib/target.ts): what they make the server hold.
 *
 *   npm run bench:unread-answers -- [--connections 40] [--fill 12000] [--bounds default,off]
 *                                   [--out bench/results]
 *
 * For each bound (`default`: serve's --unsent-answers-max-bytes; `off`: its largest value, 1 TiB,
 * as fleetsim was before the bound; or a number of bytes), a fresh server: its journal filled with
 * `--fill` requests for the OFFLINE agents of 10,000 (each entry keeps 4 KiB of its answer), then
 * `--connections` connections 50 ms apart each ask for the whole journal
 * (`/__admin/requests?limit=10000`, about 23 MB of JSON) and read nothing but their first bytes.
 * Reports the server's RSS before them, at its highest while they wait, and 3 s after the last,
 * the answers they got (200, or 503 E_UNREAD_ANSWERS) and the server's count of unsent bytes
 * (fleetsim_http_unsent_answer_bytes). The connections are closed before the next server starts.
 * No targets: the figures say what the bound holds back (src/http/unsent-answers.ts).
 */
import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { AUTH_HEADERS, LIVELY_SCENARIO, REST } from './lib/context.js'
import { wholeOption } from './lib/options.js'
import { RESULTS_DIR, commandResults, writeCommandResults } from './lib/results.js'
import { startTarget, type Target } from './lib/target.js'

/** The most --unsent-answers-max-bytes takes (src/config.ts): no bound in practice. */
const OFF_BYTES = 1024 ** 4
const JOURNAL = '/__admin/requests?limit=10000'
const AGENTS = 10_000
const SPACING_MS = 50
const SAMPLE_MS = 100
const SETTLE_MS = 3000

export interface UnreadRun {
  /** the bound given to serve, or 'default' */
  bound: number | 'default'
  connections: number
  journalBytes: number
  rssBeforeMb: number
  rssPeakMb: number
  rssSettledMb: number
  /** status lines of the answers the connections were getting */
  answers: Record<string, number>
  /** fleetsim_http_unsent_answer_bytes once the last connection asked */
  unsentBytes: number
}

/** The resident set of a process, in MB. */
function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
  return Math.round(kb / 1024)
}

/** What the journal is filled with: the OFFLINE agents (the command's), or the agents of these names with their modules. */
export type JournalFill = { requests: number; names?: readonly string[] }

async function fillJournal(origin: string, fill: JournalFill): Promise<void> {
  const path = fill.names === undefined ? 'agentinfo?agentstate=OFFLINE' : `agentinfo?agentname=${fill.names.join(',')}&agentwithmodules=true`
  await autocannon({ url: `${origin}${REST}/${path}`, headers: { ...AUTH_HEADERS }, connections: 10, amount: fill.requests, timeout: 30 })
}

/** Asks for the whole journal on a new connection, reads the status line of the answer, and nothing more. */
function askAndStall(port: number): Promise<{ socket: Socket; status: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(`GET ${JOURNAL} HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: ${AUTH_HEADERS.REST_USER}\r\nREST_PASSWORD: ${AUTH_HEADERS.REST_PASSWORD}\r\n\r\n`)
    })
    socket.once('error', reject)
    socket.once('data', (chunk: Buffer) => {
      socket.pause()
      socket.removeListener('error', reject)
      socket.on('error', () => undefined)
      resolve({ socket, status: chunk.toString('latin1').split('\r\n')[0] })
    })
  })
}

async function unsentBytes(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text()
  return Number(/^fleetsim_http_unsent_answer_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN)
}

export async function measureUnread(bound: number | 'default', connections: number, fill: number | JournalFill): Promise<UnreadRun> {
  let target: Target | undefined
  const sockets: Socket[] = []
  try {
    target = await startTarget({
      kind: 'fleetsim',
      agents: AGENTS,
      seed: 7,
      scenario: LIVELY_SCENARIO,
      speed: 1,
      paused: false,
      caFingerprint: 'AA:BB',
      ...(bound === 'default' ? {} : { serveFlags: ['--unsent-answers-max-bytes', String(bound)] })
    })
    const { pid, origin } = target
    await fillJournal(origin, typeof fill === 'number' ? { requests: fill } : fill)
    const journalBytes = (await (await fetch(`${origin}${JOURNAL}`, { headers: { ...AUTH_HEADERS } })).arrayBuffer()).byteLength
    const rssBeforeMb = rssMb(pid)
    let rssPeakMb = rssBeforeMb
    const sampler = setInterval(() => (rssPeakMb = Math.max(rssPeakMb, rssMb(pid))), SAMPLE_MS)
    const answers: Record<string, number> = {}
    try {
      for (let k = 0; k < connections; k++) {
        const { socket, status } = await askAndStall(target.ready.port)
        sockets.push(socket)
        answers[status] = (answers[status] ?? 0) + 1
        await new Promise((resolve) => setTimeout(resolve, SPACING_MS))
      }
      const unsent = await unsentBytes(origin)
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
      return { bound, connections, journalBytes, rssBeforeMb, rssPeakMb: Math.max(rssPeakMb, rssMb(pid)), rssSettledMb: rssMb(pid), answers, unsentBytes: unsent }
    } finally {
      clearInterval(sampler)
    }
  } finally {
    for (const socket of sockets) socket.destroy()
    await target?.close()
  }
}

const USAGE = 'usage: npm run bench:unread-answers -- [--connections 40] [--fill 12000] [--bounds default,off] [--out bench/results]'

function options(): { connections: number; fill: number; bounds: (number | 'default')[]; out: string | undefined } | string {
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({
      options: {
        connections: { type: 'string', default: '40' },
        fill: { type: 'string', default: '12000' },
        bounds: { type: 'string', default: 'default,off' },
        out: { type: 'string' }
      }
    }))
  } catch (error) {
    return (error as Error).message
  }
  const connections = wholeOption(values, 'connections', 1)
  const fill = wholeOption(values, 'fill', 1)
  if (typeof connections === 'string') return connections
  if (typeof fill === 'string') return fill
  const bounds: (number | 'default')[] = []
  for (const text of String(values.bounds).split(',')) {
    if (text === 'default') bounds.push('default')
    else if (text === 'off') bounds.push(OFF_BYTES)
    else if (/^\d+$/.test(text) && Number(text) >= 1024 * 1024 && Number(text) <= OFF_BYTES) bounds.push(Number(text))
    else return `--bounds takes default, off or a number of bytes from 1048576 to ${OFF_BYTES}, comma-separated, got ${JSON.stringify(text)}`
  }
  return { connections, fill, bounds, out: typeof values.out === 'string' ? values.out : undefined }
}

async function main(): Promise<number> {
  const parsed = options()
  if (typeof parsed === 'string') {
    process.stderr.write(`bench:unread-answers: ${parsed}\n${USAGE}\n`)
    return 2
  }
  const { connections, fill, bounds, out } = parsed
  const began = performance.now()
  const runs: UnreadRun[] = []
  for (const bound of bounds) runs.push(await measureUnread(bound, connections, fill))
  const shownBounds = bounds.map((b) => (b === 'default' ? 'default' : b === OFF_BYTES ? 'off' : String(b))).join(',')
  const command = `npm run bench:unread-answers -- --connections ${connections} --fill ${fill} --bounds ${shownBounds}`
  const results = { runs }
  const file = await writeCommandResults(out ?? RESULTS_DIR, { ...commandResults('unread-answers', command, began), ...results })
  const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`
  process.stdout.write(
    [
      `${connections} connections asking for the whole journal (${fill} requests in it) and reading nothing:`,
      '| --unsent-answers-max-bytes | journal answer | RSS before | RSS at most | RSS 3 s after | answers | unsent bytes counted |',
      '|---|--:|--:|--:|--:|---|--:|',
      ...runs.map(
        (r) =>
          `| ${r.bound === 'default' ? 'default (256 MiB)' : r.bound === OFF_BYTES ? '1 TiB (no bound)' : mb(r.bound)} | ${(r.journalBytes / 1e6).toFixed(1)} MB | ${r.rssBeforeMb} MB | ${r.rssPeakMb} MB | ${r.rssSettledMb} MB | ${Object.entries(r.answers).map(([status, n]) => `${n} × ${status.replace('HTTP/1.1 ', '')}`).join(', ')} | ${mb(r.unsentBytes)} |`
      ),
      `results: ${file}`,
      ''
    ].join('\n')
  )
  return 0
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main()
