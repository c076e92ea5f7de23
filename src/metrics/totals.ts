/**
 * Counters whose value is a running total kept elsewhere (the engine's stats). prom-client
 * counters cannot be set, and must never go down; so on each collect the counter is
 * incremented by how much the total grew since the previous collect.
 *
 * The engine zeroes its totals when the fleet is reset or a scenario is loaded, and says so by
 * `restarts` (FleetStats.restarts): then the whole total is new, whatever it is by the next
 * collect. Read from the totals alone, a restart was seen only when a total came back lower than
 * the last collect's, and what happened after it was lost until the total passed the old one: a
 * run repeated with the same seed reaches the same totals, and counted nothing. Series the totals
 * no longer hold after a restart (a former scenario's events) are removed, so one process
 * loading scenario after scenario does not keep every earlier one's series.
 */
import { Counter, type Registry } from 'prom-client'

type Labels<L extends string> = Partial<Record<L, string>>

export interface TotalCounterSpec<L extends string> {
  name: string
  help: string
  registry: Registry
  labelNames?: readonly L[]
  /** the current totals, one per label set (an unlabelled counter yields one entry with `{}`) */
  read(): Iterable<[Labels<L>, number]>
  /** label sets exported as 0 before their first increment, so rate() works from the start */
  initial?: ReadonlyArray<Labels<L>>
  /** how many times the totals were zeroed; a change means they started again from 0 (default: never) */
  restarts?: () => number
}

export function totalCounter<L extends string>(spec: TotalCounterSpec<L>): Counter<L> {
  const seen = new Map<string, { labels: Labels<L>; total: number }>()
  const initial = new Set((spec.initial ?? []).map((labels) => JSON.stringify(labels)))
  let restarts = spec.restarts?.() ?? 0
  const counter: Counter<L> = new Counter<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers: [spec.registry],
    collect() {
      const now = spec.restarts?.() ?? 0
      const restarted = now !== restarts
      restarts = now
      const before = restarted ? new Map(seen) : undefined
      if (restarted) seen.clear()
      for (const [labels, total] of spec.read()) {
        const key = JSON.stringify(labels)
        const last = seen.get(key)?.total ?? 0
        // Lower than last time without a restart said: the totals were zeroed all the same.
        const delta = total >= last ? total - last : total
        // A label set whose total is still 0 is exported as 0, so the series exists.
        if (delta > 0 || !seen.has(key)) counter.inc(labels, delta)
        seen.set(key, { labels, total })
      }
      for (const [key, { labels }] of before ?? []) if (!seen.has(key) && !initial.has(key)) counter.remove(labels)
    }
  })
  for (const labels of spec.initial ?? []) counter.inc(labels, 0)
  return counter
}
