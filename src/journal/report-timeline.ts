/**
 * The timeline of the client report: each request's latency and status over wall time, as
 * columns (what a chart reads), and the same per status class in numbers (what a reader
 * without the chart reads).
 *
 * Bounded: a journal may hold ten million entries, so past TIMELINE_POINTS requests the
 * timeline shows a sample of them: the failed ones first (up to half the points, evenly
 * spread if there are more), the rest spread evenly over the journal. The class summary
 * always counts every request.
 */
import type { JournalEntry } from './entry.js'

/** Requests the timeline shows at most. */
export const TIMELINE_POINTS = 10_000

/** Status classes as the report names them; `none`: no answer was sent (status 0). */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'none'] as const
export type StatusClass = (typeof STATUS_CLASSES)[number]

export interface ClassSummary {
  class: StatusClass
  requests: number
  /** latency, wall ms from arrival to answer */
  medianMs: number
  maxMs: number
}

export interface Timeline {
  /** wall time of the first request (ISO 8601): offsetsMs count from it; null without requests */
  from: string | null
  /** requests in the journal */
  requests: number
  /** true when the points are a sample (more requests than TIMELINE_POINTS) */
  sampled: boolean
  /** one column per field, one row per request shown, oldest first */
  ids: number[]
  offsetsMs: number[]
  durationsMs: number[]
  statuses: number[]
  /** every request by status class (classes without requests left out) */
  classes: ClassSummary[]
}

export function statusClass(status: number): StatusClass {
  if (status >= 200 && status < 300) return '2xx'
  if (status >= 300 && status < 400) return '3xx'
  if (status >= 400 && status < 500) return '4xx'
  if (status >= 500) return '5xx'
  return 'none'
}

const failed = (e: JournalEntry): boolean => e.status >= 400 || e.status < 200

export function buildTimeline(entries: readonly JournalEntry[], points = TIMELINE_POINTS): Timeline {
  const shown = entries.length <= points ? entries : sample(entries, points)
  const start = entries[0]?.wallMs ?? 0
  return {
    from: entries[0]?.time ?? null,
    requests: entries.length,
    sampled: shown.length < entries.length,
    ids: shown.map((e) => e.id),
    offsetsMs: shown.map((e) => e.wallMs - start),
    durationsMs: shown.map((e) => e.durationMs),
    statuses: shown.map((e) => e.status),
    classes: classSummaries(entries)
  }
}

/** `points` of the entries, oldest first: failed ones first (up to half), the rest evenly spread. */
function sample(entries: readonly JournalEntry[], points: number): JournalEntry[] {
  const failures = entries.filter(failed)
  const kept = spread(failures, Math.min(failures.length, Math.floor(points / 2)))
  const others = entries.filter((e) => !failed(e))
  const merged = [...kept, ...spread(others, points - kept.length)]
  return merged.sort((a, b) => a.id - b.id)
}

/** `count` items of `list`, evenly spread from its first to its last. */
function spread<T>(list: readonly T[], count: number): T[] {
  if (count >= list.length) return [...list]
  if (count <= 0) return []
  if (count === 1) return [list[0]]
  const step = (list.length - 1) / (count - 1)
  return Array.from({ length: count }, (_, k) => list[Math.round(k * step)])
}

function classSummaries(entries: readonly JournalEntry[]): ClassSummary[] {
  const latencies = new Map<StatusClass, number[]>()
  for (const e of entries) {
    const klass = statusClass(e.status)
    const list = latencies.get(klass)
    if (list === undefined) latencies.set(klass, [e.durationMs])
    else list.push(e.durationMs)
  }
  return STATUS_CLASSES.filter((klass) => latencies.has(klass)).map((klass) => {
    const sorted = (latencies.get(klass) as number[]).sort((a, b) => a - b)
    return { class: klass, requests: sorted.length, medianMs: sorted[Math.floor((sorted.length - 1) / 2)], maxMs: sorted[sorted.length - 1] }
  })
}
