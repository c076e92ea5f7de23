/**
 * `fleetsim run SCENARIO --out DIR [--duration 2h] [--sample 60s] [--workers n] [--start-time ISO]
 * [--agents n] [--seed n]`: runs a scenario headless at full speed and writes a report
 * (src/run/report.ts); --agents and --seed replace the scenario's own, as with serve --scenario. Without
 * --duration the run fits the scenario (src/run/duration.ts). Bad flags throw ConfigError
 * (exit 2); a scenario that does not validate prints every problem (exit 1).
 */
import { availableParallelism } from 'node:os'
import { agentCount, seedNumber } from '../config.js'
import { ConfigError } from '../flags/config-error.js'
import { valueFlag, type Flag } from '../flags/flag.js'
import { formatFlags } from '../flags/help.js'
import { prepareOutputDir, refuseInputAmongOutputs } from '../flags/output-dir.js'
import { parseFlags } from '../flags/parse.js'
import { nonEmpty, runStartTime, wholeSeconds, workerCount, workersWarning } from '../flags/rules.js'
import { Progress, type ProgressStream } from '../run/progress.js'
import { REPORT_FILES, isEarlierReport, writeReport } from '../run/report.js'
import { DEFAULT_RUN_START, runScenario } from '../run/runner.js'
import { unsupportedBy } from '../fleet/scenario-program.js'
import { RUN_LIMITS, planRun } from '../run/limits.js'
import { formatIssue, problemCount } from '../scenario/errors.js'
import { describeReplacement, withFleetFlags } from '../scenario/fleet-flags.js'
import { loadScenarioFile } from '../scenario/load.js'
import { formatSeconds } from '../lib/units.js'

/** --duration and --sample: no run is longer (src/run/limits.ts). */
const LONGEST_RUN = { seconds: RUN_LIMITS.maxSeconds, why: 'the longest run (it steps every virtual second and keeps what it records in memory)' }

const OUT = valueFlag({ name: 'out', valueName: '<dir>', defaultText: 'none', help: 'where the report goes (created if missing; required)', rule: nonEmpty })
const DURATION = valueFlag({
  name: 'duration',
  valueName: '<time>',
  defaultText: 'fitted to the scenario',
  help: `virtual time to run, e.g. 2h, 24h, 7d, at most ${formatSeconds(RUN_LIMITS.maxSeconds)}; without it, the timeline's last effect plus 25% (at least 15m) rounded up to 5m, or 24h for a scenario without a timeline or ramp`,
  rule: wholeSeconds(1, LONGEST_RUN)
})
const SAMPLE = valueFlag({
  name: 'sample',
  valueName: '<time>',
  defaultText: '60s (the run itself if shorter), or 2m, 5m, 10m, ... for runs longer than 69 days',
  help: `interval of the state counts, e.g. 30s, 5m; a run keeps at most ${RUN_LIMITS.maxSamples.toLocaleString('en-US')} samples`,
  rule: wholeSeconds(1, LONGEST_RUN)
})
const WORKERS = valueFlag({
  name: 'workers',
  valueName: '<n>',
  defaultText: 'the number of CPUs',
  help: 'worker threads stepping the fleet, 1 to 1024; more than the CPUs is warned about (any number gives the same run)',
  rule: workerCount
})
const START_TIME = valueFlag({
  name: 'start-time',
  valueName: '<iso>',
  defaultText: new Date(DEFAULT_RUN_START).toISOString(),
  help: 'virtual epoch, with a time zone; fixed by default so runs compare',
  rule: runStartTime
})
const AGENTS = valueFlag({
  name: 'agents',
  valueName: '<n>',
  defaultText: "the scenario's fleet.agents",
  help: "agents at the start, in place of the scenario's fleet.agents (as with serve --scenario)",
  rule: agentCount
})
const SEED = valueFlag({
  name: 'seed',
  valueName: '<n>',
  defaultText: "the scenario's fleet.seed",
  help: "seed of every random choice, in place of the scenario's fleet.seed (as with serve --scenario)",
  rule: seedNumber
})
export const RUN_FLAGS: readonly Flag[] = [OUT, DURATION, SAMPLE, WORKERS, START_TIME, AGENTS, SEED]

