/**
 * Two settings of V8 the bench's servers run with, each measured against node's default.
 *
 * Why the bench runs its servers with one GC thread: bare fastify answering a 1 kB JSON body,
 * in several fresh processes with V8's parallel GC (node's default) and with
 * `--single-threaded-gc` (the bench's default), alternating. A process's cost per answer is
 * set for its lifetime, so each process is a sample: with parallel GC on a 2-core machine they
 * differ by up to a factor of two (bench/README.md, "How it measures").
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AUTH_HEADERS, LIVELY_SPEED, agentinfoFleet, type SuiteContext } from '../lib/context.js'
import { runLoad } from '../lib/load.js'
import type { GcMode } from '../lib/protocol.js'
import type { LoadRow } from '../lib/results.js'
import { startTarget } from '../lib/target.js'
import { BUILT_AGENTS, builtPath } from './built.js'

export const GROUP = 'GC modes'
const MODES: readonly GcMode[] = ['parallel', 'single']

export async function gcSuite(ctx: SuiteContext): Promise<void> {
  const { profile } = ctx
  const bodyFile = join(ctx.scratch, 'gc-modes.body')
  await writeFile(bodyFile, JSON.stringify({ servicename: 'gc-modes', values: [{ content: 'x'.repeat(1000) }], links: [] }))
  const route = { method: 'GET', path: '/baseline/gc', status: 200, contentType: 'application/json; charset=utf-8', bodyFile } as const
  const rows: LoadRow[] = []
  for (let k = 1; k <= profile.gcProcesses; k++) {
    for (const gc of MODES) {
      // Not ctx.start: each process gets the mode of its row, whatever the run's.
      const target = await startTarget({ kind: 'fastify', routes: [route], gc })
      try {
        rows.push(
          await runLoad(
            {
              name: `bare fastify, JSON, ${gc} GC`,
              target: 'fastify',
              group: GROUP,
              origin: target.origin,
              path: route.path,
              connections: profile.connections,
              durationSeconds: profile.gcDuration,
              warmupSeconds: profile.warmup,
              server: target,
              params: { gc, process: k }
            },
            ctx.progress
          )
        )
      } finally {
        await target.close()
      }
    }
  }
  for (const gc of MODES) {
    const costs = rows.filter((row) => row.params.gc === gc).map((row) => row.serverCpuUsPerRequest ?? '?')
    ctx.notes.push(`bare fastify with ${gc} GC, µs of server CPU per answer by process: ${costs.join(', ')}`)
  }
  ctx.rows.push(...rows, ...(await pretenuringRows(ctx)))
}

export const PRETENURING_GROUP = 'V8 pretenuring'

/**
 * Why `fleetsim serve` turns V8's allocation-site pretenuring off (src/lib/serving-heap.ts):
 * fleetsim's built workload (agentinfo for 2,000 agents in turn, JSON, the clock at speed 600) in
 * several fresh processes with pretenuring on (node's default) and off, alternating. A process
 * that V8 had pretenure its requests' objects kept that cost for its lifetime, so each process is
 * a sample: the GC's part of an answer by process says how many settled there.
 */
export async function pretenuringRows(ctx: SuiteContext): Promise<LoadRow[]> {
  const { profile } = ctx
  const rows: LoadRow[] = []
  const pathOf = (name: string) => builtPath({ modules: false }, name)
  for (let k = 1; k <= profile.pretenuringProcesses; k++) {
    for (const pretenuring of [true, false]) {
      const target = await ctx.start(agentinfoFleet(ctx, { pretenuring }))
      try {
        const names = await target.command({ op: 'names', count: Math.min(BUILT_AGENTS, profile.agentinfoFleet) })
        let next = 0
        rows.push(
          await runLoad(
            {
              name: `fleetsim, built JSON, pretenuring ${pretenuring ? 'on' : 'off'}`,
              target: 'fleetsim',
              group: PRETENURING_GROUP,
              origin: target.origin,
              path: pathOf(names[0]),
              nextPath: () => pathOf(names[next++ % names.length]),
              headers: { ...AUTH_HEADERS, accept: 'application/json' },
              connections: profile.connections,
              durationSeconds: profile.pretenuringDuration,
              warmupSeconds: profile.warmup,
              server: target,
              params: { pretenuring: pretenuring ? 'on' : 'off', process: k, inTurn: names.length, speed: LIVELY_SPEED }
            },
            ctx.progress
          )
        )
      } finally {
        await target.close()
      }
    }
  }
  for (const on of ['on', 'off']) {
    const gc = rows.filter((row) => row.params.pretenuring === on).map((row) => row.serverGcUsPerRequest ?? '?')
    ctx.notes.push(`fleetsim's built JSON with V8's allocation-site pretenuring ${on}, µs of GC per answer by process: ${gc.join(', ')}`)
  }
  return rows
}
