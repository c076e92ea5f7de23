/**
 * API fault rules: how the manager facade misbehaves, per operation.
 *
 * ```yaml
 * faults:
 *   - operation: [agentinfo, appinfo]
 *     latency: { dist: normal, mean: 300, sd: 100, max: 2000 }   # milliseconds
 *     error: { status: 503, rate: 0.05 }
 *     during: { from: 10m, until: 40m }
 * ```
 * Fault timings (latency, stall) are wall-clock time, because they shape what the client waits
 * for; `during` is virtual time, like every other scenario time.
 */
import { describe, duration, fields, wholeDuration, fraction, integer, number, oneOf, oneOrMany, text, type Path, type Read, type Sink } from './check.js'
import { DEFAULTS } from './defaults.js'
import { millisecondsDistribution } from './distribution.js'
import type { FaultRule } from './types.js'

/** Operations of the REST spec, plus the referenced ones the facade serves. */
export const OPERATIONS = [
  'addagent',
  'agentinfo',
  'assigntemplatetoagent',
  'updateandreloadagent',
  'deleteagent',
  'modifyagent',
  'startagent',
  'stopagent',
  'setcustomlabel',
  'removecustomlabel',
  'addmastertemplate',
  'addsubtemplate',
  'modifymastertemplate',
  'modifysubtemplate',
  'agentmanager',
  'appinfo',
  'createfield',
  'certificateinfo',
  'viewagentortemplate'
] as const

export const FAULT_KEYS = ['name', 'operation', 'during', 'latency', 'error', 'reset', 'stall', 'failFirst', 'body'] as const
const EFFECTS = ['latency', 'error', 'reset', 'stall', 'failFirst', 'body'] as const

/** What an `error` rule answers when it names no status or message (also serve's --error-rate). */
export const ERROR_DEFAULTS = Object.freeze({ status: 500, message: DEFAULTS.faultMessage })

const operation = oneOf([...OPERATIONS, '*'], 'an operation name or "*"')
const status = integer(400, 599)

const during: Read<NonNullable<FaultRule['during']>> = (value, path, sink) => {
  const f = fields(value, path, sink, ['from', 'until'])
  if (f === undefined) return undefined
  // Virtual time, as the fleet keeps it: whole seconds.
  const from = f.opt('from', wholeDuration, 0)
  const until = f.opt('until', wholeDuration, null)
  if (from === undefined || until === undefined) return undefined
  if (until !== null && until <= from) {
    return sink.add('FSC_NUMBER', f.at('until'), `expected "until" after "from", got ${describe(f.value.until)}`)
  }
  return { from, until }
}

const error: Read<NonNullable<FaultRule['error']>> = (value, path, sink) => {
  const f = fields(value, path, sink, ['status', 'rate', 'message'])
  if (f === undefined) return undefined
  const s = f.opt('status', status, ERROR_DEFAULTS.status)
  const r = f.req('rate', fraction, 'the fraction of calls that fail')
  const message = f.opt('message', text, ERROR_DEFAULTS.message)
  return s === undefined || r === undefined || message === undefined ? undefined : { status: s, rate: r, message }
}

const reset: Read<NonNullable<FaultRule['reset']>> = (value, path, sink) => {
  const f = fields(value, path, sink, ['rate'])
  const r = f?.req('rate', fraction, 'the fraction of calls whose connection is reset')
  return r === undefined ? undefined : { rate: r }
}

const stall: Read<NonNullable<FaultRule['stall']>> = (value, path, sink) => {
  const f = fields(value, path, sink, ['for', 'rate'])
  if (f === undefined) return undefined
  const forSeconds = f.req('for', duration, 'how long the answer is held')
  const r = f.req('rate', fraction, 'the fraction of calls that stall')
  return forSeconds === undefined || r === undefined ? undefined : { forMs: forSeconds * 1000, rate: r }
}

/** `failFirst: 3` or `failFirst: { count: 3, status: 503, message: ... }` */
const failFirst: Read<NonNullable<FaultRule['failFirst']>> = (value, path, sink) => {
  if (typeof value === 'number') {
    const n = integer(1)(value, path, sink)
    return n === undefined ? undefined : { count: n, status: DEFAULTS.faultStatus, message: DEFAULTS.faultMessage }
  }
  const f = fields(value, path, sink, ['count', 'status', 'message'], 'a count or a mapping')
  if (f === undefined) return undefined
  const count = f.req('count', integer(1))
  const s = f.opt('status', status, DEFAULTS.faultStatus)
  const message = f.opt('message', text, DEFAULTS.faultMessage)
  return count === undefined || s === undefined || message === undefined ? undefined : { count, status: s, message }
}

const body: Read<NonNullable<FaultRule['body']>> = (value, path, sink) => {
  const f = fields(value, path, sink, ['slow', 'truncate'])
  if (f === undefined) return undefined
  if (!f.has('slow') && !f.has('truncate')) return sink.add('FSC_MISSING', path, 'missing "slow" or "truncate"')
  const slow = f.opt('slow', number(0, Infinity, true), null)
  const truncate = f.opt('truncate', fraction, 0)
  return slow === undefined || truncate === undefined ? undefined : { slowBytesPerSecond: slow, truncateRate: truncate }
}

/** The reader of the rule at `index` of a scenario's `faults`; `defaultName` names it when it has no `name`. */
export function faultRule(index: number, defaultName = `fault-${index + 1}`): Read<FaultRule> {
  return (value: unknown, path: Path, sink: Sink) => {
    const f = fields(value, path, sink, FAULT_KEYS, 'a fault rule mapping')
    if (f === undefined) return undefined
    const ops = f.req('operation', oneOrMany(operation), 'an operation name, a list of them, or "*"')
    if (!EFFECTS.some((k) => f.has(k))) {
      sink.add('FSC_MISSING', path, `missing a fault: one or more of ${EFFECTS.join(', ')}`)
    }
    const name = f.opt('name', text, defaultName)
    const window = f.opt('during', during, null)
    const latencyMs = f.opt('latency', millisecondsDistribution, null)
    const err = f.opt('error', error, null)
    const rst = f.opt('reset', reset, null)
    const stl = f.opt('stall', stall, null)
    const first = f.opt('failFirst', failFirst, null)
    const slowBody = f.opt('body', body, null)
    const parts = [ops, name, window, latencyMs, err, rst, stl, first, slowBody]
    if (parts.includes(undefined) || !EFFECTS.some((k) => f.has(k))) return undefined
    const operations = ops === undefined || ops.includes('*') ? null : [...new Set(ops)]
    return {
      name: name as string,
      operations,
      during: window ?? null,
      latencyMs: latencyMs ?? null,
      error: err ?? null,
      reset: rst ?? null,
      stall: stl ?? null,
      failFirst: first ?? null,
      body: slowBody ?? null
    }
  }
}
