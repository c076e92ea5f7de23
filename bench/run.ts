/**
 * `npm run bench -- [--scope all|<scope>[,<scope>…]] [--quick] [--parallel-gc] [--out dir] [--no-table] [--report-only]`
 *
 * Loads fleetsim on 127.0.0.1 with autocannon next to bare fastify and node:http baselines
 * answering the same bytes, measures the fleet at scale, writes every figure to
 * `<out>/<scope>[-quick]-<date>.json` and regenerates the table in bench/README.md. A missed
 * target or a load run with failed requests is a sentence on stderr and exit code 1
 * (lib/verdict.ts), unless --report-only. `runBench` is the same run for programs (the CI
 * smoke test); it returns the failures and leaves failing to its caller.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { PROFILES, type ProfileName, type SuiteContext } from './lib/context.js'
import type { GcMode } from './lib/protocol.js'
import { RESULTS_DIR, gitState, machine, versions, writeResults, type BenchResults } from './lib/results.js'
import { startTarget } from './lib/target.js'
import { benchTls } from './lib/tls-files.js'
import { checkTargets } from './lib/targets.js'
import { benchFailures, verdict } from './lib/verdict.js'
import { polledSuite } from './suites/polled.js'
import { builtSuite } from './suites/built.js'
import { gcSuite } from './suites/gc.js'
import { listSuite } from './suites/list.js'
import { multiSuite } from './suites/multi.js'
import { scaleSuite } from './suites/scale.js'
import { regenerateTable } from './table.js'

export const SCOPES = ['polled', 'built', 'list', 'multi', 'scale', 'gc'] as const
export type Scope = (typeof SCOPES)[number] | 'all'

/** `all`, one scope, or scopes joined by commas (`built,list`), as --scope takes them. */
export function scopesOf(scope: string): (typeof SCOPES)[number][] {
  if (scope === 'all') return [...SCOPES]
  const names = scope.split(',').map((name) => name.trim())
  const unknown = names.filter((name) => !(SCOPES as readonly string[]).includes(name))
  // The scope's earlier name, which older results files and notes still carry.
  const renamed = unknown.includes('agentinfo') ? ' (agentinfo is now called polled)' : ''
  if (unknown.length > 0 || names.length === 0) throw new Error(`--scope takes all, or one or more of ${SCOPES.join(', ')} joined by commas; got "${scope}"${renamed}`)
  return names as (typeof SCOPES)[number][]
}

const SUITES: Record<(typeof SCOPES)[number], (ctx: SuiteContext) => Promise<void>> = {
  polled: polledSuite,
  built: builtSuite,
  list: listSuite,
  multi: multiSuite,
  scale: scaleSuite,
  gc: gcSuite
}


export interface BenchOptions {
  /** `all`, a scope, or scopes joined by commas */
  scope: string
  profile: ProfileName
  /** how the servers under load collect garbage (default single: see startTarget) */
  gc?: GcMode
  /** where the JSON goes; default bench/results */
  outDir?: string
  /** regenerate bench/README.md's table from the newest results (default: when writing to bench/results) */
  table?: boolean
  /** the command line recorded in the results */
  command?: string
  progress?: (line: string) => void
}

/** `npm run bench`'s command line: the run, and whether failures only get reported (exit code 0). */
export interface BenchCommand {
  options: BenchOptions
  reportOnly: boolean
}

export interface BenchRun {
  file: string
  results: BenchResults
  /** a sentence per missed target or load run with failed requests (lib/verdict.ts) */
  failures: string[]
}

