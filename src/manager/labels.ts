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
import { apiError } from '../http/errors.js'

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
  private nextId = 1

  snapshot(): LabelsSnapshot {
    return {
      nextId: this.nextId,
      labels: [...this.byName.values()].map((l) => ({ id: l.id, name: l.name, value: l.value, agents: [...l.agents] }))
    }
  }

  restore(saved: LabelsSnapshot): void {
    this.byName.clear()
    this.nextId = saved.nextId
    for (const l of saved.labels) this.byName.set(l.name, { id: l.id, name: l.name, value: l.value, agents: new Map(l.agents) })
  }

  get(name: string): Label | undefined {
    return this.byName.get(name)
  }

  set(request: SetLabel): Label {
    let label: Label | undefined
    if (request.oldName !== undefined && request.oldName !== request.name) {
      label = this.byName.get(request.oldName)
      if (label === undefined) throw apiError('E_UNKNOWN_LABEL', { names: [request.oldName] })
      if (this.byName.has(request.name)) {
        throw apiError('E_DUPLICATE_NAME', { name: request.name, owner: `custom label "${request.name}"` })
      }
      this.byName.delete(label.name)
      label.name = request.name
      this.byName.set(label.name, label)
    } else {
      label = this.byName.get(request.name)
    }
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

  /** Checks every name first, so an unknown one changes nothing. */
  remove(names: readonly string[], agents?: readonly number[]): RemoveOutcome {
    const missing = names.filter((name) => !this.byName.has(name))
    if (missing.length > 0) throw apiError('E_UNKNOWN_LABEL', { names: missing })
    const outcome: RemoveOutcome = { unassigned: [], removed: [] }
    for (const name of names) {
      const label = this.byName.get(name)
      if (label === undefined) continue // listed twice
      if (agents === undefined) label.agents.clear()
      else for (const index of agents) label.agents.delete(index)
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
  }

  all(): IterableIterator<Label> {
    return this.byName.values()
  }
}
