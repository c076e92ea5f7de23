/**
 * Where a CPU profile's busy time went, by function: what the shares quoted in bench/README.md
 * ("socket writes about a fifth", "lists made whole as text took about a fifth") are read with.
 *
 *   npm run bench:profile -- <file.cpuprofile> [--match <regexp>] [--top 30]
 *
 * The profiles come from the bench's own switch: `FLEETSIM_BENCH_CPU_PROF=<dir> npm run bench…`
 * writes one per server process (node --cpu-prof). For each function (name, file, line) it
 * prints its self time and its inclusive time (itself and everything it called, each sample
 * counted once however often the function is on its stack) as shares of the busy time: every
 * sample but `(idle)`. `--match` keeps the functions whose `name file:line` matches.
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

/** The parts of V8's .cpuprofile format read here. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>
  samples: number[]
  timeDeltas: number[]
}

export interface FunctionShare {
  /** `name file:line`, the file from `src/` or `node_modules/` on */
  key: string
  /** of the busy time, the samples in the function itself */
  self: number
  /** of the busy time, the samples with the function on the stack */
  inclusive: number
}

const IDLE = '(idle)'

function keyOf(frame: CpuProfile['nodes'][number]['callFrame']): string {
  return `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*\/(src|node_modules)\//, '$1/')}:${frame.lineNumber}`
}

/** Every function's self and inclusive share of the busy time, largest inclusive first; and the busy time in seconds. */
export function summarise(profile: CpuProfile): { busySeconds: number; functions: FunctionShare[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  // Time per node: each sample is charged the delta that follows it, as V8 records them.
  const nodeUs = new Map<number, number>()
  profile.samples.forEach((id, k) => nodeUs.set(id, (nodeUs.get(id) ?? 0) + (profile.timeDeltas[k + 1] ?? 0)))
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let busy = 0
  for (const [id, us] of nodeUs) {
    const node = byId.get(id)
    if (node === undefined || node.callFrame.functionName === IDLE) continue
    busy += us
    const own = keyOf(node.callFrame)
    self.set(own, (self.get(own) ?? 0) + us)
    // A recursive function is on the stack more than once: its time counts once.
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = keyOf((byId.get(at) as CpuProfile['nodes'][number]).callFrame)
      if (seen.has(key)) continue
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + us)
    }
  }
  const share = (us: number) => (busy === 0 ? 0 : us / busy)
  const functions = [...inclusive].map(([key, us]) => ({ key, self: share(self.get(key) ?? 0), inclusive: share(us) }))
  functions.sort((a, b) => b.inclusive - a.inclusive || b.self - a.self)
  return { busySeconds: busy / 1e6, functions }
}

const USAGE = 'usage: npm run bench:profile -- <file.cpuprofile> [--match <regexp>] [--top 30]'

async function main(): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({ allowPositionals: true, options: { match: { type: 'string' }, top: { type: 'string', default: '30' } } })
  } catch (error) {
    process.stderr.write(`bench:profile: ${(error as Error).message}\n${USAGE}\n`)
    return 2
  }
  const [file] = parsed.positionals
  const top = Number(parsed.values.top)
  if (file === undefined || parsed.positionals.length > 1 || !Number.isInteger(top) || top < 1) {
    process.stderr.write(`bench:profile: give one profile file, and --top a whole number of at least 1\n${USAGE}\n`)
    return 2
  }
  let match: RegExp | undefined
  try {
    match = parsed.values.match === undefined ? undefined : new RegExp(parsed.values.match)
  } catch (error) {
    process.stderr.write(`bench:profile: --match is not a regular expression: ${(error as Error).message}\n`)
    return 2
  }
  let profile: CpuProfile
  try {
    profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile
  } catch (error) {
    process.stderr.write(`bench:profile: cannot read ${file} as a CPU profile: ${(error as Error).message}\n${USAGE}\n`)
    return 2
  }
  const { busySeconds, functions } = summarise(profile)
  const percent = (share: number) => `${(share * 100).toFixed(1)} %`
  const rows = functions.filter((f) => match === undefined || match.test(f.key)).slice(0, top)
  process.stdout.write(
    [
      `${file}: ${busySeconds.toFixed(2)} s busy`,
      '| inclusive | self | function |',
      '|--:|--:|---|',
      ...rows.map((f) => `| ${percent(f.inclusive)} | ${percent(f.self)} | ${f.key} |`),
      ''
    ].join('\n')
  )
  return 0
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main()
