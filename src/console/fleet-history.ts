/**
 * What the Fleet page's chart draws: agents by state sampled over virtual time, the timeline
 * events that fired, and the manager lockouts, in the series and sample forms of the shared
 * fleet chart (web/chart/fleet-chart.js).
 *
 * A sample is taken when asked (the console stream's ticks, and a slow timer while no page is
 * open) and only when the fleet's virtual second moved, so a paused fleet adds nothing (its last
 * sample is taken again in place when its counts change). The
 * history is bounded: when full, every other sample is dropped, so it keeps covering the whole
 * run at half the resolution. A reset (new scenario, POST /__admin/reset) starts it afresh.
 */
import { AGENT_STATES, type AgentStateName } from '../protocol/states.js'
import { occurrenceTime } from '../fleet/timeline.js'
import type { FleetEngine } from '../fleet/fleet.js'
import type { VirtualClock } from '../fleet/clock.js'

/** Most samples kept; past it every other one goes. */
export const MAX_SAMPLES = 2000
/** Most event markers kept (an event every 10 s fires 8,640 times a day). */
export const MAX_EVENTS = 500

export type ByState = Record<AgentStateName, number>

export interface ChartEvent {
  /** virtual seconds since the run's start */
  second: number
  label: string
}

/** One sample, as the fleet chart's `push` takes it. */
export interface ChartSample {
  second: number
  byState: ByState
  /** timeline events that fired since the previous sample */
  events?: ChartEvent[]
  lockedOut: boolean
}

/** The whole history, as the fleet chart's `setData` takes it. */
export interface ChartSeries {
  /** epoch ms of virtual second 0 */
  startTime: number
  seconds: number[]
  byState: Record<AgentStateName, number[]>
  events: ChartEvent[]
  lockouts: Array<{ from: number; to: number | null }>
}

interface Stored extends ChartSample {
  /** position in the history, from 1; never reused within a generation */
  seq: number
}

export class FleetHistory {
  private samples: Stored[] = []
  private events: ChartEvent[] = []
  private nextSeq = 1
  /** moves on when the history is rebuilt (reset) or thinned: readers start from a full series */
  generation = 0
  private clock: VirtualClock | undefined
  private fired: number[] = []

  constructor(
    private readonly engine: FleetEngine,
    private readonly maxSamples = MAX_SAMPLES
  ) {}

  /**
   * Takes a sample if the fleet's virtual second moved since the last one (or the run changed).
   * Within one second, a sample whose counts no longer hold is taken again in its place (a
   * paused fleet changed by an operation, or a scenario loaded while paused: its first sample
   * may come before its agents), and readers start again from the whole series.
   */
  record(): void {
    const { engine } = this
    // A fleet being rebuilt has none, then some, of its agents: its first sample is taken once it is whole.
    if (engine.resetting() !== undefined) return
    if (engine.clock !== this.clock) this.restart()
    const second = engine.second()
    const last = this.samples.at(-1)
    const counts = engine.counts().byState
    if (last !== undefined && last.second === second) {
      if (last.lockedOut === engine.lockedOut && AGENT_STATES.every((state) => last.byState[state] === counts[state])) return
      last.byState = Object.fromEntries(AGENT_STATES.map((state) => [state, counts[state]])) as ByState
      last.lockedOut = engine.lockedOut
      this.generation++
      return
    }
    const events = this.newEvents()
    const byState = Object.fromEntries(AGENT_STATES.map((state) => [state, counts[state]])) as ByState
    const sample: Stored = { seq: this.nextSeq++, second, byState, lockedOut: engine.lockedOut, ...(events.length > 0 ? { events } : {}) }
    this.samples.push(sample)
    if (this.samples.length > this.maxSamples) this.thin()
  }

  /** Samples after `seq` (for a reader of this generation), oldest first. */
  after(seq: number): ChartSample[] {
    const out: ChartSample[] = []
    for (let k = this.samples.length - 1; k >= 0 && this.samples[k].seq > seq; k--) out.push(strip(this.samples[k]))
    return out.reverse()
  }

  /** seq of the newest sample (0 when none). */
  lastSeq(): number {
    return this.samples.at(-1)?.seq ?? 0
  }

  series(): ChartSeries {
    const byState = Object.fromEntries(AGENT_STATES.map((state) => [state, this.samples.map((s) => s.byState[state])])) as Record<AgentStateName, number[]>
    const lockouts: ChartSeries['lockouts'] = []
    for (const sample of this.samples) {
      const open = lockouts.at(-1)
      if (sample.lockedOut && (open === undefined || open.to !== null)) lockouts.push({ from: sample.second, to: null })
      else if (!sample.lockedOut && open !== undefined && open.to === null) open.to = sample.second
    }
    return { startTime: this.engine.clock.epochMs, seconds: this.samples.map((s) => s.second), byState, events: [...this.events], lockouts }
  }

  private restart(): void {
    this.clock = this.engine.clock
    this.samples = []
    this.events = []
    this.fired = []
    this.generation++
  }

  /** Every other sample goes (the newest stays); its events move to the sample kept after it. */
  private thin(): void {
    const kept: Stored[] = []
    let carried: ChartEvent[] = []
    this.samples.forEach((sample, k) => {
      const keep = (this.samples.length - 1 - k) % 2 === 0
      if (!keep) {
        carried = carried.concat(sample.events ?? [])
        return
      }
      const events = carried.concat(sample.events ?? [])
      carried = []
      kept.push({ ...sample, ...(events.length > 0 ? { events } : {}) })
    })
    this.samples = kept
    this.generation++
  }

  /**
   * Occurrences fired since the last look, at the virtual second each was scheduled for: the
   * newest MAX_EVENTS of them, as the history keeps no more. A timeline event every millisecond
   * at speed 300 fires some 300,000 times between two samples; spreading them into one push
   * overflowed the stack and took the server down.
   */
  private newEvents(): ChartEvent[] {
    const timeline = this.engine.scenarioTimeline()
    if (timeline === undefined) return []
    let out: ChartEvent[] = []
    timeline.fired.forEach((count, k) => {
      const event = timeline.events[k]
      for (let n = Math.max(this.fired[k] ?? 0, count - MAX_EVENTS); n < count; n++) {
        const at = occurrenceTime(event.schedule, n)
        if (at !== undefined) out.push({ second: at, label: `${event.name} (${event.action.type})` })
      }
      this.fired[k] = count
    })
    out.sort((a, b) => a.second - b.second)
    if (out.length > MAX_EVENTS) out = out.slice(out.length - MAX_EVENTS)
    for (const event of out) this.events.push(event)
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS)
    return out
  }
}

function strip(sample: Stored): ChartSample {
  const { seq: _seq, ...rest } = sample
  return rest
}
