/**
 * One workload on several servers, compared in the same run: fleetsim, bare fastify and
 * node:http sending the same bytes for the same requests, and WireMock (the peer). The servers
 * take turns within each round and each reports its median round, so a burst of other load on
 * the machine hits them alike. A ratio is the median of the rounds' ratios: each round's
 * requests/s over the other server's in the same round, seconds apart, rather than one median
 * round over another that may have run at the other end of the run, when the machine's speed
 * had moved by half (bench/README.md, "How it measures").
 */
import { runLoad, type LoadSpec } from './load.js'
import { mergeRounds, type LoadRow } from './results.js'
import type { Target } from './target.js'

export interface Contender {
  target: LoadRow['target']
  /** the row's name, e.g. `bare fastify, JSON` */
  name: string
  server: Target
  /** the server's origin for this workload (HTTP or HTTPS) */
  origin: string
  /** where this server answers the workload, if not at the workload's path (a bare route of fixed bytes) */
  path?: string
}

export type Workload = Omit<LoadSpec, 'name' | 'target' | 'server' | 'origin'>

/** Runs `workload` on every contender, `rounds` times in turn; one merged row each, with ratios. */
export async function compareRounds(workload: Workload, contenders: Contender[], rounds: number, progress: (line: string) => void): Promise<LoadRow[]> {
  const runs = contenders.map(() => [] as LoadRow[])
  for (let k = 0; k < rounds; k++) {
    for (const [c, contender] of contenders.entries()) {
      const at = contender.path === undefined ? {} : { path: contender.path, nextPath: undefined }
      runs[c].push(await runLoad({ ...workload, ...at, name: contender.name, target: contender.target, server: contender.server, origin: contender.origin }, progress))
    }
  }
  const rows = runs.map(mergeRounds)
  applyComparisons(rows, runs)
  return rows
}

/**
 * Sets each row's ratio to bare fastify, and each fleetsim row's to WireMock, from the rounds
 * they ran (`runs[k]`: row k's rounds, in order): the median of the rounds' ratios, each listed
 * in the params (`roundsRatio`, `roundsPeerRatio`). The CPU ratio is the median of the rounds'
 * too. A round whose baseline answered nothing counts for none.
 */
export function applyComparisons(rows: LoadRow[], runs: LoadRow[][]): void {
  const at = (target: LoadRow['target']) => rows.findIndex((r) => r.target === target)
  const fastify = at('fastify')
  const peer = at('wiremock')
  for (const [k, row] of rows.entries()) {
    if (row.target === 'fastify') continue
    if (fastify !== -1) {
      const ratios = roundRatios(runs[k], runs[fastify], (r) => r.requestsPerSec)
      if (ratios.length > 0) {
        row.baseline = rows[fastify].name
        row.ratio = lowerMedian(ratios)
        row.params = { ...row.params, roundsRatio: ratios.join(' / ') }
        const cpu = roundRatios(runs[fastify], runs[k], (r) => r.serverCpuUsPerRequest ?? 0)
        if (cpu.length > 0) row.cpuRatio = lowerMedian(cpu)
      }
    }
    if (row.target === 'fleetsim' && peer !== -1) {
      const ratios = roundRatios(runs[k], runs[peer], (r) => r.requestsPerSec)
      if (ratios.length > 0) {
        row.peerRatio = lowerMedian(ratios)
        row.params = { ...row.params, roundsPeerRatio: ratios.join(' / ') }
      }
    }
  }
}

/** figure(mine) / figure(theirs) round by round, to three decimals, for the rounds where both are above 0. */
function roundRatios(mine: readonly LoadRow[], theirs: readonly LoadRow[], figure: (row: LoadRow) => number): number[] {
  const ratios: number[] = []
  for (let k = 0; k < Math.min(mine.length, theirs.length); k++) {
    const a = figure(mine[k])
    const b = figure(theirs[k])
    if (a > 0 && b > 0) ratios.push(Number((a / b).toFixed(3)))
  }
  return ratios
}

/** The middle value, the lower of the two middle ones for an even count, as mergeRounds picks its round. */
function lowerMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]
}
