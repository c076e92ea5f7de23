/**
 * `list`: agentinfo?agentstate=ONLINE on 10k and 100k agents, streamed, in JSON and XML over
 * HTTP (and over HTTPS on 10k, at both speeds), next to bare fastify sending the same bytes and, on 10k,
 * WireMock (the peer) serving them as a stub file. Also how soon the answer starts (unloaded
 * samples), and memory: several clients listing every fleet's ONLINE agents at once for a while,
 * the server's RSS sampled, while one more client asks for one agent and its latency is measured.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AT_SPEED_1, AUTH_HEADERS, LIVELY_SCENARIO, LIVELY_SPEED, REST, type SuiteContext } from '../lib/context.js'
import { compareRounds, type Contender } from '../lib/compare.js'
import { fetchAnswer, runLoad, type FetchedAnswer } from '../lib/load.js'
import type { Target } from '../lib/target.js'
import { startWiremock, wiremockUnavailable } from '../lib/wiremock.js'

export const GROUP = 'agentinfo by state'
export const MEMORY_GROUP = 'agentinfo by state, many clients'
const MB = 1024 * 1024
/** WireMock holds a stub's body in memory per answer: the peer is measured on the smaller fleet only. */
const PEER_MAX_AGENTS = 10_000

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]
const round = (value: number, digits = 1) => Number(value.toFixed(digits))
const short = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n))

interface Variant {
  label: string
  accept: 'application/json' | 'application/xml'
  https: boolean
}

const PATH = `${REST}/agentinfo?agentstate=ONLINE`

/**
 * The fleets listed: each size with the clock at LIVELY_SPEED, where the fleet moves every few
 * milliseconds and every answer is built; and the smallest again at speed 1 (serve's default),
 * where a list is built once a virtual second and sent again from the kept answers meanwhile,
 * as a dashboard polling a list gets it.
 */
interface ListRun {
  agents: number
  speed: number
}

export async function listSuite(ctx: SuiteContext): Promise<void> {
  const { profile } = ctx
  const runs: ListRun[] = [...profile.listFleets.map((agents) => ({ agents, speed: LIVELY_SPEED })), { agents: Math.min(...profile.listFleets), speed: 1 }]
  for (const { agents, speed } of runs) {
    const fleet = await ctx.start({ kind: 'fleetsim', agents, seed: 7, scenario: LIVELY_SCENARIO, speed, paused: false, caFingerprint: ctx.caFingerprint, tls: ctx.tls })
    const started: Target[] = [fleet]
    try {
      const lively = speed === LIVELY_SPEED
      const largest = agents === Math.max(...profile.listFleets) && lively
      const suffix = lively ? '' : AT_SPEED_1
      const key = lively ? `${agents}` : `${agents}-speed-${speed}`
      const variants: Variant[] = [
        { label: 'JSON', accept: 'application/json', https: false },
        { label: 'XML', accept: 'application/xml', https: false },
        ...(largest
          ? []
          : [
              { label: 'JSON over HTTPS', accept: 'application/json', https: true } as const,
              { label: 'XML over HTTPS', accept: 'application/xml', https: true } as const
            ])
      ]
      // The bytes fleetsim answers for each variant (the last of the unloaded samples), for the baselines.
      const answers = new Map<Variant, FetchedAnswer>()
      for (const v of variants) {
        const origin = v.https ? (fleet.tlsOrigin as string) : fleet.origin
        const firsts: number[] = []
        const totals: number[] = []
        let answer: FetchedAnswer | undefined
        for (let k = 0; k < profile.firstByteSamples; k++) {
          answer = await fetchAnswer(origin, PATH, { headers: { ...AUTH_HEADERS, accept: v.accept }, keepBody: k === profile.firstByteSamples - 1 })
          if (answer.status !== 200) throw new Error(`agentinfo by state answered ${answer.status}`)
          firsts.push(answer.firstByteMs)
          totals.push(answer.totalMs)
        }
        const body = (answer as FetchedAnswer).body
        answers.set(v, answer as FetchedAnswer)
        const items = v.accept === 'application/json' ? body.toString('latin1').split('"content":').length - 1 : body.toString('latin1').split('<content>').length - 1
        ctx.lists.push({
          name: `ONLINE of ${short(agents)}, ${v.label}${suffix}`,
          agents,
          state: 'ONLINE',
          format: v.accept === 'application/json' ? 'json' : 'xml',
          items,
          answerBytes: body.length,
          firstByteMs: { median: round(median(firsts)), max: round(Math.max(...firsts)), samples: firsts.length },
          totalMs: { median: round(median(totals)), max: round(Math.max(...totals)) }
        })
      }
      const routes = await Promise.all(
        variants.map(async (v, k) => {
          const answer = answers.get(v) as FetchedAnswer
          const bodyFile = join(ctx.scratch, `list-${key}-${k}.body`)
          await writeFile(bodyFile, answer.body)
          return { method: 'GET' as const, path: `/baseline/list-${k}`, status: 200, contentType: answer.contentType, bodyFile }
        })
      )
      const fastify = await ctx.start({ kind: 'fastify', routes, tls: ctx.tls })
      started.push(fastify)
      const unavailable = agents <= PEER_MAX_AGENTS ? wiremockUnavailable() : `WireMock is measured on fleets up to ${short(PEER_MAX_AGENTS)} agents`
      const peer = unavailable === undefined ? await startWiremock(join(ctx.scratch, `wiremock-list-${key}`), { routes }, true) : undefined
      if (peer !== undefined) started.push(peer)
      else if (lively) ctx.notes.push(`list ${short(agents)}: ${unavailable}`)

      for (const [k, v] of variants.entries()) {
        const originOf = (target: Target) => (v.https ? (target.tlsOrigin as string) : target.origin)
        const bare = `/baseline/list-${k}`
        const what = `ONLINE of ${short(agents)}, ${v.label}${suffix}`
        const contenders: Contender[] = [
          { target: 'fastify', name: `bare fastify, same bytes as ${what}`, server: fastify, origin: originOf(fastify), path: bare },
          ...(peer === undefined ? [] : [{ target: 'wiremock' as const, name: `WireMock, same bytes as ${what}`, server: peer, origin: originOf(peer), path: bare }]),
          { target: 'fleetsim', name: `fleetsim, ${what}`, server: fleet, origin: originOf(fleet) }
        ]
        // The bare servers answer the same bytes at their own paths.
        const rows = await compareRounds(
          {
            group: GROUP,
            path: PATH,
            headers: { ...AUTH_HEADERS, accept: v.accept },
            connections: profile.listConnections,
            // At speed 1 a run lasts its seconds: its first answers are built, and so is one
            // after every virtual second; a few answers would measure only the first ones.
            durationSeconds: lively ? profile.listSeconds : profile.polledListSeconds,
            ...(lively ? { minRequests: profile.listRequests, maxSeconds: profile.listDuration } : {}),
            timeoutSeconds: 120,
            large: true,
            params: { agents, scenario: 'flapping-network', speed, state: 'ONLINE', variant: `online-${key}-${k}` }
          },
          contenders,
          profile.listRounds,
          ctx.progress
        )
        ctx.rows.push(...rows)
      }
      // On every fleet, as the lists of up to 20,000 agents are made once for every client (SharedList), and the longer ones once per client.
      if (lively) await memoryUnderLists(ctx, fleet, agents)
    } finally {
      await Promise.all(started.map((t) => t.close()))
    }
  }
}

