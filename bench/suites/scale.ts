/**
 * The fleet at scale (issue 3, item 8): for each size, a fresh process builds the default
 * fleet, then the suite measures RSS, stepping flat out and one round per virtual second,
 * CPU at speed 1, and agentinfo for one agent while the fleet steps flat out. The smallest
 * fleet also steps 24 virtual hours (target: under 30 s of wall time for 10k agents).
 */
import { AUTH_HEADERS, REST, type SuiteContext } from '../lib/context.js'
import { runLoad } from '../lib/load.js'

export const GROUP = 'scale'
const MB = 1024 * 1024
const DAY = 86_400
/** A speed the fleet cannot keep up with: it steps back to back. */
const FLAT_OUT_SPEED = 1_000_000

const round = (value: number, digits = 1) => Number(value.toFixed(digits))

/** Virtual seconds to step flat out: a day for small fleets, less for large ones (about the same agent-steps). */
function fullSpeedSeconds(agents: number, smallest: boolean, smoke: boolean): number {
  if (smallest) return smoke ? 3600 : DAY
  return Math.max(3600, Math.min(DAY, Math.round((1e9 / agents) / 3600) * 3600))
}

export async function scaleSuite(ctx: SuiteContext): Promise<void> {
  const { profile } = ctx
  const smallest = Math.min(...profile.scaleFleets)
  const largest = Math.max(...profile.scaleFleets)
  for (const agents of profile.scaleFleets) {
    ctx.progress(`${GROUP} | ${agents} agents: building`)
    const fleet = await ctx.start({ kind: 'fleetsim', agents, seed: 1, speed: 1, paused: true, caFingerprint: ctx.caFingerprint })
    try {
      const { ready } = fleet
      const seconds = fullSpeedSeconds(agents, agents === smallest, ctx.profileName === 'smoke')
      const full = await fleet.command({ op: 'advance', seconds, chunk: seconds })
      const perSecondCount = ctx.profileName === 'smoke' ? 10 : agents >= 1_000_000 ? 30 : 100
      const perSecond = await fleet.command({ op: 'advance', seconds: perSecondCount, chunk: 1 })
      const window = agents === largest ? profile.cpuWindowLargest : profile.cpuWindow
      const cpu = await fleet.command({ op: 'cpu', seconds: window, speed: 1 })

      // agentinfo for one agent while the fleet steps as fast as it can.
      const [name] = await fleet.command({ op: 'names', state: 'ONLINE', count: 1 })
      const before = await fleet.command({ op: 'stats' })
      await fleet.command({ op: 'clock', paused: false, speed: FLAT_OUT_SPEED })
      const load = await runLoad(
        {
          group: GROUP,
          name: `agentinfo one agent JSON while ${agents} agents step flat out`,
          target: 'fleetsim',
          server: fleet,
          origin: fleet.origin,
          path: `${REST}/agentinfo?agentname=${encodeURIComponent(name)}`,
          headers: { ...AUTH_HEADERS, accept: 'application/json' },
          connections: profile.connections,
          durationSeconds: profile.steppingDuration,
          params: { agents, speed: FLAT_OUT_SPEED }
        },
        ctx.progress
      )
      await fleet.command({ op: 'clock', paused: true })
      const after = await fleet.command({ op: 'stats' })
      const fullRate = seconds / (full.wallMs / 1000)
      ctx.scale.push({
        agents,
        buildSeconds: round(ready.buildMs / 1000, 2),
        rssMb: round(ready.rssAfterBuild / MB),
        bytesPerAgent: Math.round((ready.rssAfterBuild - ready.rssBeforeBuild) / agents),
        fullSpeed: { virtualSecondsPerWallSecond: Math.round(fullRate), agentStepsPerSecond: Math.round(fullRate * agents), rounds: full.rounds },
        perSecondRounds: { roundMs: round(perSecond.wallMs / perSecondCount, 2), virtualSecondsPerWallSecond: Math.round(perSecondCount / (perSecond.wallMs / 1000)) },
        cpuAtSpeed1: { cores: round(cpu.cores, 3), windowSeconds: round(cpu.wallMs / 1000, 1), virtualSeconds: cpu.virtualSeconds },
        agentinfoWhileStepping: {
          requestsPerSec: load.requestsPerSec,
          p50: load.latencyMs.p50,
          p99: load.latencyMs.p99,
          errors: load.errors + load.timeouts + load.non2xx,
          virtualSecondsStepped: after.second - before.second
        },
        dayWallSeconds: seconds === DAY ? round(full.wallMs / 1000, 2) : null
      })
      const row = ctx.scale[ctx.scale.length - 1]
      ctx.progress(
        `${GROUP} | ${agents} agents: built in ${row.buildSeconds} s, RSS ${row.rssMb} MB (${row.bytesPerAgent} B/agent), ` +
          `${row.fullSpeed.virtualSecondsPerWallSecond} virtual s/s flat out (${row.fullSpeed.agentStepsPerSecond} agent-steps/s), ` +
          `round ${row.perSecondRounds.roundMs} ms, CPU at speed 1 ${row.cpuAtSpeed1.cores} cores` +
          (row.dayWallSeconds !== null ? `, 24 virtual h in ${row.dayWallSeconds} s` : '')
      )
      load.params.virtualSecondsStepped = row.agentinfoWhileStepping.virtualSecondsStepped
      ctx.rows.push(load)
    } finally {
      await fleet.close()
    }
  }
}
