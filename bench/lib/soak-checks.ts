/**
 * What a soak run must show, and a sentence for each check that failed: what went wrong and
 * what it means. `npm run soak` prints them and exits 1 when there is any.
 */
import { AGENT_STATES } from '../../src/protocol/states.js'

/** The fleet's counts by state (state order), as kept from step tallies and as a scan of every agent finds them. */
export interface CountsComparison {
  counts: number[]
  scanned: number[]
}

export interface SoakTotals {
  /** autocannon: requests that failed at the socket, that got no answer in time, answers not 2xx */
  errors: number
  timeouts: number
  non2xx: number
  /** the server: answers with a 5xx status */
  serverErrors: number
  /** seconds of a request timeout */
  timeoutSeconds: number
  fleet: CountsComparison
}

/** The engine calls the comparison needs (FleetEngine has them). */
export interface CountedFleet {
  setClock(change: { paused: boolean }): Promise<unknown>
  advance(seconds: number): Promise<unknown>
  counts(): { byState: Record<string, number> }
  scanCounts(): number[]
}

/**
 * The fleet's counts next to a scan, taken between step rounds. The counts move when a
 * round's tallies are absorbed, after the round; a scan taken while a round is in flight sees
 * the workers' writes before that, so the two differ without anything being wrong. A pause
 * resolves once the round in flight has ended, and stops new ones.
 */
export async function settledCounts(fleet: CountedFleet): Promise<CountsComparison> {
  await fleet.setClock({ paused: true })
  return { counts: AGENT_STATES.map((state) => fleet.counts().byState[state] ?? 0), scanned: fleet.scanCounts() }
}

export function countsConsistent(fleet: CountsComparison): boolean {
  return fleet.counts.length === fleet.scanned.length && fleet.counts.every((n, k) => n === fleet.scanned[k])
}

/** One sentence per failed check; none when the run was healthy. */
export function soakFailures(totals: SoakTotals): string[] {
  const failures: string[] = []
  const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
  if (totals.errors > 0) {
    failures.push(`${plural(totals.errors, 'request', 'requests')} failed at the socket (connection errors): the server closed or refused connections under load.`)
  }
  if (totals.timeouts > 0) {
    failures.push(`${plural(totals.timeouts, 'request', 'requests')} got no answer within ${totals.timeoutSeconds} s: the server stalled under load.`)
  }
  if (totals.serverErrors > 0) {
    failures.push(`${plural(totals.serverErrors, 'answer was', 'answers were')} 5xx: the server failed requests it should have answered (its warnings and errors are printed above).`)
  }
  const other = totals.non2xx - totals.serverErrors
  if (other > 0) {
    failures.push(`${plural(other, 'answer was', 'answers were')} 4xx or another status that is not 2xx: the server refused requests that are valid (a limit or rule fired under load).`)
  }
  if (!countsConsistent(totals.fleet)) {
    const byState = (counts: number[]) => AGENT_STATES.map((state, k) => `${state} ${counts[k] ?? 0}`).join(', ')
    failures.push(
      `the fleet's counts by state (${byState(totals.fleet.counts)}) differ from a scan of every agent (${byState(totals.fleet.scanned)}) after the run: ` +
        'the counts the metrics, the admin API, agentinfo lists and the log summaries use have drifted from the real states of the agents.'
    )
  }
  return failures
}
