/**
 * `fleetsim run SCENARIO --out DIR [--duration 24h] [--sample 60s] [--workers n] [--start-time ISO]`:
 * runs a scenario headless at full speed and writes a report (src/run/report.ts). Bad flags
 * throw ConfigError (exit 2); a scenario that does not validate prints every problem (exit 1).
 */
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { ConfigError } from '../config.js'
import { Progress, type ProgressStream } from '../run/progress.js'
import { writeReport } from '../run/report.js'
import { DEFAULT_RUN_START, runScenario } from '../run/runner.js'
import { formatIssue } from '../scenario/errors.js'
import { loadScenarioFile } from '../scenario/load.js'
import { formatSeconds, parseDuration } from '../scenario/units.js'

export const USAGE = `Usage: fleetsim run SCENARIO --out DIR [flags]

Runs SCENARIO (a YAML file) at full speed without a server and writes into DIR:
states.csv, states.json, chart.svg, events.json, summary.json.

Flags:
  --out <dir>          where the report goes (created if missing; required)
  --duration <time>    virtual time to run, e.g. 2h, 24h, 7d (default 24h)
  --sample <time>      interval of the state counts, e.g. 30s, 5m (default 60s)
  --workers <n>        worker threads stepping the fleet (default: the number of CPUs)
  --start-time <iso>   virtual epoch (default ${new Date(DEFAULT_RUN_START).toISOString()}, fixed so runs compare)
`

export interface RunIo {
  out(text: string): void
  err: ProgressStream
}

const stdio: RunIo = { out: (text) => void process.stdout.write(text), err: process.stderr }

function wholeSeconds(flag: string, value: string): number {
  const seconds = parseDuration(value)
  if (seconds === undefined || !Number.isInteger(seconds) || seconds < 1) {
    throw new ConfigError('FLEETSIM_INVALID_VALUE', `--${flag} must be a duration of whole seconds, at least 1s (like 90s, 5m, 24h), got "${value}"`)
  }
  return seconds
}

export async function run(argv: string[], io: RunIo = stdio): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        duration: { type: 'string', default: '24h' },
        sample: { type: 'string', default: '60s' },
        workers: { type: 'string' },
        'start-time': { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    })
  } catch (error) {
    throw new ConfigError('FLEETSIM_UNKNOWN_FLAG', `${(error as Error).message}\n${USAGE}`)
  }
  const { values, positionals } = parsed
  if (values.help === true) {
    io.out(USAGE)
    return 0
  }
  if (positionals.length !== 1) throw new ConfigError('FLEETSIM_UNEXPECTED_ARGUMENT', `run needs exactly one SCENARIO file, got ${positionals.length}\n${USAGE}`)
  if (values.out === undefined || values.out === '') throw new ConfigError('FLEETSIM_MISSING_VALUE', `--out <dir> is required: where the report goes\n${USAGE}`)
  const durationSeconds = wholeSeconds('duration', values.duration)
  const sampleSeconds = wholeSeconds('sample', values.sample)
  if (sampleSeconds > durationSeconds) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--sample (${values.sample}) must not be longer than --duration (${values.duration})`)
  const workers = values.workers === undefined ? availableParallelism() : Number(values.workers)
  if (!Number.isInteger(workers) || workers < 1 || workers > 256) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--workers must be an integer from 1 to 256, got "${values.workers}"`)
  const startTime = values['start-time'] === undefined ? DEFAULT_RUN_START : Date.parse(values['start-time'])
  if (Number.isNaN(startTime)) throw new ConfigError('FLEETSIM_INVALID_VALUE', `--start-time must be an ISO 8601 time like 2026-01-01T00:00:00Z, got "${values['start-time']}"`)

  const file = positionals[0]
  const loaded = await loadScenarioFile(file)
  if (!loaded.ok) {
    for (const issue of loaded.issues) io.err.write(`${formatIssue(issue)}\n`)
    io.err.write(`fleetsim run: ${file} is not a valid scenario (${loaded.issues.length} problem${loaded.issues.length === 1 ? '' : 's'}); nothing was run\n`)
    return 1
  }
  const progress = new Progress(io.err, durationSeconds, loaded.scenario.name)
  const result = await runScenario({ scenario: loaded.scenario, durationSeconds, sampleSeconds, workers, startTime, onProgress: (second) => progress.update(second) })
  progress.done()
  const paths = await writeReport(values.out, result)
  const { byState, agents } = result.final
  const counts = Object.entries(byState).filter(([, n]) => n > 0).map(([state, n]) => `${state} ${n}`).join(', ')
  io.out(`${result.scenario.name}: ${formatSeconds(durationSeconds)} virtual in ${(result.wallMs / 1000).toFixed(1)} s; ${agents} agents (${counts}); ${result.events.length} timeline events; digest ${result.digest}\n`)
  io.out(`report: ${paths.join(', ')}\n`)
  return 0
}