export const USAGE = `Usage: fleetsim run SCENARIO --out DIR [flags]

Runs SCENARIO (a YAML file) at full speed without a server and writes into DIR:
index.html (chart, summary, events and the command that reproduces the run, one
self-contained page to open in a browser), states.csv, states.json, chart.svg,
events.json, summary.json.

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
  const givenDuration = flags.maybe(DURATION)
  const givenSample = flags.maybe(SAMPLE)
  if (givenDuration !== undefined && givenSample !== undefined && givenSample > givenDuration) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--sample (${formatSeconds(givenSample)}) must not be longer than --duration (${formatSeconds(givenDuration)})`)
  }
  const workers = flags.get(WORKERS, availableParallelism())
  const startTime = flags.get(START_TIME, DEFAULT_RUN_START)

  const file = flags.positionals[0]
  const loaded = await loadScenarioFile(file)
  // A file that is not there (or not readable) is a command line to fix, as for serve --scenario (exit 2), not an invalid scenario.
  const unread = loaded.ok ? undefined : loaded.issues.find((issue) => issue.code === 'FSC_READ')
  if (unread !== undefined) throw new ConfigError('FLEETSIM_INVALID_VALUE', `fleetsim run needs a SCENARIO file it can read, got "${file}": ${unread.message}`)
  if (!loaded.ok) {
    for (const issue of loaded.issues) io.err.write(`${formatIssue(issue)}\n`)
    const problems = problemCount(loaded.issues)
    io.err.write(`fleetsim run: ${file} is not a valid scenario (${problems} problem${problems === 1 ? '' : 's'}); nothing was run\n`)
    return 1
  }
  // --agents and --seed replace the scenario's values, as they do for serve --scenario.
  const fleetFlags = { agents: flags.maybe(AGENTS), seed: flags.maybe(SEED) }
  const { scenario, replaced } = withFleetFlags(loaded.scenario, fleetFlags)
  // What the checks pass and the engine cannot hold (more than 16 stages, …): said as a problem of the file, before the run.
  const unsupported = unsupportedBy(scenario, file)
  if (unsupported !== undefined) {
    io.err.write(`${formatIssue(unsupported)}\n`)
    io.err.write(`fleetsim run: ${file} is not a scenario fleetsim can run (1 problem); nothing was run\n`)
    return 1
  }
  // The duration fitted to the scenario unless given, the sample interval, within the run's
  // limits (src/run/limits.ts): refused now, before a run of hours or of unbounded memory.
  const { durationSeconds, sampleSeconds, durationNote, sampleNote } = planRun(scenario, { durationSeconds: givenDuration, sampleSeconds: givenSample })
  // Before the run, which may take minutes: a bad --out is reported now, not at the end.
  await refuseInputAmongOutputs(OUT.name, out, REPORT_FILES, file, 'scenario file')
  await prepareOutputDir(OUT.name, out, REPORT_FILES, isEarlierReport)
  for (const note of [describeReplacement(replaced), sampleNote]) if (note !== undefined) io.err.write(`fleetsim run: ${note}\n`)
  const tooManyWorkers = workersWarning(workers, availableParallelism())
  if (tooManyWorkers !== undefined) io.err.write(`fleetsim run: warning: ${tooManyWorkers}\n`)
  const progress = new Progress(io.err, durationSeconds, scenario.name)
  const result = await runScenario({ scenario, durationSeconds, sampleSeconds, workers, startTime, onProgress: (second) => progress.update(second) })
  progress.done()
  const command = reproduceCommand({ file, out, durationSeconds, sampleSeconds, startTime, ...fleetFlags })
  const paths = await writeReport(out, result, { command, durationNote })
  const { byState, agents } = result.final
  const counts = Object.entries(byState).filter(([, n]) => n > 0).map(([state, n]) => `${state} ${n}`).join(', ')
  const fittedText = durationNote === undefined ? '' : ` (${durationNote})`
  io.out(`${result.scenario.name}: ${formatSeconds(durationSeconds)} virtual${fittedText} in ${(result.wallMs / 1000).toFixed(1)} s; ${agents} agents (${counts}); ${result.events.length} timeline event${result.events.length === 1 ? '' : 's'}; digest ${result.digest}\n`)
  // As a shell reads them: a path with a space (or a quote, a `$`…) is quoted, one word to copy.
  io.out(`report: ${paths.map(shellWord).join(', ')}\n`)
  io.out(`open ${shellWord(paths[0])} in a browser to see it\n`)
  return 0
}

/** A word as a POSIX shell reads it: as it is when it is safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/**
 * The command that runs the same again: every flag that shapes the result written out, so a
 * later change of a default cannot change what it does. --workers is left out: any number of
 * workers gives the same run.
 */
export function reproduceCommand(run: { file: string; out: string; durationSeconds: number; sampleSeconds: number; startTime: number; agents?: number | undefined; seed?: number | undefined }): string {
  const words = [
    'fleetsim', 'run', run.file,
    '--duration', formatSeconds(run.durationSeconds),
    '--sample', formatSeconds(run.sampleSeconds),
    '--start-time', new Date(run.startTime).toISOString(),
    // Only when given: without them the scenario file's own values hold.
    ...(run.agents === undefined ? [] : ['--agents', String(run.agents)]),
    ...(run.seed === undefined ? [] : ['--seed', String(run.seed)]),
    '--out', run.out
  ]
  return words.map(shellWord).join(' ')
}
