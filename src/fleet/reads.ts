/**
 * Reading agents: finding one by name, UUID or certificate, and its name, UUID, configuration
 * and view. Generated identities come from (seed, index) (identity.ts); the few the API
 * replaced come from the overrides, which win. Called on every request, so each read goes
 * straight to the core's current identity, overrides and views, with no copy in between.
 */
import { AgentState, MODES, type AgentStateName } from '../protocol/states.js'
import { Flag } from './layout.js'
import { AGENT_PORT } from './identity.js'
import { agentView, readFigures, readModuleFigures, serviceOf, sysinfoOf } from './agent-view.js'
import type { ShownIdentity } from './shown-identities.js'
import { lastPollAt } from './status-poll.js'
import { normaliseFingerprint } from '../tls/ca-info.js'
import type { FleetCore } from './fleet-core.js'
import type { AgentConfig, AgentView, IndexCursor } from './fleet-api.js'

export function agentByName(core: FleetCore, name: string): number | undefined {
  const overridden = core.overrides.indexOfName(name)
  if (overridden !== undefined) return core.exists(overridden) ? overridden : undefined
  const i = core.identity.indexOfName(name)
  return i !== undefined && !core.overrides.renamed(i) && core.exists(i) ? i : undefined
}

/**
 * A deleted agent that will rejoin under this name: deleted without revoking its certificate,
 * it connects again (mutations.ts, deleteAgents), so the manager keeps its name for it.
 */
export function rejoiningByName(core: FleetCore, name: string): number | undefined {
  const overridden = core.overrides.indexOfName(name)
  const generated = core.identity.indexOfName(name)
  const i = overridden ?? (generated !== undefined && !core.overrides.renamed(generated) ? generated : undefined)
  // Flags are the workers' to write while a step runs; REJOINS is set by deleteAgents on this
  // thread and cleared by the rejoin, after which the agent exists and findByName has it.
  return i !== undefined && !core.exists(i) && (core.v.flags[i] & Flag.REJOINS) !== 0 ? i : undefined
}

export function agentByUuid(core: FleetCore, uuid: string): number | undefined {
  const lower = uuid.toLowerCase()
  const added = core.overrides.indexOfUuid(lower)
  if (added !== undefined) return core.exists(added) ? added : undefined
  const i = core.identity.indexOfUuid(lower)
  return i !== undefined && !core.overrides.hasUuid(i) && core.exists(i) ? i : undefined
}

export function agentByCertFingerprint(core: FleetCore, fingerprint: string): number | undefined {
  const normal = normaliseFingerprint(fingerprint)
  const assigned = core.overrides.indexOfCert(normal)
  if (assigned !== undefined) return core.exists(assigned) ? assigned : undefined
  const i = core.identity.indexOfCertFingerprint(normal)
  return i !== undefined && !core.overrides.reconfigured(i) && core.exists(i) ? i : undefined
}

/**
 * Existing agents in index order, optionally only those in the given states, one at a time
 * (IndexCursor). Agents added while it walks (their indices past the last one read) are found
 * too, until it has said -1.
 */
export class AgentCursor implements IndexCursor {
  private at = 0
  /** it said -1: it stays done, agents added since included */
  private done = false
  /** by state code: 1 for a state asked for; undefined: every state */
  private readonly wanted: Uint8Array | undefined

  constructor(
    private readonly core: FleetCore,
    states?: ReadonlySet<AgentStateName>
  ) {
    if (states === undefined) return
    this.wanted = new Uint8Array(256)
    for (const state of states) this.wanted[AgentState[state]] = 1
  }

  next(): number {
    if (this.done) return -1
    const { core, wanted } = this
    const { flags, state } = core.v
    while (this.at < core.used) {
      const i = this.at++
      if ((flags[i] & Flag.EXISTS) === 0) continue
      if (wanted !== undefined && wanted[state[i]] === 0) continue
      return i
    }
    this.done = true
    return -1
  }
}

/** Existing agents in index order, optionally only those in the given states (AgentCursor). */
export function* existingAgents(core: FleetCore, states?: ReadonlySet<AgentStateName>): Iterable<number> {
  const cursor = new AgentCursor(core, states)
  for (let i = cursor.next(); i !== -1; i = cursor.next()) yield i
}

export function agentName(core: FleetCore, i: number): string {
  return core.overrides.name(i) ?? core.identity.name(i)
}

export function agentUuid(core: FleetCore, i: number): string {
  return core.overrides.uuid(i) ?? core.identity.uuid(i)
}

export function agentConfig(core: FleetCore, i: number): AgentConfig {
  const mode = MODES[core.v.mode[i]]
  const override = core.overrides.config(i)
  if (override !== undefined) return { ...override, mode }
  return {
    // In Connect mode the configured address is the manager's; in Listen mode the agent's own.
    address: mode === 'Listen' ? core.identity.address(i) : `manager.${core.identity.vocabulary.domain}`,
    // One port in both modes: see AGENT_PORT.
    port: AGENT_PORT,
    caFingerprint: core.options.caFingerprint,
    certFingerprint: core.identity.certFingerprint(i),
    isLogToFile: true,
    logLevel: 'INFO',
    mode,
    verbatim: ''
  }
}

export function viewOf(core: FleetCore, i: number, withModules: boolean, keepIdentity = true, figures?: Float64Array): AgentView {
  const { program, v, identity, options, overrides } = core
  return agentView(program, v, identity, options.startTime, polledAt(core, i), overrides.revision, i, withModules, shownIdentity(core, i, keepIdentity), figures)
}

/** Agent i's figures (Fleet.figures), without the text of its identity; its modules' too, into `modules`, when given. */
export function figuresOf(core: FleetCore, i: number, out: Float64Array, modules?: Float64Array): void {
  readFigures(core.program, core.v, core.options.startTime, polledAt(core, i), core.overrides.revision, i, modules !== undefined, out)
  if (modules !== undefined) readModuleFigures(core.program, out, modules)
}

/** The second of the manager's last status poll of agent i (status-poll.ts). */
export function polledAt(core: FleetCore, i: number): number {
  return lastPollAt(core.program.seed, i, core.steppedTo, core.options.statusPoll)
}

/** Agent i's identity as the API shows it: the one kept (shown-identities.ts), or made now (and kept, unless `keep` is false). */
function shownIdentity(core: FleetCore, i: number, keep: boolean): ShownIdentity {
  const revision = core.overrides.revision
  const kept = core.shown.get(i, revision)
  if (kept !== undefined) return kept
  const config = core.overrides.config(i)
  const address = config?.address ?? core.identity.address(i)
  const port = config?.port ?? AGENT_PORT
  const osIdx = core.v.osIdx[i]
  const shown: ShownIdentity = {
    name: agentName(core, i),
    uuid: agentUuid(core, i),
    address,
    service: serviceOf(address, port),
    sysinfoOs: osIdx,
    sysinfo: sysinfoOf(core.program, core.identity, i, osIdx)
  }
  if (keep) core.shown.set(i, revision, shown)
  return shown
}
