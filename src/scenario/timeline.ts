/**
 * Timeline events: fleet-wide actions at given virtual times, once or repeating.
 *
 * ```yaml
 * - at: 10m
 *   select: { state: ONLINE }
 *   pick: { fraction: 0.3 }
 *   action: offline
 *   for: 5m
 * - every: 1h
 *   start: 30m
 *   action: restart-modules
 *   spread: 10m
 * ```
 */
import { fields, integer, text, wholeDuration, type Fields, type Path, type Read, type Sink } from './check.js'
import { ACTION_KEYS, timedAction } from './action.js'
import { pick } from './pick.js'
import { ANY, selector } from './selector.js'
import type { Pick, Schedule, TimelineEvent } from './types.js'

export const EVENT_KEYS = ['name', 'at', 'every', 'start', 'until', 'times', 'select', 'pick', 'spread', ...ACTION_KEYS] as const

function schedule(f: Fields): Schedule | undefined {
  if (f.has('at') && f.has('every')) {
    return f.sink.add('FSC_CONFLICT', f.path, 'expected one of "at" or "every", got both')
  }
  if (f.has('at')) {
    for (const key of ['start', 'until', 'times']) f.forbid(key, 'with "at"; it belongs to a repeating event ("every")')
    const at = f.req('at', wholeDuration)
    return at === undefined ? undefined : { kind: 'once', at }
  }
  if (!f.has('every')) return f.sink.add('FSC_MISSING', f.path, 'missing "at" or "every" (when the event fires)')
  const every = f.req('every', (v, p, s) => {
    const d = wholeDuration(v, p, s)
    return d === 0 ? s.add('FSC_DURATION', p, 'expected a duration greater than 0, got 0') : d
  })
  const start = f.opt('start', wholeDuration, 0)
  const until = f.opt('until', wholeDuration, null)
  const times = f.opt('times', integer(1), null)
  if (every === undefined || start === undefined || until === undefined || times === undefined) return undefined
  if (until !== null && until < start) {
    return f.sink.add('FSC_NUMBER', f.at('until'), `expected "until" at or after "start", got ${String(f.value.until)}`)
  }
  return { kind: 'every', every, start, until, times }
}

export function timelineEvent(index: number): Read<TimelineEvent> {
  return (value: unknown, path: Path, sink: Sink) => {
    const f = fields(value, path, sink, EVENT_KEYS, 'a timeline event mapping')
    if (f === undefined) return undefined
    const when = schedule(f)
    const timed = timedAction(f, 'timeline')
    const type = timed?.action.type
    let select = f.opt('select', selector(), ANY)
    let chosen: Pick | undefined = f.opt('pick', pick, { kind: 'all' })
    const spread = f.opt('spread', wholeDuration, 0)
    if (type === 'manager-restart') {
      for (const key of ['select', 'pick', 'spread']) f.forbid(key, 'with "manager-restart"; it locks out the whole fleet')
      select = ANY
    }
    if (type === 'join') {
      f.forbid('select', 'with "join"; new agents take the fleet mix')
      if (!f.has('pick')) {
        chosen = f.sink.add('FSC_MISSING', f.path, 'missing required key "pick" ({count: N}, how many agents join)')
      } else if (chosen !== undefined && chosen.kind !== 'count') {
        chosen = f.sink.add('FSC_NOT_ALLOWED', f.at('pick'), 'expected {count: N} with "join", got a fraction or all')
      }
    }
    const name = f.opt('name', text, `${type ?? 'event'}-${index + 1}`)
    if (when === undefined || timed === undefined || select === undefined || chosen === undefined || spread === undefined || name === undefined) {
      return undefined
    }
    return { name, schedule: when, select, pick: chosen, spread, ...timed }
  }
}
