/**
 * The multi-agent operations with 100, 1,000 and 10,000 agentUuids per request, one
 * connection (so p50 is the time one request takes): on a paused clock, and with the clock
 * running fast under a lively scenario (operations that wait for agents to reconnect only
 * answer as virtual time passes: up to 10 virtual seconds, 10 ms at speed 1000).
 * deleteagent gets fresh UUIDs on every request, so its runs are bounded by the fleet size.
 * A bare fastify route answering stopagent's bytes to the same request line is the baseline.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AUTH_HEADERS, LIVELY_SCENARIO, REST, RUNNING_SPEED, type SuiteContext } from '../lib/context.js'
import { fetchAnswer, runLoad, type LoadSpec } from '../lib/load.js'
import { applyRatios, type LoadRow } from '../lib/results.js'

export const GROUP = 'multi-agent operations'
const TEMPLATE = 'bench-master'

export async function multiSuite(ctx: SuiteContext): Promise<void> {
  const { profile } = ctx
  const largest = Math.max(...profile.multiBatches)
  const fleet = await ctx.start({
    kind: 'fleetsim',
    agents: profile.multiFleet,
    seed: 7,
    scenario: LIVELY_SCENARIO,
    speed: RUNNING_SPEED,
    paused: true,
    caFingerprint: ctx.caFingerprint
  })
  const rows: LoadRow[] = []
  try {
    const headers = { ...AUTH_HEADERS, accept: 'application/json', 'content-type': 'application/json' }
    const created = await fetch(`${fleet.origin}${REST}/addmastertemplate`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: TEMPLATE, 'global-config': { address: '192.0.2.10', port: 4041, 'ca-fingerprint': ctx.caFingerprint } })
    })
    if (created.status !== 200) throw new Error(`addmastertemplate answered ${created.status}: ${await created.text()}`)
    // Commands go to the first `largest` ONLINE agents; deleteagent takes the agents after them.
    const online = await fleet.command({ op: 'uuids', state: 'ONLINE', count: largest })
    const spare = await fleet.command({ op: 'uuids', offset: 0, count: profile.multiFleet })
    const commanded = new Set(online)
    const deletable = spare.filter((uuid) => !commanded.has(uuid))
    let deleted = 0

    for (const batch of profile.multiBatches) {
      const uuids = online.slice(0, batch).join(',')
      const query = `agentUuids=${uuids}`
      const common = { group: GROUP, origin: fleet.origin, headers, connections: 1, durationSeconds: profile.multiDuration, maxRequests: profile.multiMaxRequests, timeoutSeconds: 60 }
      const run = async (spec: Omit<LoadSpec, Exclude<keyof typeof common, 'maxRequests'> | 'target'>, clock: string) =>
        rows.push(await runLoad({ ...common, ...spec, target: 'fleetsim', server: fleet, params: { ...spec.params, uuids: batch, clock, agents: profile.multiFleet, variant: `batch-${batch}` } }, ctx.progress))

      // Baseline: the same request line to a bare route that answers stopagent's bytes.
      const stopAnswer = await fetchAnswer(fleet.origin, `${REST}/stopagent?${query}`, { method: 'POST', headers: AUTH_HEADERS })
      if (stopAnswer.status !== 200) throw new Error(`stopagent with ${batch} UUIDs answered ${stopAnswer.status}: ${stopAnswer.body.toString().slice(0, 300)}`)
      const bodyFile = join(ctx.scratch, `stopagent-${batch}.body`)
      await writeFile(bodyFile, stopAnswer.body)
      const bare = await ctx.start({ kind: 'fastify', routes: [{ method: 'POST', path: '/baseline/stopagent', status: 200, contentType: stopAnswer.contentType, bodyFile }] })
      try {
        rows.push(
          await runLoad(
            { ...common, origin: bare.origin, name: `bare fastify, stopagent's answer (${batch} UUIDs)`, target: 'fastify', server: bare, method: 'POST', path: `/baseline/stopagent?${query}`, params: { uuids: batch, variant: `batch-${batch}` } },
            ctx.progress
          )
        )
      } finally {
        await bare.close()
      }

      await fleet.command({ op: 'clock', paused: true })
      await run({ name: `stopagent, ${batch} UUIDs, paused`, method: 'POST', path: `${REST}/stopagent?${query}` }, 'paused')
      await run({ name: `startagent, ${batch} UUIDs, paused`, method: 'POST', path: `${REST}/startagent?${query}` }, 'paused')
      await run({ name: `assigntemplatetoagent, ${batch} UUIDs, paused`, method: 'POST', path: `${REST}/assigntemplatetoagent?${query}&templateName=${TEMPLATE}&updateAgents=false` }, 'paused')
      // Each batch size gets an equal share of the deletable agents, so the small batches do not use them all up.
      const share = Math.floor(deletable.length / profile.multiBatches.length)
      const deletions = Math.min(profile.multiMaxRequests, Math.floor(share / batch), Math.floor((deletable.length - deleted) / batch))
      if (deletions > 0) {
        let next = deleted
        deleted += deletions * batch
        await run(
          {
            name: `deleteagent, ${batch} UUIDs, paused`,
            method: 'DELETE',
            path: `${REST}/deleteagent?revokeCert=false&agentUuids=`,
            maxRequests: deletions,
            nextPath: () => {
              const slice = deletable.slice(next, next + batch)
              next += batch
              return `${REST}/deleteagent?revokeCert=false&agentUuids=${slice.join(',')}`
            },
            params: { requests: deletions }
          },
          'paused'
        )
      } else {
        ctx.notes.push(`deleteagent with ${batch} UUIDs skipped: the ${profile.multiFleet}-agent fleet has no ${batch} undeleted agents left`)
      }

      await fleet.command({ op: 'clock', paused: false, speed: RUNNING_SPEED })
      const atSpeed = `speed ${RUNNING_SPEED}`
      await run({ name: `stopagent, ${batch} UUIDs, ${atSpeed}`, method: 'POST', path: `${REST}/stopagent?${query}` }, atSpeed)
      await run({ name: `assigntemplatetoagent updateAgents, ${batch} UUIDs, ${atSpeed}`, method: 'POST', path: `${REST}/assigntemplatetoagent?${query}&templateName=${TEMPLATE}&updateAgents=true` }, atSpeed)
      await run({ name: `updateandreloadagent, ${batch} UUIDs, ${atSpeed}`, method: 'POST', path: `${REST}/updateandreloadagent?${query}` }, atSpeed)
    }
    applyRatios(rows, (row) => rows.find((r) => r.target === 'fastify' && r.params.variant === row.params.variant))
    ctx.rows.push(...rows)
  } finally {
    await fleet.close()
  }
}
