/**
 * Finding agents by what they are, for a table paged on the server (the console's Agents
 * page): name (substring, any case), state, OS, master template, label. One pass over the
 * shared-memory columns in index order, cheapest tests first; only the page's indices are
 * kept, so a million agents cost a scan and no per-agent object. Names are tested without
 * building them (Identity.nameContains), except the few the API replaced; a search for an
 * agent's number visits only the agents whose number has those digits (numbersContaining).
 *
 * Reads take no turn, like every read (layout.ts): a step round may be writing an agent while
 * the pass reads its state byte, so an agent changing state right then may be counted in
 * either state. A table that refreshes can live with that.
 */
import { AgentState, type AgentStateName } from '../protocol/states.js'
import { numbersContaining } from './identity.js'
import { Flag } from './layout.js'
import type { FleetCore } from './fleet-core.js'

export interface AgentQuery {
  /** part of the name, compared without case */
  name?: string
  states?: readonly AgentStateName[]
  /** OS names, as the agents report them */
  os?: readonly string[]
  /** master template ids (-1: none) */
  templateIds?: readonly number[]
  /**
   * label holders: agents carrying any of these scenario labels (bits of the label mask)
   * or listed in `labelAgents` (custom labels of the manager)
   */
  label?: { mask: number; agents: ReadonlySet<number> }
  /** first match to return, from 0 */
  offset: number
  /** most matches to return */
  limit: number
}

export interface AgentQueryResult {
  /** how many agents match */
  total: number
  /** the indices of matches [offset, offset + limit), in index order */
  indices: number[]
}

export function queryAgents(core: FleetCore, query: AgentQuery): AgentQueryResult {
  const { v, program, identity, overrides } = core
  let stateMask = 0
  for (const state of query.states ?? []) stateMask |= 1 << AgentState[state]
  const osWanted = query.os === undefined ? undefined : new Set(query.os)
  let osMask = 0
  program.os.names.forEach((name, k) => {
    if (osWanted?.has(name) === true) osMask |= 1 << k
  })
  const templates = query.templateIds === undefined ? undefined : new Set(query.templateIds)
  const text = query.name?.toLowerCase()
  const generated = text === undefined || text === '' ? undefined : identity.nameContains(text)
  const { label } = query
  const end = query.offset + query.limit
  const indices: number[] = []
  let total = 0
  // Each test decided once, outside the loop; the loop runs a million times.
  const byState = query.states !== undefined
  const byOs = osWanted !== undefined
  const renamedAny = overrides.renamedCount() > 0
  // Only the candidates when the name filter is three digits or more (an agent's number) and
  // every name is generated: a few hundred agents to look at rather than a million.
  const candidates = text !== undefined && /^\d{3,}$/.test(text) && !renamedAny ? numbersContaining(text, core.used).map((n) => n - 1) : undefined
  const count = candidates === undefined ? core.used : candidates.length
  for (let k = 0; k < count; k++) {
    const i = candidates === undefined ? k : candidates[k]
    if ((v.flags[i] & Flag.EXISTS) === 0) continue
    if (byState && (stateMask & (1 << v.state[i])) === 0) continue
    if (byOs && (osMask & (1 << v.osIdx[i])) === 0) continue
    if (templates !== undefined && !templates.has(v.templateId[i])) continue
    if (label !== undefined && (v.labelMask[i] & label.mask) === 0 && !label.agents.has(i)) continue
    if (generated !== undefined) {
      const renamed = renamedAny ? overrides.name(i) : undefined
      if (renamed === undefined ? !generated(i) : !renamed.toLowerCase().includes(text as string)) continue
    }
    if (total >= query.offset && total < end) indices.push(i)
    total++
  }
  return { total, indices }
}
