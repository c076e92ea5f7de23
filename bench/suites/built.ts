/**
 * `built`: agentinfo for one agent, 2,000 different agents in turn, so every answer is built
 * (no kept answer is ever asked for again while still true). One counter is shared by all
 * connections, so concurrent requests ask for different agents. JSON and XML, with and
 * without modules, over HTTP and HTTPS, while the fleet steps under a lively scenario.
 *
 * Next to fleetsim, in the same rounds: bare fastify and node:http sending the bytes fleetsim
 * sent for each of those requests, and WireMock (the peer) with one stub per request.
 *
 * Why the clock runs at speed 600 here too: the fleet then steps every 40 ms, so an agent asked
 * for again 2,000 requests later has moved on and its answer is built anew. At speed 1 the
 * fleet changes once a second, and at a few thousand requests a second many answers would be
 * the kept ones: the workload would no longer measure building.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AUTH_HEADERS, LIVELY_SPEED, REST, agentinfoFleet, type SuiteContext } from '../lib/context.js'
import { compareRounds, type Contender } from '../lib/compare.js'
import { fetchAnswer } from '../lib/load.js'
import { answerKey, type BareAnswers } from '../lib/protocol.js'
import type { Target } from '../lib/target.js'
import { startWiremock, wiremockUnavailable } from '../lib/wiremock.js'

export const GROUP = 'agentinfo, every answer built'
/** Different agents asked for in turn. */
export const BUILT_AGENTS = 2000

export interface Variant {
  key: string
  label: string
  accept: 'application/json' | 'application/xml'
  modules: boolean
  https: boolean
}

export const BUILT_VARIANTS: readonly Variant[] = [
  { key: 'json', label: 'JSON', accept: 'application/json', modules: false, https: false },
  { key: 'xml', label: 'XML', accept: 'application/xml', modules: false, https: false },
  { key: 'json-modules', label: 'JSON with modules', accept: 'application/json', modules: true, https: false },
  { key: 'xml-modules', label: 'XML with modules', accept: 'application/xml', modules: true, https: false },
  { key: 'json-https', label: 'JSON over HTTPS', accept: 'application/json', modules: false, https: true },
  { key: 'xml-https', label: 'XML over HTTPS', accept: 'application/xml', modules: false, https: true }
]

/** The request of a variant for one agent. */
export const builtPath = (v: Pick<Variant, 'modules'>, agent: string) => `${REST}/agentinfo?agentname=${encodeURIComponent(agent)}${v.modules ? '&agentwithmodules=true' : ''}`

/**
 * What `fleet` answers to every request of every variant, one agent of `names` at a time, written
 * to `answersFile` for the baselines and the peer to send the same bytes for the same requests.
 * `note` gets each variant's average answer length.
 */
export async function recordBuiltAnswers(fleet: Target, variants: readonly Variant[], names: readonly string[], answersFile: string, note: (line: string) => void): Promise<BareAnswers[]> {
  const recorded: Record<string, { contentType: string; body: string }> = {}
  for (const v of variants) {
    const origin = v.https ? (fleet.tlsOrigin as string) : fleet.origin
    let bytes = 0
    for (const name of names) {
      const path = builtPath(v, name)
      const answer = await fetchAnswer(origin, path, { headers: { ...AUTH_HEADERS, accept: v.accept } })
      if (answer.status !== 200) throw new Error(`agentinfo ${v.key} for ${name} answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`)
      recorded[answerKey(v.https ? 'https' : 'http', v.accept, path)] = { contentType: answer.contentType, body: answer.body.toString() }
      bytes += answer.body.length
    }
    note(`built ${v.label}: ${names.length} agents in turn, ${Math.round(bytes / names.length)} bytes per answer on average`)
  }
  await writeFile(answersFile, JSON.stringify(recorded))
  return [{ method: 'GET', path: `${REST}/agentinfo`, answersFile }]
}

export async function builtSuite(ctx: SuiteContext): Promise<void> {
  const { profile } = ctx
  const variants = BUILT_VARIANTS.filter((v) => profile.allVariants || ['json', 'xml', 'json-modules', 'json-https'].includes(v.key))
  const fleet = await ctx.start(agentinfoFleet(ctx, { tls: ctx.tls }))
  const started: Target[] = [fleet]
  try {
    const names = await fleet.command({ op: 'names', count: Math.min(BUILT_AGENTS, profile.agentinfoFleet) })
    const answers = await recordBuiltAnswers(fleet, variants, names, join(ctx.scratch, 'built-answers.json'), (note) => ctx.notes.push(note))
    const fastify = await ctx.start({ kind: 'fastify', routes: [], answers, tls: ctx.tls })
    started.push(fastify)
    const node = await ctx.start({ kind: 'node', routes: [], answers, tls: ctx.tls })
    started.push(node)
    const unavailable = wiremockUnavailable()
    const peer = unavailable === undefined ? await startWiremock(join(ctx.scratch, 'wiremock-built'), { routes: [], answers }, true) : undefined
    if (peer !== undefined) started.push(peer)
    else ctx.notes.push(`built: ${unavailable}`)

    for (const v of variants) {
      const originOf = (target: Target) => (v.https ? (target.tlsOrigin as string) : target.origin)
      const contenders: Contender[] = [
        { target: 'fastify', name: `bare fastify, ${v.label}`, server: fastify, origin: originOf(fastify) },
        ...(v.key === 'json' || v.key === 'json-https' ? [{ target: 'node' as const, name: `bare node:http, ${v.label}`, server: node, origin: originOf(node) }] : []),
        ...(peer === undefined ? [] : [{ target: 'wiremock' as const, name: `WireMock, ${v.label}`, server: peer, origin: originOf(peer) }]),
        { target: 'fleetsim', name: `fleetsim, ${v.label}`, server: fleet, origin: originOf(fleet) }
      ]
      // One counter for all connections: concurrent requests ask for different agents.
      let next = 0
      const rows = await compareRounds(
        {
          group: GROUP,
          path: builtPath(v, names[0]),
          nextPath: () => builtPath(v, names[next++ % names.length]),
          headers: { ...AUTH_HEADERS, accept: v.accept },
          connections: profile.connections,
          durationSeconds: profile.duration,
          warmupSeconds: profile.warmup,
          params: { variant: v.key, agents: profile.agentinfoFleet, inTurn: names.length, scenario: 'flapping-network', speed: LIVELY_SPEED }
        },
        contenders,
        profile.comparisonRounds,
        ctx.progress
      )
      ctx.rows.push(...rows)
    }
  } finally {
    await Promise.all(started.map((t) => t.close()))
  }
}
