/**
 * The long fuzz run: `npm run fuzz -- --runs 100000 --seed 42`. Prints progress every 1000
 * requests and the report as JSON; exits 1 when a problem was found. CI runs a fixed seed and
 * count through test/hardening/fuzz.slow.test.ts instead.
 */
import { parseArgs } from 'node:util'
import { runFuzz } from './fuzz/runner.js'

const MAX_RUNS = 10_000_000
const { values } = parseArgs({ options: { runs: { type: 'string', default: '100000' }, seed: { type: 'string', default: String(Date.now() % 2 ** 31) } } })
const runs = Number(values.runs)
const seed = Number(values.seed)
if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) throw new Error(`--runs must be an integer from 1 to ${MAX_RUNS}, got "${values.runs}"`)
if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got "${values.seed}"`)

process.stdout.write(`fuzz: ${runs} requests, seed ${seed}\n`)
const report = await runFuzz({
  runs,
  seed,
  progress: (done, r) => process.stdout.write(`fuzz: ${done} requests, ${r.serverErrors} server errors, ${r.dropped} dropped, ${r.problems.length} problems\n`)
})
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
process.stdout.write(`fuzz: ${report.requests} requests, ${report.serverErrors} server errors, ${report.dropped} dropped, ${report.problems.length} problems, seed ${seed}, ${report.durationMs} ms\n`)
process.exitCode = report.problems.length === 0 ? 0 : 1
