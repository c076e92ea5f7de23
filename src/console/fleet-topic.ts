/**
 * The `fleet` topic of the console stream (stream.ts): the fleet's counts by state, its virtual
 * time next to the wall time, the clock's speed and pause, and the chart's samples.
 *
 * A client's first event carries the whole chart series; later ones carry the samples it has
 * not seen (or the whole series again after a reset or a thinning of the history). An event
 * goes out only when something but the wall time changed: a paused, quiet fleet sends nothing.
 */
import type { FleetEngine } from '../fleet/fleet.js'
import type { AgentStateName } from '../protocol/states.js'
import type { ChartSample, ChartSeries, FleetHistory } from './fleet-history.js'
import type { StreamTopic } from './stream.js'

export interface FleetSummary {
  agents: number
  byState: Record<AgentStateName, number>
  /** the fleet's virtual time (the second it has been stepped to), epoch ms */
  virtualMs: number
  /** the virtual clock's own time, epoch ms (ahead of virtualMs by the fleet's lag) */
  clockMs: number
  /** wall time when this was read, epoch ms */
  wallMs: number
  speed: number
  paused: boolean
  lockedOut: boolean
  /** the running scenario's name, null for the default fleet */
  scenario: string | null
}

export interface FleetEvent {
  summary: FleetSummary
  /** the whole history: on a client's first event, and after the history was rebuilt */
  series?: ChartSeries
  /** samples after the ones this client has */
  samples?: ChartSample[]
}

export function fleetSummary(engine: FleetEngine, wallNow: () => number = Date.now): FleetSummary {
  const { agents, byState } = engine.counts()
  const clock = engine.clockState()
  return {
    agents,
    byState: { ...byState },
    virtualMs: engine.now(),
    clockMs: Math.floor(clock.now),
    wallMs: wallNow(),
    speed: clock.speed,
    paused: clock.paused,
    lockedOut: engine.lockedOut,
    scenario: engine.scenarioTimeline()?.name ?? null
  }
}

/** What tells one summary from the next, the wall and clock times aside (they always move). */
function changeKey(summary: FleetSummary): string {
  return JSON.stringify([summary.agents, summary.byState, summary.virtualMs, summary.speed, summary.paused, summary.lockedOut, summary.scenario])
}

export function fleetTopic(engine: FleetEngine, history: FleetHistory): StreamTopic {
  // One read of the fleet per tick, whatever the number of clients.
  let memo: { tick: number; summary: FleetSummary; key: string } | undefined
  const read = (tick: number) => {
    if (memo?.tick !== tick) {
      history.record()
      const summary = fleetSummary(engine)
      memo = { tick, summary, key: changeKey(summary) }
    }
    return memo
  }
  return {
    event: 'fleet',
    subscribe() {
      let sentKey: string | undefined
      let generation = -1
      let seq = 0
      return (tick) => {
        // Nothing while the fleet is rebuilt (it has none, then some, of its agents): the next tick after says it whole.
        if (engine.resetting() !== undefined) return undefined
        const { summary, key } = read(tick)
        const fresh = generation !== history.generation
        const samples = fresh ? [] : history.after(seq)
        if (!fresh && samples.length === 0 && key === sentKey) return undefined
        sentKey = key
        generation = history.generation
        seq = history.lastSeq()
        const event: FleetEvent = fresh ? { summary, series: history.series() } : { summary, samples }
        return event
      }
    }
  }
}
