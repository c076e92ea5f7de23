/**
 * The Agents page's filter, from a query string (the page's own URL, or /console/api/agents):
 * `name` (part of the name, any case), `state`, `os`, `template` (a master template, or `none`),
 * `label` (`name` or `name=value`: a custom label of the manager or a label of the running
 * scenario), `offset` and `limit`. Checked once, with the catalogue's messages; the result is
 * the fleet's AgentQuery.
 */
import type { AgentQuery, FleetEngine } from '../fleet/fleet.js'
import type { Manager } from '../manager/manager.js'
import { apiError, shown } from '../protocol/errors.js'
import { AGENT_STATES, type AgentStateName } from '../protocol/states.js'

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 500
/** The template filter's value for agents without a master template. */
export const NO_TEMPLATE = 'none'

/** The filter as given (text), for showing it back in the form and in paging links. */
export interface AgentFilterText {
  name: string
  state: string
  os: string
  template: string
  label: string
}

export const FILTER_KEYS = ['name', 'state', 'os', 'template', 'label'] as const

/** One value of a query parameter: the first when repeated, '' when absent. */
function one(query: Record<string, unknown>, key: string): string {
  const value = query[key]
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first.trim() : ''
}

function whole(query: Record<string, unknown>, key: 'offset' | 'limit', fallback: number, min: number, max: number): number {
  const text = one(query, key)
  if (text === '') return fallback
  const n = Number(text)
  if (!/^\d+$/.test(text) || n < min || n > max) {
    throw apiError('E_INVALID_VALUE', { where: 'query parameter', name: key, rule: `must be a whole number from ${min} to ${max}`, got: shown(text) })
  }
  return n
}

export function filterText(query: Record<string, unknown>): AgentFilterText {
  return { name: one(query, 'name'), state: one(query, 'state'), os: one(query, 'os'), template: one(query, 'template'), label: one(query, 'label') }
}

/** The fleet query of a filter; throws catalogue errors naming the parameter and what it may be. */
export function agentQuery(query: Record<string, unknown>, engine: FleetEngine, manager: Manager): AgentQuery {
  const text = filterText(query)
  const out: AgentQuery = { offset: whole(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER), limit: whole(query, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT) }
  if (text.name !== '') out.name = text.name
  if (text.state !== '') {
    const states = text.state.split(',').map((s) => s.trim().toUpperCase())
    const wrong = states.find((s) => !(AGENT_STATES as readonly string[]).includes(s))
    if (wrong !== undefined) throw apiError('E_NOT_IN_ENUM', { where: 'query parameter', name: 'state', allowed: AGENT_STATES, got: shown(wrong) })
    out.states = states as AgentStateName[]
  }
  if (text.os !== '') {
    const names = engine.osNames()
    if (!names.includes(text.os)) throw apiError('E_NOT_IN_ENUM', { where: 'query parameter', name: 'os', allowed: names, got: shown(text.os) })
    out.os = [text.os]
  }
  if (text.template !== '') {
    const masters = masterTemplates(manager)
    const id = text.template === NO_TEMPLATE ? -1 : masters.find((t) => t.name === text.template)?.id
    if (id === undefined) throw apiError('E_NOT_IN_ENUM', { where: 'query parameter', name: 'template', allowed: [NO_TEMPLATE, ...masters.map((t) => t.name)], got: shown(text.template) })
    out.templateIds = [id]
  }
  if (text.label !== '') out.label = labelHolders(text.label, engine, manager)
  return out
}

export function masterTemplates(manager: Manager): Array<{ id: number; name: string }> {
  return [...manager.templates.all()].filter((t) => t.kind === 'master').map((t) => ({ id: t.id, name: t.name }))
}

/**
 * Who carries a label, `name` or `name=value`: the scenario labels as bits, the manager's
 * custom label as its agents. A label nobody has matches nobody.
 */
function labelHolders(text: string, engine: FleetEngine, manager: Manager): { mask: number; agents: ReadonlySet<number> } {
  const at = text.indexOf('=')
  const name = at === -1 ? text : text.slice(0, at)
  const value = at === -1 ? undefined : text.slice(at + 1)
  let mask = 0
  engine.scenarioLabels().forEach((label, bit) => {
    if (label.name === name && (value === undefined || label.value === value)) mask |= 1 << bit
  })
  const agents = new Set<number>()
  const custom = manager.labels.get(name)
  if (custom !== undefined) for (const [index, v] of custom.agents) if (value === undefined || v === value) agents.add(index)
  return { mask, agents }
}

/** Every label a filter may name: custom labels by name, scenario labels as name=value. */
export function knownLabels(engine: FleetEngine, manager: Manager): string[] {
  const out = new Set<string>()
  for (const label of manager.labels.all()) out.add(label.name)
  for (const label of engine.scenarioLabels()) {
    out.add(label.name)
    out.add(`${label.name}=${label.value}`)
  }
  return [...out].sort()
}
