/**
 * `fleetsim run SCENARIO --out DIR [--duration 24h] [--sample 60s] [--workers n] [--start-time ISO]`:
 * runs a scenario headless at full speed and writes a report (src/run/report.ts). Bad flags
 * throw ConfigError (exit 2); a scenario that does not validate prints every problem (exit 1).
 */
import { availableParallelism } from 'node:os'
import { ConfigError } from '../flags/config-error.js'
import { valueFlag, type Flag } from '../flags/flag.js'
import { formatFlags } from '../flags/help.js'
import { prepareOutputDir } from '../flags/output-dir.js'
import { parseFlags } from '../flags/parse.js'
import { isoTime, nonEmpty, wholeSeconds, workerCount } from '../flags/rules.js'
import { Progress, type ProgressStream } from '../run/progress.js'
import { writeReport } from '../run/report.js'
import { DEFAULT_RUN_START, runScenario } from '../run/runner.js'
import { formatIssue } from '../scenario/errors.js'
import { loadScenarioFile } from '../scenario/load.js'
import { formatSeconds } from '../lib/units.js'

const OUT = valueFlag({ name: 'out', valueName: '<dir>', defaultText: 'none', help: 'where the report goes (created if missing; required)', rule: nonEmpty })
const DURATION = valueFlag({ name: 'duration', valueName: '<time>', defaultText: '24h', help: 'virtual time to run, e.g. 2h, 24h, 7d', rule: wholeSeconds(1) })
const SAMPLE = valueFlag({ name: 'sample', valueName: '<time>', defaultText: '60s', help: 'interval of the state counts, e.g. 30s, 5m', rule: wholeSeconds(1) })
const WORKERS = valueFlag({ name: 'workers', valueName: '<n>', defaultText: 'the number of CPUs', help: 'worker threads stepping the fleet', rule: workerCount })
const START_TIME = valueFlag({
  name: 'start-time',
  valueName: '<iso>',
  defaultText: new Date(DEFAULT_RUN_START).toISOString(),
  help: 'virtual epoch, with a time zone; fixed by default so runs compare',
  rule: isoTime
})
export const RUN_FLAGS: readonly Flag[] = [OUT, DURATION, SAMPLE, WORKERS, START_TIME]

export const USAGE = `Usage: fleetsim run SCENARIO --out DIR [flags]

Runs SCENARIO (a YAML file) at full speed without a server and writes into DIR:
states.csv, states.json, chart.svg, events.json, summary.json.

Flags:
${formatFlags(RUN_FLAGS)}
`

export interface RunIo {
  out(text: string): void
  err: ProgressStream
}

const stdio: RunIo = { out: (text) => void process.stdout.write(text), err: process.stderr }

export async function run(argv: string[], io: RunIo = stdio): Promise<number> {
  const flags = parseFlags(argv, RUN_FLAGS, { command: 'fleetsim run', positionals: { min: 1, max: 1, name: 'SCENARIO file' } })
  if (flags.help) {
    io.out(USAGE)
    return 0
  }
  const out = flags.maybe(OUT)
  if (out === undefined) throw new ConfigError('FLEETSIM_MISSING_VALUE', '--out <dir> is required: where the report goes (see fleetsim run --help)')
  const durationSeconds = flags.get(DURATION, 86_400)
  const sampleSeconds = flags.get(SAMPLE, 60)
  if (sampleSeconds > durationSeconds) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--sample (${formatSeconds(sampleSeconds)}) must not be longer than --duration (${formatSeconds(durationSeconds)})`)
  }
  const workers = flags.get(WORKERS, availableParallelism())
  const startTime = flags.get(START_TIME, DEFAULT_RUN_START)

  const file = flags.positionals[0]
  const loaded = await loadScenarioFile(file)
  if (!loaded.ok) {
    for (const issue of loaded.issues) io.err.write(`${formatIssue(issue)}\n`)
    io.err.write(`fleetsim run: ${file} is not a valid scenario (${loaded.issues.length} problem${loaded.issues.length === 1 ? '' : 's'}); nothing was run\n`)
    return 1
  }
  // Before the run, which may take minutes: a bad --out is reported now, not at the end.
  await prepareOutputDir(OUT.name, out)
  const progress = new Progress(io.err, durationSeconds, loaded.scenario.name)
  const result = await runScenario({ scenario: loaded.scenario, durationSeconds, sampleSeconds, workers, startTime, onProgress: (second) => progress.update(second) })
  progress.done()
  const paths = await writeReport(out, result)
  const { byState, agents } = result.final
  const counts = Object.entries(byState).filter(([, n]) => n > 0).map(([state, n]) => `${state} ${n}`).join(', ')
  io.out(`${result.scenario.name}: ${formatSeconds(durationSeconds)} virtual in ${(result.wallMs / 1000).toFixed(1)} s; ${agents} agents (${counts}); ${result.events.length} timeline events; digest ${result.digest}\n`)
  io.out(`report: ${paths.join(', ')}\n`)
  return 0
}
