/**
 * agentinfo by state over large fleets: every ONLINE agent of 10k and 100k, streamed. Measures
 * how soon the answer starts (unloaded, several samples), bytes/s under load, and the server's
 * RSS sampled during the load; then a bare fastify route sends the same bytes for the ratio.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AUTH_HEADERS, LIVELY_SCENARIO, LIVELY_SPEED, REST, type SuiteContext } from '../lib/context.js'
import { fetchAnswer, runLoad } from '../lib/load.js'
import { applyRatios, type LoadRow } from '../lib/results.js'

export const GROUP = 'agentinfo by state'
const MB = 1024 * 1024

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]
const round = (value: number, digits = 1) => Number(value.toFixed(digits))
const short = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n))

export async function listSuite(ctx: SuiteContext): Promise<void> {
  const { profile } = ctx
  for (const agents of profile.listFleets) {
    const fleet = await ctx.start({
      kind: 'fleetsim',
      agents,
      seed: 7,
      scenario: LIVELY_SCENARIO,
      speed: LIVELY_SPEED,
      paused: false,
      caFingerprint: ctx.caFingerprint
    })
    try {
      const path = `${REST}/agentinfo?agentstate=ONLINE`
      const headers = { ...AUTH_HEADERS, accept: 'application/json' }
      const name = `ONLINE of ${short(agents)}, JSON`
      // Unloaded samples of how soon the answer starts; the last one is kept for the baseline.
      const firsts: number[] = []
      const totals: number[] = []
      let answer
      for (let k = 0; k < profile.firstByteSamples; k++) {
        answer = await fetchAnswer(fleet.origin, path, { headers, keepBody: k === profile.firstByteSamples - 1 })
        if (answer.status !== 200) throw new Error(`agentinfo by state answered ${answer.status}`)
        firsts.push(answer.firstByteMs)
        totals.push(answer.totalMs)
      }
      const body = answer?.body ?? Buffer.alloc(0)
      const items = body.toString('latin1').split('"content":').length - 1
      const stats = await fleet.command({ op: 'stats' })
      const params = { agents, online: stats.byState.ONLINE ?? 0, scenario: 'flapping-network', speed: LIVELY_SPEED, state: 'ONLINE' }

      await fleet.command({ op: 'sample-start', everyMs: 20 })
      const spec = {
        group: GROUP,
        origin: fleet.origin,
        headers,
        connections: profile.listConnections,
        durationSeconds: profile.listDuration,
        maxRequests: profile.listRequests,
        timeoutSeconds: 120,
        params: { ...params, variant: `online-${agents}` }
      }
      const row = await runLoad({ ...spec, name: `fleetsim, ${name}`, target: 'fleetsim', server: fleet, path }, ctx.progress)
      const rss = await fleet.command({ op: 'sample-stop' })
      const rssBefore = rss.first

      const bodyFile = join(ctx.scratch, `list-${agents}.body`)
      await writeFile(bodyFile, body)
      const bare = await ctx.start({ kind: 'fastify', routes: [{ method: 'GET', path: '/baseline/list', status: 200, contentType: answer?.contentType ?? 'application/json', bodyFile }] })
      let baseRow: LoadRow
      try {
        baseRow = await runLoad({ ...spec, name: `bare fastify, same bytes as ${name}`, target: 'fastify', server: bare, origin: bare.origin, path: '/baseline/list' }, ctx.progress)
      } finally {
        await bare.close()
      }
      applyRatios([row, baseRow], () => baseRow)
      ctx.rows.push(baseRow, row)
      ctx.lists.push({
        name,
        agents,
        state: 'ONLINE',
        format: 'json',
        items,
        answerBytes: body.length,
        firstByteMs: { median: round(median(firsts)), max: round(Math.max(...firsts)), samples: firsts.length },
        totalMs: { median: round(median(totals)), max: round(Math.max(...totals)) },
        rssMb: { before: round(rssBefore / MB), max: round(rss.max / MB), growth: round((rss.max - rssBefore) / MB) }
      })
      ctx.progress(
        `${GROUP} | ${name}: ${items} items, ${round(body.length / MB)} MB, first byte ${round(median(firsts))} ms (max ${round(Math.max(...firsts))}), ` +
          `RSS ${round(rssBefore / MB)} -> max ${round(rss.max / MB)} MB`
      )
    } finally {
      await fleet.close()
    }
  }
}
