/**
 * Counters whose value is a running total kept elsewhere (the engine's stats). prom-client
 * counters cannot be set, and must never go down; so on each collect the counter is
 * incremented by how much the total grew since the previous collect. A total that shrank was
 * restarted from 0 (the engine zeroes its stats when the fleet is reset): the counter then grows
 * by the new total, so it stays monotonic and keeps counting what happens after the reset.
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
}

export function totalCounter<L extends string>(spec: TotalCounterSpec<L>): Counter<L> {
  const seen = new Map<string, number>()
  const counter: Counter<L> = new Counter<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers: [spec.registry],
    collect() {
      for (const [labels, total] of spec.read()) {
        const key = JSON.stringify(labels)
        const last = seen.get(key) ?? 0
        const delta = total >= last ? total - last : total
        if (delta > 0) {
          counter.inc(labels, delta)
          seen.set(key, total)
        } else if (!seen.has(key)) {
          // A label set whose total is still 0: export it as 0 so the series exists.
          counter.inc(labels, 0)
          seen.set(key, total)
        }
      }
    }
  })
  for (const labels of spec.initial ?? []) counter.inc(labels, 0)
  return counter
}
