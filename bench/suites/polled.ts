/**
 * `polled`: agentinfo for one agent by name, the same URL again and again, as a poller asks:
 * JSON, XML, with and without modules, over HTTP and HTTPS, while the fleet steps under a
 * lively scenario (so kept answers expire as the agent changes). Each variant is measured next to a bare
 * fastify route (and for JSON a plain node:http server) answering the very same bytes.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AUTH_HEADERS, LIVELY_SPEED, REST, agentinfoFleet, type SuiteContext } from '../lib/context.js'
import { fetchAnswer, runLoad, type LoadSpec } from '../lib/load.js'
import type { BareRoute } from '../lib/protocol.js'
import { applyRatios, mergeRounds, type LoadRow } from '../lib/results.js'
import type { Target } from '../lib/target.js'

interface Variant {
  key: string
  label: string
  accept: 'application/json' | 'application/xml'
  modules: boolean
  https: boolean
}

export const GROUP = 'agentinfo one agent, polled'

export async function polledSuite(ctx: SuiteContext): Promise<void> {
  const { profile } = ctx
  const fleetSpec = agentinfoFleet(ctx)
  const fleet = await ctx.start({ ...fleetSpec, tls: ctx.tls })
  const targets: Target[] = [fleet]
  try {
    const [name] = await fleet.command({ op: 'names', state: 'ONLINE', count: 1 })
    const fleetParams = { agents: profile.agentinfoFleet, scenario: 'flapping-network', speed: LIVELY_SPEED }
    const variants: Variant[] = [
      { key: 'json', label: 'JSON', accept: 'application/json', modules: false, https: false },
      { key: 'xml', label: 'XML', accept: 'application/xml', modules: false, https: false },
      { key: 'json-modules', label: 'JSON with modules', accept: 'application/json', modules: true, https: false },
      ...(profile.allVariants ? [{ key: 'xml-modules', label: 'XML with modules', accept: 'application/xml', modules: true, https: false } as const] : []),
      { key: 'json-https', label: 'JSON over HTTPS', accept: 'application/json', modules: false, https: true }
    ]
    const pathOf = (v: Variant, agent = name) => `${REST}/agentinfo?agentname=${encodeURIComponent(agent)}${v.modules ? '&agentwithmodules=true' : ''}`
    const headersOf = (v: Variant) => ({ ...AUTH_HEADERS, accept: v.accept })
    const originOf = (target: Target, v: Variant) => (v.https ? (target.tlsOrigin as string) : target.origin)
    /** A bare route answering what `target` answers for variant v of agent `agent`, its body saved as `file`. */
    const capture = async (target: Target, v: Variant, agent: string, file: string): Promise<{ route: BareRoute; bytes: number }> => {
      const answer = await fetchAnswer(target.origin, pathOf(v, agent), { headers: headersOf(v) })
      if (answer.status !== 200) throw new Error(`agentinfo ${v.key} answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`)
      const bodyFile = join(ctx.scratch, file)
      await writeFile(bodyFile, answer.body)
      return { route: { method: 'GET', path: `/baseline/${v.key}`, status: 200, contentType: answer.contentType, bodyFile }, bytes: answer.body.length }
    }
    // The baselines answer what fleetsim answered: one capture per variant.
    const routes: BareRoute[] = []
    for (const v of variants) {
      const { route, bytes } = await capture(fleet, v, name, `agentinfo-${v.key}.body`)
      routes.push(route)
      ctx.notes.push(`agentinfo ${v.label}: ${bytes} bytes per answer`)
    }
    const fastify = await ctx.start({ kind: 'fastify', routes, tls: ctx.tls })
    targets.push(fastify)
    const node = await ctx.start({ kind: 'node', routes, tls: ctx.tls })
    targets.push(node)

    const rows: LoadRow[] = []
    const load = (spec: Omit<LoadSpec, 'group' | 'connections' | 'durationSeconds'>) =>
      runLoad({ ...spec, group: GROUP, connections: profile.connections, durationSeconds: profile.duration, warmupSeconds: profile.warmup }, ctx.progress)
    const run = async (spec: Omit<LoadSpec, 'group' | 'connections' | 'durationSeconds'>) => rows.push(await load(spec))
    /** The load of variant v on a bare fastify route and on fleetsim, asking about `agent`. */
    const loadsOf = (v: Variant, bareServer: Target, ourServer: Target, agent = name) => {
      const base = { headers: headersOf(v), params: { variant: v.key } }
      return {
        bare: { ...base, name: `bare fastify, ${v.label}`, target: 'fastify', server: bareServer, origin: originOf(bareServer, v), path: `/baseline/${v.key}` },
        ours: { ...base, name: `fleetsim, ${v.label}`, target: 'fleetsim', server: ourServer, origin: originOf(ourServer, v), path: pathOf(v, agent), params: { ...base.params, ...fleetParams } }
      } as const
    }
    /** Another fleetsim like the first (plain HTTP) and a bare fastify route answering what it answers. */
    const freshPair = async (v: Variant, k: number) => {
      const ownFleet = await ctx.start(fleetSpec)
      const started: Target[] = [ownFleet]
      const close = () => Promise.all(started.map((t) => t.close())).then(() => undefined)
      try {
        const [agent] = await ownFleet.command({ op: 'names', state: 'ONLINE', count: 1 })
        const { route } = await capture(ownFleet, v, agent, `agentinfo-${v.key}-round-${k}.body`)
        const ownFastify = await ctx.start({ kind: 'fastify', routes: [route] })
        started.push(ownFastify)
        return { ...loadsOf(v, ownFastify, ownFleet, agent), close }
      } catch (error) {
        await close()
        throw error
      }
    }
    for (const v of variants) {
      const base = { headers: headersOf(v), params: { variant: v.key } }
      if (v.key === 'json' || (v.key === 'json-https' && profile.allVariants)) {
        await run({ ...base, name: `bare node:http, ${v.label}`, target: 'node', server: node, origin: originOf(node, v), path: `/baseline/${v.key}` })
      }
      const { bare, ours } = loadsOf(v, fastify, fleet)
      // The headline ratio alternates the two servers over several rounds, so a burst of
      // other load on the machine hits both alike, and each round after the first runs on a
      // fresh pair of processes: a process's cost per answer is set for its lifetime, and now
      // and then it is set high (bench/README.md, "Reading the numbers"), so one such process
      // is one round of several. The median round of each server is reported.
      const rounds = v.key === 'json' ? profile.jsonRounds : 1
      const bareRounds: LoadRow[] = []
      const ourRounds: LoadRow[] = []
      for (let k = 0; k < rounds; k++) {
        const fresh = k === 0 ? undefined : await freshPair(v, k)
        try {
          bareRounds.push(await load(fresh?.bare ?? bare))
          ourRounds.push(await load(fresh?.ours ?? ours))
        } finally {
          await fresh?.close()
        }
      }
      rows.push(mergeRounds(bareRounds), mergeRounds(ourRounds))
    }
    // The same JSON request on a paused clock: what the stepping costs the answers.
    const json = variants[0]
    await fleet.command({ op: 'clock', paused: true })
    await run({
      name: 'fleetsim, JSON, clock paused',
      target: 'fleetsim',
      server: fleet,
      origin: fleet.origin,
      path: pathOf(json),
      headers: headersOf(json),
      params: { variant: 'json', agents: profile.agentinfoFleet, scenario: 'flapping-network', paused: true }
    })
    // What two defaults of `fleetsim serve` cost: the request journal, and request lines at info.
    if (profile.allVariants) {
      const configurations = [
        { label: '--journal-size 0', serveFlags: ['--journal-size', '0'] },
        { label: '--log-level info', serveFlags: ['--log-level', 'info'], discardLogs: true }
      ]
      for (const { label, ...flags } of configurations) {
        const configured = await ctx.start({ ...fleetSpec, ...flags })
        targets.push(configured)
        await run({
          name: `fleetsim, JSON, ${label}`,
          target: 'fleetsim',
          server: configured,
          origin: configured.origin,
          path: pathOf(json),
          headers: headersOf(json),
          params: { variant: 'json', ...fleetParams, flags: label }
        })
      }
    }
    applyRatios(rows, (row) => rows.find((r) => r.target === 'fastify' && r.params.variant === row.params.variant))
    ctx.rows.push(...rows)
  } finally {
    await Promise.all(targets.map((t) => t.close()))
  }
}
