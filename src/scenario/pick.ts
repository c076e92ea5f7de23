/** How many matching agents a rule takes: `all`, `one`, `{fraction: 0.02}` or `{count: 10}`. */
import { agentCount, describe, fraction, isMapping, type Read } from './check.js'
import { suggest } from '../lib/suggest.js'
import type { Pick } from './types.js'

const FORMS = ['all', 'one']
const KEYS = ['fraction', 'count']

export const pick: Read<Pick> = (value, path, sink) => {
  if (value === 'all') return { kind: 'all' }
  if (value === 'one') return { kind: 'count', count: 1 }
  const expected = 'expected "all", "one", {fraction: 0..1} or {count: N}'
  if (!isMapping(value)) {
    const near = typeof value === 'string' ? suggest(value, FORMS) : undefined
    const hint = near === undefined ? '' : `; did you mean "${near}"?`
    return sink.add('FSC_ENUM', path, `${expected}, got ${describe(value)}${hint}`)
  }
  const keys = Object.keys(value)
  if (keys.length !== 1 || !KEYS.includes(keys[0])) {
    const near = keys.length === 1 ? suggest(keys[0], KEYS) : undefined
    const hint = near === undefined ? '' : `; did you mean "${near}"?`
    const code = keys.length === 1 ? 'FSC_UNKNOWN_KEY' : keys.length === 0 ? 'FSC_MISSING' : 'FSC_CONFLICT'
    return sink.add(code, path, `${expected}, got keys ${keys.map((k) => `"${k}"`).join(', ') || 'none'}${hint}`)
  }
  if (keys[0] === 'fraction') {
    const f = fraction(value.fraction, [...path, 'fraction'], sink)
    return f === undefined ? undefined : { kind: 'fraction', fraction: f }
  }
  const n = agentCount('to pick no agent, leave the rule out')(value.count, [...path, 'count'], sink)
  return n === undefined ? undefined : { kind: 'count', count: n }
}
