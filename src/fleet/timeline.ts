/**
 * When timeline events occur: the pure schedule arithmetic, kept apart from what an event
 * does to the fleet (scenario-runtime.ts). Times are virtual seconds since the scenario's start.
 */
import type { Schedule } from '../scenario/types.js'

export interface Occurrence {
  /** index of the event in the scenario's timeline */
  event: number
  /** occurrence number of that event, from 0 */
  n: number
  at: number
}

/** The time of occurrence n of a schedule, or undefined when there is none. */
export function occurrenceTime(schedule: Schedule, n: number): number | undefined {
  if (schedule.kind === 'once') return n === 0 ? Math.round(schedule.at) : undefined
  if (schedule.times !== null && n >= schedule.times) return undefined
  const at = Math.round(schedule.start + n * schedule.every)
  if (schedule.until !== null && at > schedule.until) return undefined
  return at
}

/** Tracks the next occurrence of every event; `due(t)` hands out those at or before t. */
export class TimelineCursor {
  private readonly next: Array<number | undefined>
  private readonly count: number[]

  constructor(private readonly schedules: readonly Schedule[]) {
    this.count = schedules.map(() => 0)
    this.next = schedules.map((s) => occurrenceTime(s, 0))
  }

  /** The earliest pending occurrence time, or Infinity. */
  nextAt(): number {
    let earliest = Infinity
    for (const at of this.next) if (at !== undefined && at < earliest) earliest = at
    return earliest
  }

  /** Occurrences due at or before t, in time order then event order. */
  due(t: number): Occurrence[] {
    const out: Occurrence[] = []
    for (;;) {
      let pick = -1
      for (let e = 0; e < this.next.length; e++) {
        const at = this.next[e]
        if (at !== undefined && at <= t && (pick < 0 || at < (this.next[pick] as number))) pick = e
      }
      if (pick < 0) return out
      const n = this.count[pick]++
      out.push({ event: pick, n, at: this.next[pick] as number })
      this.next[pick] = occurrenceTime(this.schedules[pick], n + 1)
    }
  }

  /** Occurrences fired so far, by event index. */
  fired(): readonly number[] {
    return this.count
  }
}
