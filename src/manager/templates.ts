/**
 * Master and sub templates: unique names, numeric ids (handed to the fleet with
 * setTemplate), and which templates each agent has. Template names share one namespace with
 * agent names (viewagentortemplate looks both up by name); the caller passes that check in.
 */
import type { LogLevelName, ModeName } from '../protocol/states.js'
import { apiError } from '../protocol/errors.js'
import { checkTemplateCount, checkTemplateSizes, storedLimits, type StoredLimits } from './limits.js'

export type TemplateKind = 'master' | 'sub'

export interface MasterConfig {
  address: string
  port: number
  caFingerprint: string
  isLogToFile: boolean
  logLevel: LogLevelName
  mode: ModeName
  verbatim: string
}

export interface SubConfig {
  verbatim?: string
}

export interface Template {
  readonly id: number
  readonly kind: TemplateKind
  name: string
  description: string
  config: MasterConfig | SubConfig
}

export interface TemplateInput {
  name: string
  description?: string
  config: MasterConfig | SubConfig
}

/** Templates assigned to one agent. */
export interface Assignment {
  /** master template id, or -1 */
  master: number
  subs: number[]
}

/** Throws E_DUPLICATE_NAME when the name is taken by anything but `except`. */
export type NameCheck = (name: string, except?: string) => void

/** The registry as plain data, for the state file. */
export interface TemplatesSnapshot {
  nextId: number
  templates: Template[]
  assignments: Array<[number, Assignment]>
}

export class TemplateRegistry {
  private readonly byName = new Map<string, Template>()
  private readonly byId = new Map<number, Template>()
  // Sparse: only agents that were ever assigned a template have an entry.
  private readonly assignments = new Map<number, Assignment>()
  private nextId = 1

  constructor(
    private readonly checkName: NameCheck,
    private readonly limits: StoredLimits = storedLimits()
  ) {}

  snapshot(): TemplatesSnapshot {
    return { nextId: this.nextId, templates: structuredClone([...this.byId.values()]), assignments: structuredClone([...this.assignments]) }
  }

  restore(saved: TemplatesSnapshot): void {
    this.byName.clear()
    this.byId.clear()
    this.assignments.clear()
    this.nextId = saved.nextId
    for (const template of structuredClone(saved.templates)) {
      this.byName.set(template.name, template)
      this.byId.set(template.id, template)
    }
    for (const [index, assignment] of structuredClone(saved.assignments)) this.assignments.set(index, assignment)
  }

  get(name: string): Template | undefined {
    return this.byName.get(name)
  }

  /** The templates of these names, each once however often it is named; E_UNKNOWN_TEMPLATE for those that are not templates of `kind`. */
  require(kind: TemplateKind, names: readonly string[]): Template[] {
    const found: Template[] = []
    const missing: string[] = []
    for (const name of new Set(names)) {
      const template = this.byName.get(name)
      if (template?.kind === kind) found.push(template)
      else missing.push(name)
    }
    if (missing.length > 0) throw apiError('E_UNKNOWN_TEMPLATE', { kind, names: missing })
    return found
  }

  /**
   * Throws what add() would for this template, and adds nothing: `pending` templates more are to
   * be added before it (a scenario's dry run, which checks the templates it would create).
   */
  check(input: TemplateInput, pending = 0): void {
    checkTemplateSizes(this.limits, input)
    checkTemplateCount(this.limits, this.byId.size + pending)
    this.checkName(input.name)
  }

  add(kind: TemplateKind, input: TemplateInput): Template {
    this.check(input)
    const template: Template = {
      id: this.nextId++,
      kind,
      name: input.name,
      description: input.description ?? '',
      config: input.config
    }
    this.byName.set(template.name, template)
    this.byId.set(template.id, template)
    return template
  }

  /**
   * Takes back a template just added, before anything could refer to it: a scenario's load that
   * created templates for it and was then refused (src/admin/templates.ts). No operation of the
   * spec deletes a template.
   */
  takeBack(id: number): void {
    const template = this.byId.get(id)
    if (template === undefined) return
    this.byId.delete(id)
    this.byName.delete(template.name)
  }

  modify(kind: TemplateKind, currentName: string, input: TemplateInput): Template {
    const [template] = this.require(kind, [currentName])
    checkTemplateSizes(this.limits, input)
    if (input.name !== currentName) this.checkName(input.name, currentName)
    this.byName.delete(currentName)
    template.name = input.name
    template.description = input.description ?? ''
    template.config = input.config
    this.byName.set(template.name, template)
    return template
  }

  assign(index: number, master: Template | undefined, subs: readonly Template[]): Assignment {
    const current = this.assignments.get(index) ?? { master: -1, subs: [] }
    if (master !== undefined) current.master = master.id
    for (const sub of subs) if (!current.subs.includes(sub.id)) current.subs.push(sub.id)
    this.assignments.set(index, current)
    return current
  }

  assignmentOf(index: number): Assignment | undefined {
    return this.assignments.get(index)
  }

  forgetAgent(index: number): void {
    this.assignments.delete(index)
  }

  /** Forgets the templates assigned to the agents whose index `keep` does not keep; the templates stay. */
  retainAgents(keep: (index: number) => boolean): void {
    for (const index of this.assignments.keys()) if (!keep(index)) this.assignments.delete(index)
  }

  all(): IterableIterator<Template> {
    return this.byName.values()
  }
}
