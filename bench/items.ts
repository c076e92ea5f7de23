/**
 * What one agentinfo item of a long list costs, measured in this process (no sockets, no
 * client competing for the CPU), and what an agent's kept identity holds:
 *
 *   npm run bench:items -- [--agents 100000] [--passes 3] [--modules] [--out bench/results]
 *
 * - CPU µs per item: every ONLINE agent of a fleet (scenarios/flapping-network.yaml at
 *   `--agents`, its clock running at speed 600 as the bench's lists run it) written as a list of
 *   more agents than the item writer keeps is written: as bytes, keeping nothing (ListBytes,
 *   `writeAgentItemBytes` keeping 'nothing'), a chunk of STREAM_CHUNK_CHARS bytes at a time with
 *   a turn of the event loop between them, as a streamed answer is made. The first pass warms
 *   up; the next `--passes` are measured.
 * - The same for a list of the first KEPT_LIST_AGENTS of them, written as a list the item writer
 *   keeps identities for is (keeping 'identity', SHARED_CHUNK_BYTES a chunk): the 10k lists made
 *   once for several requests while the fleet moves (src/http/shared-list.ts), KEPT_LIST_PASSES
 *   times a pass, into slabs used again (slab-pool.ts) as such a list is. Measured with the clock paused: the figures are the writing's alone.
 * - The same list keeping the items' bytes too (keeping 'item', as a shared list keeps them):
 *   with the clock paused every item is copied from its kept bytes, what a list costs for the
 *   agents that have not moved since the one before.
 * - The GCs during the measured passes, young-generation (scavenges) and full: an item whose
 *   garbage lives long enough to be copied into the old generation makes full GCs come often.
 * - Bytes per kept identity: the heap an agent's kept identity text holds
 *   (src/fleet/shown-identities.ts), 32,768 agents read with the heap measured after a GC
 *   before and after.
 * - Bytes per kept fragment's bytes: what a kept item fragment's UTF-8 (FragmentBytes, made the
 *   first time a streamed list writes it) adds, heap and array buffers after a GC, for as many
 *   agents as fragments are kept (20,000), one format.
 * `--modules` writes every item with its modules, as `agentwithmodules=true` asks (the kept
 * identities and copied items are then written from the figures, an item with modules not being
 * kept as bytes).
 * Writes `<out>/items-<date>.json` and prints a table. No targets: these are figures to compare
 * commits by (bench/README.md, "What made each path fast").
 */
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { PerformanceObserver, constants } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { IndexCursor } from '../src/fleet/fleet-api.js'
import { createFleet } from '../src/fleet/fleet.js'
import { compileScenario } from '../src/fleet/scenario-program.js'
import { SLOTS } from '../src/fleet/shown-identities.js'
import { writeAgentItemBytes } from '../src/http/item-bytes.js'
import type { Keeping } from '../src/http/item-writer.js'
import { ItemFragments } from '../src/http/kept-items.js'
import { cursorOf, ListBytes, type WriteItem } from '../src/http/list-bytes.js'
import { SHARED_CHUNK_BYTES } from '../src/http/shared-list.js'
import { SlabPool } from '../src/http/slab-pool.js'
import { Links } from '../src/http/links.js'
import { textEnvelope } from '../src/http/reply.js'
import { loadScenarioFileOrThrow } from '../src/scenario/index.js'
import { LIVELY_SCENARIO, LIVELY_SPEED } from './lib/context.js'
import { RESULTS_DIR, commandResults, writeCommandResults } from './lib/results.js'

const START = Date.UTC(2026, 0, 5, 8)

/** Agents of the list whose identities are kept: the bench's 10k list. */
const KEPT_LIST_AGENTS = 10_000
/** That list is made this many times a pass: once is a tenth of a second of CPU, too short to measure. */
const KEPT_LIST_PASSES = 10

/** The first `count` indices of a cursor, as a cursor. */
function firstOf(cursor: IndexCursor, count: number): IndexCursor {
  let left = count
  return { next: () => (left-- > 0 ? cursor.next() : -1) }
}

export interface ItemsOptions {
  agents: number
  passes: number
  /** items with their modules (agentwithmodules=true); default false */
  modules?: boolean
}

export interface FormatFigures {
  items: number
  cpuUsPerItem: number
  bytesPerItem: number
  /** young-generation GCs during the measured passes */
  scavenges: number
  /** full GCs (mark-compact) during the measured passes */
  fullGcs: number
}

