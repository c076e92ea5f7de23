/**
 * Stages: continuous per-agent rules in kwok's spirit.
 *
 * ```yaml
 * - name: flap
 *   select: { state: ONLINE, label: "network=wifi" }
 *   pick: { fraction: 0.1 }
 *   rate: 2/h                  # or delay: { after: 5m, jitter: 1m }
 *   next: { action: offline, for: 30s }
 * ```
 */
import { fields, integer, isMapping, rate, text, wholeDuration, type Fields, type Path, type Read, type Sink } from './check.js'
import { next } from './action.js'
import { pick } from './pick.js'
import { ANY, selector } from './selector.js'
import type { Stage, Trigger } from './types.js'

export const STAGE_KEYS = ['name', 'select', 'pick', 'delay', 'rate', 'next', 'times'] as const

/** `delay: 5m` or `delay: { after: 5m, jitter: 1m }` */
const delay: Read<Trigger> = (value, path, sink) => {
  if (!isMapping(value)) {
    const after = wholeDuration(value, path, sink)
    return after === undefined ? undefined : { kind: 'delay', after, jitter: 0 }
  }
  const f = fields(value, path, sink, ['after', 'jitter'])
  if (f === undefined) return undefined
  const after = f.req('after', wholeDuration)
  const jitter = f.opt('jitter', wholeDuration, 0)
  return after === undefined || jitter === undefined ? undefined : { kind: 'delay', after, jitter }
}

function trigger(f: Fields): Trigger | undefined {
  if (f.has('delay') && f.has('rate')) {
    f.sink.add('FSC_CONFLICT', f.path, 'expected one of "delay" or "rate", got both')
    return undefined
  }
  if (f.has('delay')) return f.req('delay', delay)
  if (f.has('rate')) {
    const r = f.req('rate', rate)
    if (r === 0) return f.sink.add('FSC_RATE', f.at('rate'), 'expected a rate greater than 0, got 0')
    return r === undefined ? undefined : { kind: 'rate', rate: r }
  }
  return f.sink.add('FSC_MISSING', f.path, 'missing "delay" or "rate" (when the stage fires)')
}

export function stage(index: number): Read<Stage> {
  return (value: unknown, path: Path, sink: Sink) => {
    const f = fields(value, path, sink, STAGE_KEYS, 'a stage mapping')
    if (f === undefined) return undefined
    const name = f.opt('name', text, `stage-${index + 1}`)
    const select = f.opt('select', selector(), ANY)
    const chosen = f.opt('pick', pick, { kind: 'all' })
    const when = trigger(f)
    const then = f.req('next', next, 'the action when the stage fires')
    const times = f.opt('times', integer(1), null)
    if (
      name === undefined ||
      select === undefined ||
      chosen === undefined ||
      when === undefined ||
      then === undefined ||
      times === undefined
    ) {
      return undefined
    }
    return { name, select, pick: chosen, trigger: when, next: then, times }
  }
}