/**
 * `profile.memoryClients` clients list every ONLINE agent of the fleet over and over for
 * `profile.memoryDuration` seconds while the server's RSS is sampled; one more client asks for
 * one agent all along, and its latency says whether the lists starve other requests.
 */
async function memoryUnderLists(ctx: SuiteContext, fleet: Target, agents: number): Promise<void> {
  const { profile } = ctx
  const [name] = await fleet.command({ op: 'names', state: 'ONLINE', count: 1 })
  await fleet.command({ op: 'sample-start', everyMs: 100 })
  const params = { agents, scenario: 'flapping-network', speed: LIVELY_SPEED, clients: profile.memoryClients }
  const [lists, small] = await Promise.all([
    runLoad(
      {
        group: MEMORY_GROUP,
        name: `fleetsim, ONLINE of ${short(agents)}, JSON, ${profile.memoryClients} clients`,
        target: 'fleetsim',
        origin: fleet.origin,
        path: PATH,
        headers: { ...AUTH_HEADERS, accept: 'application/json' },
        connections: profile.memoryClients,
        durationSeconds: profile.memoryDuration,
        timeoutSeconds: 120,
        large: true,
        params: { ...params, variant: `memory-lists-${short(agents)}` }
      },
      ctx.progress
    ),
    runLoad(
      {
        group: MEMORY_GROUP,
        name: `fleetsim, one agent while ${profile.memoryClients} clients list ${short(agents)}, JSON`,
        target: 'fleetsim',
        origin: fleet.origin,
        path: `${REST}/agentinfo?agentname=${encodeURIComponent(name)}`,
        headers: { ...AUTH_HEADERS, accept: 'application/json' },
        connections: 1,
        durationSeconds: profile.memoryDuration,
        params: { ...params, variant: `memory-small-${short(agents)}` }
      },
      ctx.progress
    )
  ])
  const rss = await fleet.command({ op: 'sample-stop' })
  ctx.rows.push(lists, small)
  ctx.memory.push({
    agents,
    clients: profile.memoryClients,
    seconds: profile.memoryDuration,
    rssMb: { before: round(rss.first / MB), max: round(rss.max / MB), growth: round((rss.max - rss.first) / MB) },
    smallRequestP99Ms: small.latencyMs.p99
  })
  ctx.progress(`${MEMORY_GROUP} | ${profile.memoryClients} clients listing ${short(agents)}: RSS ${round(rss.first / MB)} -> max ${round(rss.max / MB)} MB; one agent meanwhile p99 ${small.latencyMs.p99} ms`)
}
