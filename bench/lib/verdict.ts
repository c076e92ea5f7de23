/**
 * Whether a bench run passed: every target it measured met (targets.ts), and no load run with
 * failed requests. `npm run bench` prints a sentence per failure and exits 1, unless
 * `--report-only` asks it to report them and exit 0 (a loaded machine misses ratios and times
 * without anything being wrong).
 */
import type { BenchResults } from './results.js'

/** One sentence per missed target or failed check; none when the run passed. */
export function benchFailures(results: Pick<BenchResults, 'targets' | 'rows' | 'scale'>): string[] {
  const failures: string[] = []
  for (const target of results.targets) {
    if (!target.met) failures.push(`target missed: ${target.name} (goal ${target.goal}), measured ${target.value}.`)
  }
  for (const row of results.rows) {
    const failed = [plural(row.errors, 'socket error', 'socket errors'), plural(row.timeouts, 'timeout', 'timeouts'), plural(row.non2xx, 'answer not 2xx', 'answers not 2xx')].filter(
      (part) => part !== undefined
    )
    if (failed.length === 0) continue
    failures.push(`"${row.name}" (${row.group}) had ${failed.join(', ')} in ${row.requests.toLocaleString('en-US')} requests: its figures include failed requests, not only answers.`)
  }
  for (const scale of results.scale) {
    const { errors } = scale.agentinfoWhileStepping
    if (errors > 0) failures.push(`agentinfo while ${scale.agents.toLocaleString('en-US')} agents stepped flat out had ${plural(errors, 'error', 'errors')}: the server failed requests while its fleet stepped.`)
  }
  return failures
}

function plural(n: number, one: string, many: string): string | undefined {
  if (n === 0) return undefined
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
}

export interface Verdict {
  /** what to print on stderr */
  lines: string[]
  exitCode: number
}

/** The end of `npm run bench`: the failures and the exit code (0 with --report-only). */
export function verdict(failures: string[], reportOnly: boolean): Verdict {
  if (failures.length === 0) return { lines: ['bench: passed (every target met, no failed requests)'], exitCode: 0 }
  const n = failures.length === 1 ? '1 check' : `${failures.length} checks`
  if (reportOnly) return { lines: [...failures.map((failure) => `bench: ${failure}`), `bench: ${n} failed; exit code 0 as --report-only asks`], exitCode: 0 }
  return {
    lines: [
      ...failures.map((failure) => `bench: FAILED: ${failure}`),
      `bench: ${n} failed. On a loaded machine ratios and times move (see "Reading the numbers" in bench/README.md); --report-only reports without failing.`
    ],
    exitCode: 1
  }
}
