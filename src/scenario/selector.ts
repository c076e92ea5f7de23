/**
 * Selectors: which agents a rule applies to.
 *
 * ```yaml
 * select: { state: [ONLINE, ERROR], os: "Windows*", label: "site=paris", mode: Connect }
 * ```
 * Each key takes one value or a list of alternatives; all keys given must match.
 */
import { AGENT_STATES, MODES } from '../protocol/states.js'
import { fields, oneOf, oneOrMany, text, type Path, type Read, type Sink } from './check.js'
import type { Selector } from './types.js'

export const SELECTOR_KEYS = ['state', 'label', 'template', 'version', 'os', 'name', 'mode'] as const

/** Keys that describe who an agent is, as opposed to what state it is in. */
export const IDENTITY_KEYS = ['template', 'version', 'os', 'name', 'mode'] as const

export const ANY: Selector = {
  states: null,
  labels: null,
  templates: null,
  versions: null,
  os: null,
  names: null,
  modes: null
}

const LABEL = /^([^=\s][^=]*?)\s*(?:=\s*(.*))?$/

const label: Read<{ name: string; value: string | null }> = (value, path, sink) => {
  const raw = text(value, path, sink)
  if (raw === undefined) return undefined
  const m = LABEL.exec(raw.trim())
  if (m === null || m[1] === undefined || (m[2] !== undefined && m[2].trim() === '')) {
    return sink.add('FSC_FORMAT', path, `expected a label like "site=paris" or "site", got ${JSON.stringify(raw)}`)
  }
  // "site==paris" would select the value "=paris": a doubled "=" is a typo far more often.
  if (m[2] !== undefined && m[2].trim().startsWith('=')) {
    return sink.add('FSC_FORMAT', path, `expected a label like "site=paris" (one "=" between name and value), got ${JSON.stringify(raw)}`)
  }
  return { name: m[1].trim(), value: m[2] === undefined ? null : m[2].trim() }
}

/** Reads a selector; `allowed` restricts its keys (fleet label rules may use identity keys only). */
export function selector(allowed: readonly string[] = SELECTOR_KEYS): Read<Selector> {
  return (value: unknown, path: Path, sink: Sink) => {
    const f = fields(value, path, sink, allowed, 'a selector mapping')
    if (f === undefined) return undefined
    const states = f.opt('state', oneOrMany(oneOf(AGENT_STATES, 'an agent state')), null)
    const labels = f.opt('label', oneOrMany(label), null)
    const templates = f.opt('template', oneOrMany(text), null)
    const versions = f.opt('version', oneOrMany(text), null)
    const os = f.opt('os', oneOrMany(text), null)
    const names = f.opt('name', oneOrMany(text), null)
    const modes = f.opt('mode', oneOrMany(oneOf(MODES, 'a mode')), null)
    if ([states, labels, templates, versions, os, names, modes].includes(undefined)) return undefined
    return {
      states: states ?? null,
      labels: labels ?? null,
      templates: templates ?? null,
      versions: versions ?? null,
      os: os ?? null,
      names: names ?? null,
      modes: modes ?? null
    }
  }
}

/** A glob (`*`, `?`) as an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')
  return new RegExp(`^${body}$`)
}