export interface ItemsResults {
  agents: number
  passes: number
  /** a list longer than what is kept, keeping nothing */
  json: FormatFigures
  xml: FormatFigures
  /** a list of KEPT_LIST_AGENTS, its identities kept */
  keptJson: FormatFigures
  keptXml: FormatFigures
  /** the same list keeping its items' bytes, the clock paused: every item copied */
  copiedJson: FormatFigures
  copiedXml: FormatFigures
  identityBytes: number
  fragmentBytes: number
}

/** V8's gc(), without the --expose-gc flag on the command line. */
function exposedGc(): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

export async function measureItems(options: ItemsOptions): Promise<ItemsResults> {
  const gc = exposedGc()
  const loaded = await loadScenarioFileOrThrow(LIVELY_SCENARIO)
  const templates = new Map<string, number>()
  const templateId = (name: string) => templates.get(name) ?? (templates.set(name, templates.size), templates.size - 1)
  const scenario = compileScenario({ ...loaded, fleet: { ...loaded.fleet, agents: options.agents, seed: 7 } }, START, { templateId })
  const fleet = await createFleet({ agents: options.agents, seed: 7, speed: LIVELY_SPEED, paused: false, startTime: START, caFingerprint: 'AA:BB', scenario })
  try {
    const base = new Links('/manager/mvc').baseOf('https', '127.0.0.1:9443')
    const online = new Set(['ONLINE'] as const)
    const turn = () => new Promise((resolve) => setImmediate(resolve))
    const slabs = new SlabPool()

    /**
     * One pass over the ONLINE agents as a streamed list writes them (keeping 'nothing'), or
     * over the first KEPT_LIST_AGENTS as a shared list does, keeping their identities (and with
     * 'item' their items' bytes); items and bytes written.
     */
    const pass = async (format: 'json' | 'xml', fragments: ItemFragments, keeping: Keeping) => {
      const kept = keeping !== 'nothing'
      let items = 0
      let bytes = 0
      // Walked as the server walks a list (Fleet.cursor).
      const all = fleet.cursor(online)
      const indices = kept ? firstOf(all, KEPT_LIST_AGENTS) : all
      const write: WriteItem = (out, index) => {
        items++
        return writeAgentItemBytes(out, format, fleet, index, options.modules === true, base, fragments, keeping)
      }
      // A shared list's chunks are cut from slabs used again once it is sent (SlabPool), as the server's are.
      const list = new ListBytes(textEnvelope(format, 'agentinfo', []), indices, write, kept ? { chunkBytes: SHARED_CHUNK_BYTES, slabs } : {})
      for (;;) {
        const { chunk, last } = list.take()
        bytes += chunk.length
        if (last) {
          list.recycle()
          return { items, bytes }
        }
        await turn()
      }
    }

    const figures = async (format: 'json' | 'xml', keeping: Keeping = 'nothing'): Promise<FormatFigures> => {
      const kept = keeping !== 'nothing'
      const fragments = new ItemFragments()
      await pass(format, fragments, keeping)
      // Kept items are kept the second time they are written (the first checks the identity).
      if (keeping === 'item') await pass(format, fragments, keeping)
      gc()
      let scavenges = 0
      let fullGcs = 0
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          const kind = (entry as { detail?: { kind?: number } }).detail?.kind
          if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++
          else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullGcs++
        }
      })
      observer.observe({ entryTypes: ['gc'] })
      let items = 0
      let bytes = 0
      const cpu = process.cpuUsage()
      for (let k = 0; k < (kept ? KEPT_LIST_PASSES : 1) * options.passes; k++) {
        const done = await pass(format, fragments, keeping)
        items += done.items
        bytes += done.bytes
      }
      const used = process.cpuUsage(cpu)
      // GC entries are delivered on a later turn.
      await turn()
      observer.disconnect()
      const round = (n: number, digits = 2) => Number(n.toFixed(digits))
      return {
        items,
        cpuUsPerItem: round((used.user + used.system) / items),
        bytesPerItem: Math.round(bytes / items),
        scavenges,
        fullGcs
      }
    }
    const json = await figures('json')
    const xml = await figures('xml')

    // What is held is measured with the fleet still: its steps allocate on this thread too.
    await fleet.setClock({ paused: true })
    const identities = Math.min(SLOTS, options.agents)
    gc()
    const before = process.memoryUsage().heapUsed
    for (let index = 0; index < identities; index++) fleet.view(index, false)
    gc()
    const identityBytes = Math.round((process.memoryUsage().heapUsed - before) / identities)

    const fragments = new ItemFragments()
    const kept = [...fleet.indices()].slice(0, fragments.capacity)
    for (const index of kept) fragments.get('json', fleet.view(index, false), base)
    const heldNow = () => {
      gc()
      const { heapUsed, arrayBuffers } = process.memoryUsage()
      return heapUsed + arrayBuffers
    }
    const held = heldNow()
    const list = new ListBytes(textEnvelope('json', 'agentinfo', []), cursorOf(kept), (out, index) =>
      writeAgentItemBytes(out, 'json', fleet, index, false, base, fragments, 'identity')
    )
    while (!list.take().last);
    const fragmentBytes = Math.round((heldNow() - held) / kept.length)

    // Measured last, as they keep the identities of the agents they list, which the bytes of a
    // kept identity above must not find kept; with the clock still paused, as these lists are
    // short enough that the step rounds' CPU (other threads, which process.cpuUsage counts too)
    // would be most of theirs.
    const keptJson = await figures('json', 'identity')
    const keptXml = await figures('xml', 'identity')
    const copiedJson = await figures('json', 'item')
    const copiedXml = await figures('xml', 'item')
    return { agents: options.agents, passes: options.passes, json, xml, keptJson, keptXml, copiedJson, copiedXml, identityBytes, fragmentBytes }
  } finally {
    await fleet.close()
  }
}

