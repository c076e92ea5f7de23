/**
 * Custom labels: a name, a value, and the agents it is assigned to, each with its own value.
 * Rules (spec, setcustomlabel and removecustomlabel):
 * - a new label without agents stays unassigned;
 * - for an existing label the value is updated for the listed agents (assigning them if
 *   needed), or, with no agents listed, for the label and every agent it is assigned to;
 * - `oldName` renames a label to the body name first;
 * - removing unassigns the label from the listed agents (all agents when none are listed);
 *   a label assigned to no agent afterwards is removed from the system.
 */
import { apiError } from '../protocol/errors.js'
import { checkAgentLabelCount, checkLabelCount, checkLabelSizes, storedLimits, type StoredLimits } from './limits.js'

export interface Label {
  readonly id: number
  name: string
  value: string
  /** agent index → the label's value for that agent */
  readonly agents: Map<number, string>
}

export interface SetLabel {
  name: string
  value: string
  oldName?: string
  /** agent indices; undefined: none listed */
  agents?: readonly number[]
}

export interface RemoveOutcome {
  unassigned: string[]
  removed: string[]
}

/** The registry as plain data, for the state file. */
export interface LabelsSnapshot {
  nextId: number
  labels: Array<{ id: number; name: string; value: string; agents: Array<[number, string]> }>
}

export class LabelRegistry {
  private readonly byName = new Map<string, Label>()
  /** agent index → how many labels it has, for --max-labels-per-agent without a scan */
  private readonly perAgent = new Map<number, number>()
  private nextId = 1

  /** `agentName` names an agent in messages (the registry knows agents by index only). */
  constructor(
    private readonly limits: StoredLimits = storedLimits(),
    private readonly agentName: (index: number) => string = (index) => `#${index}`
  ) {}

  snapshot(): LabelsSnapshot {
    return {
      nextId: this.nextId,
      labels: [...this.byName.values()].map((l) => ({ id: l.id, name: l.name, value: l.value, agents: [...l.agents] }))
    }
  }

  restore(saved: LabelsSnapshot): void {
    this.byName.clear()
    this.perAgent.clear()
    this.nextId = saved.nextId
    for (const l of saved.labels) {
      const label = { id: l.id, name: l.name, value: l.value, agents: new Map(l.agents) }
      this.byName.set(l.name, label)
      for (const index of label.agents.keys()) this.countAgent(index, 1)
    }
  }

  get(name: string): Label | undefined {
    return this.byName.get(name)
  }

  /** Every check comes before the first change, so a refused request changes nothing. */
  set(request: SetLabel): Label {
    checkLabelSizes(this.limits, request)
    const renaming = request.oldName !== undefined && request.oldName !== request.name
    let label = this.byName.get(renaming ? (request.oldName as string) : request.name)
    if (renaming) {
      if (label === undefined) throw apiError('E_UNKNOWN_LABEL', { names: [request.oldName as string] })
      if (this.byName.has(request.name)) {
        throw apiError('E_DUPLICATE_NAME', { name: request.name, owner: `custom label "${request.name}"` })
      }
    }
    if (label === undefined) checkLabelCount(this.limits, this.byName.size)
    const assigned = this.newlyAssigned(label, request.agents ?? [])

    if (label !== undefined && renaming) {
      this.byName.delete(label.name)
      label.name = request.name
      this.byName.set(label.name, label)
    }
    for (const index of assigned) this.countAgent(index, 1)
    if (label === undefined) {
      label = { id: this.nextId++, name: request.name, value: request.value, agents: new Map() }
      this.byName.set(label.name, label)
      for (const index of request.agents ?? []) label.agents.set(index, request.value)
      return label
    }
    if (request.agents === undefined) {
      label.value = request.value
      for (const index of label.agents.keys()) label.agents.set(index, request.value)
    } else {
      for (const index of request.agents) label.agents.set(index, request.value)
    }
    return label
  }

  /** The listed agents that do not have the label yet, each checked against --max-labels-per-agent. */
  private newlyAssigned(label: Label | undefined, agents: readonly number[]): Set<number> {
    const assigned = new Set<number>()
    for (const index of agents) {
      if (label?.agents.has(index) === true || assigned.has(index)) continue
      checkAgentLabelCount(this.limits, this.perAgent.get(index) ?? 0, this.agentName(index))
      assigned.add(index)
    }
    return assigned
  }

  private countAgent(index: number, delta: number): void {
    const count = (this.perAgent.get(index) ?? 0) + delta
    if (count > 0) this.perAgent.set(index, count)
    else this.perAgent.delete(index)
  }

  /** Checks every name first, so an unknown one changes nothing. */
  remove(names: readonly string[], agents?: readonly number[]): RemoveOutcome {
    const missing = names.filter((name) => !this.byName.has(name))
    if (missing.length > 0) throw apiError('E_UNKNOWN_LABEL', { names: missing })
    const outcome: RemoveOutcome = { unassigned: [], removed: [] }
    for (const name of names) {
      const label = this.byName.get(name)
      if (label === undefined) continue // listed twice
      for (const index of agents ?? [...label.agents.keys()]) {
        if (label.agents.delete(index)) this.countAgent(index, -1)
      }
      if (label.agents.size === 0) {
        this.byName.delete(name)
        outcome.removed.push(name)
      } else {
        outcome.unassigned.push(name)
      }
    }
    return outcome
  }

  /** The labels of one agent with its values. */
  labelsOf(index: number): Array<{ name: string; value: string }> {
    const out: Array<{ name: string; value: string }> = []
    for (const label of this.byName.values()) {
      const value = label.agents.get(index)
      if (value !== undefined) out.push({ name: label.name, value })
    }
    return out
  }

  /** A deleted agent loses its labels; labels it leaves unassigned stay (they were created). */
  forgetAgent(index: number): void {
    for (const label of this.byName.values()) label.agents.delete(index)
    this.perAgent.delete(index)
  }

  /**
   * Unassigns every label from the agents whose index `keep` does not keep (e.g. none, when the
   * fleet's indices name the agents of a new run); labels left unassigned stay, as forgetAgent's.
   */
  retainAgents(keep: (index: number) => boolean): void {
    for (const label of this.byName.values()) {
      for (const index of label.agents.keys()) if (!keep(index)) label.agents.delete(index)
    }
    for (const index of this.perAgent.keys()) if (!keep(index)) this.perAgent.delete(index)
  }

  all(): IterableIterator<Label> {
    return this.byName.values()
  }
}