export async function runBench(options: BenchOptions): Promise<BenchRun> {
  const startedAt = new Date()
  const began = performance.now()
  const progress = options.progress ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const scratch = await mkdtemp(join(tmpdir(), 'fleetsim-bench-'))
  try {
    // One CA and server certificate for every HTTPS listener of the run, made by fleetsim's own TLS store.
    const tls = await benchTls(scratch)
    const gc = options.gc ?? 'single'
    const ctx: SuiteContext = {
      profileName: options.profile,
      profile: PROFILES[options.profile],
      tls: tls.files,
      caFingerprint: tls.caFingerprint,
      scratch,
      gc,
      start: (spec) => startTarget({ ...spec, gc }),
      progress,
      rows: [],
      lists: [],
      memory: [],
      scale: [],
      notes: []
    }
    const scopes = scopesOf(options.scope)
    for (const [k, scope] of scopes.entries()) {
      progress(`== ${scope} (${k + 1}/${scopes.length}, profile ${options.profile})`)
      await SUITES[scope](ctx)
    }
    const results: BenchResults = {
      scope: options.scope,
      profile: options.profile,
      command: options.command ?? `npm run bench -- --scope ${options.scope}${options.profile === 'quick' ? ' --quick' : ''}${gc === 'parallel' ? ' --parallel-gc' : ''}`,
      gc,
      startedAt: startedAt.toISOString(),
      wallSeconds: Number(((performance.now() - began) / 1000).toFixed(1)),
      machine: machine(),
      versions: versions(),
      git: gitState(),
      rows: ctx.rows,
      lists: ctx.lists,
      memory: ctx.memory,
      scale: ctx.scale,
      targets: [],
      notes: ctx.notes
    }
    results.targets = checkTargets(results)
    const outDir = options.outDir ?? RESULTS_DIR
    const file = await writeResults(outDir, results)
    progress(`results: ${file} (${results.wallSeconds} s)`)
    for (const target of results.targets) progress(`target ${target.met ? 'met' : 'MISSED'}: ${target.name} (${target.goal}): ${target.value}`)
    if (options.table ?? options.outDir === undefined) progress(`table: ${await regenerateTable(outDir)}`)
    return { file, results, failures: benchFailures(results) }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/** What `npm run bench -- --help` prints, and a refused option after its message. */
export const USAGE = [
  'usage: npm run bench -- [--scope all|<scope>,<scope>...] [--quick | --smoke] [--out <dir>] [--parallel-gc] [--no-table] [--report-only]',
  `  --scope        the workloads: all (the default), or some of ${SCOPES.join(', ')}, joined by commas`,
  '  --quick        smaller runs and no 1M fleet; --smoke: the tiny profile of the CI smoke run',
  '  --out <dir>    write the results there and leave bench/README.md alone (default bench/results/)',
  '  --parallel-gc  servers with V8\'s parallel GC (node\'s default) instead of one GC thread',
  '  --no-table     do not regenerate the tables of bench/README.md',
  '  --report-only  print missed targets and failed checks, and exit 0 anyway',
  'See bench/README.md for what each workload measures.'
].join('\n')

export function parseCommand(argv: string[]): BenchCommand {
  const { values } = parseArgs({
    args: argv,
    options: {
      scope: { type: 'string', default: 'all' },
      quick: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      out: { type: 'string' },
      'parallel-gc': { type: 'boolean', default: false },
      'no-table': { type: 'boolean', default: false },
      'report-only': { type: 'boolean', default: false }
    },
    strict: true
  })
  const scope = values.scope
  scopesOf(scope)
  if (values.quick && values.smoke) throw new Error('--quick and --smoke exclude each other')
  const profile: ProfileName = values.smoke ? 'smoke' : values.quick ? 'quick' : 'full'
  const options: BenchOptions = {
    scope,
    profile,
    ...(values.out !== undefined ? { outDir: values.out } : {}),
    ...(values['parallel-gc'] ? { gc: 'parallel' as const } : {}),
    ...(values['no-table'] ? { table: false } : {}),
    command: ['npm run bench --', ...argv].join(' ').replace(/ --$/, '')
  }
  return { options, reportOnly: values['report-only'] }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2)
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`)
    process.exit(0)
  }
  let command: BenchCommand
  try {
    command = parseCommand(argv)
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`)
    process.exit(2)
  }
  runBench(command.options).then(
    ({ failures }) => {
      const { lines, exitCode } = verdict(failures, command.reportOnly)
      for (const line of lines) process.stderr.write(`${line}\n`)
      process.exit(exitCode)
    },
    (error: unknown) => {
      process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
      process.exit(1)
    }
  )
}
