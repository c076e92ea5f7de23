/**
 * The reconnect policy for configuration updates (assigntemplatetoagent with updateAgents,
 * updateandreloadagent): how long a successful reconnect takes, and which agents fail.
 *
 * ```yaml
 * reconnect:
 *   delay: { dist: uniform, min: 1s, max: 4s }
 *   failures:
 *     select: { os: "RHEL*" }
 *     count: 10
 * ```
 */
import { agentCount, fields, fraction, oneOf, oneOrMany, type Path, type Read, type Sink } from './check.js'
import { DEFAULTS } from './defaults.js'
import { seconds, upperBound } from './distribution.js'
import { ANY, selector } from './selector.js'
import { RECONNECT_OPERATIONS, type FailureMode, type ReconnectFailure, type ReconnectPolicy } from './types.js'
import { formatSeconds } from '../lib/units.js'

const MODES = ['probability', 'fraction', 'count'] as const

const failure: Read<ReconnectFailure> = (value, path, sink) => {
  const f = fields(value, path, sink, ['select', ...MODES, 'operations', 'recoverAfter'], 'a failure rule mapping')
  if (f === undefined) return undefined
  const given = MODES.filter((m) => f.has(m))
  let mode: FailureMode | undefined
  if (given.length !== 1) {
    const found = given.length === 0 ? 'none' : given.map((m) => `"${m}"`).join(' and ')
    sink.add(given.length === 0 ? 'FSC_MISSING' : 'FSC_CONFLICT', path, `expected exactly one of "probability", "fraction" or "count", got ${found}`)
  } else if (given[0] === 'probability') {
    const p = f.req('probability', fraction)
    mode = p === undefined ? undefined : { kind: 'probability', probability: p }
  } else if (given[0] === 'fraction') {
    const p = f.req('fraction', fraction)
    mode = p === undefined ? undefined : { kind: 'fraction', fraction: p }
  } else {
    const n = f.req('count', agentCount('to fail no agent, leave the rule out'))
    mode = n === undefined ? undefined : { kind: 'count', count: n }
  }
  const select = f.opt('select', selector(), ANY)
  const operations = f.opt('operations', oneOrMany(oneOf(RECONNECT_OPERATIONS, 'an operation that reconnects agents')), [...RECONNECT_OPERATIONS])
  const recoverAfter = f.opt('recoverAfter', seconds, null)
  if (mode === undefined || select === undefined || operations === undefined || recoverAfter === undefined) return undefined
  return { select, mode, operations: [...new Set(operations)], recoverAfter }
}

export const reconnect: Read<ReconnectPolicy> = (value: unknown, path: Path, sink: Sink) => {
  const f = fields(value, path, sink, ['delay', 'failures'])
  if (f === undefined) return undefined
  let delay = f.opt('delay', seconds, DEFAULTS.reconnectDelay)
  if (delay !== undefined && upperBound(delay) >= DEFAULTS.reconnectWait) {
    const max = upperBound(delay)
    const found = max === Infinity ? 'no upper bound (add "max")' : formatSeconds(max)
    delay = sink.add('FSC_NUMBER', f.at('delay'), `expected successful reconnects to take under the ${DEFAULTS.reconnectWait}s reconnect wait, got a maximum of ${found}`)
  }
  // One failure rule or a list of them.
  const failures = f.opt('failures', oneOrMany(failure), [])
  if (delay === undefined || failures === undefined) return undefined
  return { delay, failures }
}
