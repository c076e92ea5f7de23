/**
 * One workload on several servers, compared in the same run: fleetsim, bare fastify and
 * node:http sending the same bytes for the same requests, and WireMock (the peer). The servers
 * take turns within each round and each reports its median round, so a burst of other load on
 * the machine hits them alike; ratios are fleetsim's requests/s over the others'.
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
  applyComparisons(rows)
  return rows
}

/** Sets each fleetsim row's ratio to bare fastify and to WireMock (rows of one workload). */
export function applyComparisons(rows: LoadRow[]): void {
  const fastify = rows.find((r) => r.target === 'fastify')
  const peer = rows.find((r) => r.target === 'wiremock')
  for (const row of rows) {
    if (row.target === 'fastify') continue
    if (fastify !== undefined && fastify.requestsPerSec > 0) {
      row.baseline = fastify.name
      row.ratio = Number((row.requestsPerSec / fastify.requestsPerSec).toFixed(3))
      if (row.serverCpuUsPerRequest && fastify.serverCpuUsPerRequest) row.cpuRatio = Number((fastify.serverCpuUsPerRequest / row.serverCpuUsPerRequest).toFixed(3))
    }
    if (row.target === 'fleetsim' && peer !== undefined && peer.requestsPerSec > 0) row.peerRatio = Number((row.requestsPerSec / peer.requestsPerSec).toFixed(3))
  }
}