const USAGE = 'usage: npm run bench:items -- [--agents 100000] [--passes 3] [--modules] [--out bench/results]'
const MIN_AGENTS = 1000

/** The command line, or a sentence saying what is wrong with it. */
function options(): { agents: number; passes: number; modules: boolean; out: string | undefined } | string {
  let values: { agents?: string; passes?: string; modules?: boolean; out?: string }
  try {
    ;({ values } = parseArgs({ options: { agents: { type: 'string', default: '100000' }, passes: { type: 'string', default: '3' }, modules: { type: 'boolean', default: false }, out: { type: 'string' } } }))
  } catch (error) {
    return (error as Error).message
  }
  const agents = Number(values.agents)
  const passes = Number(values.passes)
  // The figures are averages over many items and identities: with a handful, a GC or a compile
  // lands on few of them, and the heap's noise is larger than what an identity holds.
  if (!Number.isInteger(agents) || agents < MIN_AGENTS) return `--agents must be a whole number of at least ${MIN_AGENTS}, got ${JSON.stringify(values.agents)}`
  if (!Number.isInteger(passes) || passes < 1) return `--passes must be a positive whole number, got ${JSON.stringify(values.passes)}`
  return { agents, passes, modules: values.modules === true, out: values.out }
}

async function main(): Promise<number> {
  const parsed = options()
  if (typeof parsed === 'string') {
    process.stderr.write(`bench:items: ${parsed}\n${USAGE}\n`)
    return 2
  }
  const { agents, passes, modules } = parsed
  const began = performance.now()
  const figures = await measureItems({ agents, passes, modules })
  const results = { ...commandResults('items', `npm run bench:items -- --agents ${agents} --passes ${passes}${modules ? ' --modules' : ''}`, began), modules, ...figures }
  const file = await writeCommandResults(parsed.out ?? RESULTS_DIR, results)
  const row = (label: string, f: FormatFigures) =>
    `| ${label} | ${f.cpuUsPerItem} | ${f.bytesPerItem} | ${f.items} | ${f.scavenges} | ${f.fullGcs} |`
  process.stdout.write(
    [
      `items${modules ? ' with modules' : ''} of a list of the ONLINE agents of ${agents} (${passes} passes; the first ${KEPT_LIST_AGENTS}: ${KEPT_LIST_PASSES * passes}):`,
      '| list | CPU µs an item | bytes an item | items | young-generation GCs | full GCs |',
      '|---|--:|--:|--:|--:|--:|',
      row('JSON, all, longer than what is kept', figures.json),
      row('XML, all, longer than what is kept', figures.xml),
      row(`JSON, the first ${KEPT_LIST_AGENTS}, identities kept`, figures.keptJson),
      row(`XML, the first ${KEPT_LIST_AGENTS}, identities kept`, figures.keptXml),
      row(`JSON, the first ${KEPT_LIST_AGENTS}, items kept (copied)`, figures.copiedJson),
      row(`XML, the first ${KEPT_LIST_AGENTS}, items kept (copied)`, figures.copiedXml),
      `kept identity: ${figures.identityBytes} bytes an agent`,
      `kept fragment's bytes: ${figures.fragmentBytes} bytes an agent and format`,
      `results: ${file}`,
      ''
    ].join('\n')
  )
  return 0
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main()
