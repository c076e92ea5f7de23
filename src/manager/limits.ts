/**
 * How much the manager stores for clients: custom labels, manager fields, templates, and the
 * text of agents' configurations. Without bounds a client could make the simulator hold (and
 * then fail to save) any amount: 560 labels of 1 MB each once made the state file unwritable.
 *
 * Each bound is a serve flag (docs/limits.md) with a default no real fleet reaches. Sizes are
 * UTF-8 bytes, what the state file and the wire hold. The checks below are the one place each
 * kind of data is measured; the registries (labels.ts, templates.ts, fields.ts) call them
 * before they change anything, and the agent routes call checkAgentSizes. Saved states are
 * restored without these checks, so lowering a flag never makes a state file unreadable.
 */
import type { FleetFullError } from '../fleet/fleet-types.js'
import { apiError, type ApiError, type Where } from '../protocol/errors.js'

export interface StoredLimits {
  /** distinct custom labels, assigned or not */
  readonly maxLabels: number
  /** custom labels assigned to one agent */
  readonly maxLabelsPerAgent: number
  /** bytes of a custom label's value */
  readonly maxLabelValueBytes: number
  /** bytes of a name: custom label, template, manager field, agent */
  readonly maxNameBytes: number
  /** bytes of other text: descriptions of templates and fields, addresses of templates and agents */
  readonly maxTextBytes: number
  /** bytes of the verbatim configuration text of a template or agent */
  readonly maxVerbatimBytes: number
  /** master and sub templates together */
  readonly maxTemplates: number
  /** manager fields */
  readonly maxFields: number
}

/**
 * Far above any fleet's needs, low enough to bound memory: at most 10,000 templates of about
 * 73 KiB (name, description, address, verbatim) is 730 MiB; labels cost at most
 * 64 × 4 KiB per agent.
 */
export const STORED_LIMIT_DEFAULTS: StoredLimits = Object.freeze({
  maxLabels: 10_000,
  maxLabelsPerAgent: 64,
  maxLabelValueBytes: 4096,
  maxNameBytes: 1024,
  maxTextBytes: 4096,
  maxVerbatimBytes: 65_536,
  maxTemplates: 10_000,
  maxFields: 1000
})

/** The serve flag that sets each limit; messages name it so the user knows what to raise. */
export const STORED_LIMIT_FLAGS: Readonly<Record<keyof StoredLimits, string>> = Object.freeze({
  maxLabels: 'max-labels',
  maxLabelsPerAgent: 'max-labels-per-agent',
  maxLabelValueBytes: 'max-label-value-bytes',
  maxNameBytes: 'max-name-bytes',
  maxTextBytes: 'max-text-bytes',
  maxVerbatimBytes: 'max-verbatim-bytes',
  maxTemplates: 'max-templates',
  maxFields: 'max-fields'
})

/** The defaults with `given` on top; only the limits' own keys are taken (a ServeConfig may be passed). */
export function storedLimits(given: Partial<StoredLimits> = {}): StoredLimits {
  const limits = { ...STORED_LIMIT_DEFAULTS }
  for (const key of Object.keys(STORED_LIMIT_DEFAULTS) as Array<keyof StoredLimits>) {
    const value = given[key]
    if (value !== undefined) limits[key] = value
  }
  return Object.freeze(limits)
}

type SizeLimit = 'maxLabelValueBytes' | 'maxNameBytes' | 'maxTextBytes' | 'maxVerbatimBytes'

/** E_VALUE_TOO_LARGE when `text` has more UTF-8 bytes than the limit allows. */
function checkSize(limits: StoredLimits, limit: SizeLimit, where: Where, name: string, what: string, text: string | undefined): void {
  if (text === undefined) return
  const allowed = limits[limit]
  // A UTF-16 unit is at most 3 UTF-8 bytes: short text is within the limit without counting.
  if (text.length * 3 <= allowed) return
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > allowed) throw apiError('E_VALUE_TOO_LARGE', { where, name, what, bytes, limit: allowed, flag: STORED_LIMIT_FLAGS[limit] })
}

type CountLimit = 'maxLabels' | 'maxLabelsPerAgent' | 'maxTemplates' | 'maxFields'

/** E_LIMIT_REACHED when `holder` already has `count` of what the limit bounds; `fix` gets the flag. */
function checkCount(limits: StoredLimits, limit: CountLimit, count: number, holder: string, what: string, fix: (flag: string) => string): void {
  const allowed = limits[limit]
  const flag = STORED_LIMIT_FLAGS[limit]
  if (count >= allowed) throw apiError('E_LIMIT_REACHED', { holder, count, what, limit: allowed, flag, fix: fix(flag) })
}

export function checkLabelSizes(limits: StoredLimits, label: { name: string; value: string }): void {
  checkSize(limits, 'maxNameBytes', 'body field', 'name', 'custom label name', label.name)
  checkSize(limits, 'maxLabelValueBytes', 'body field', 'value', 'custom label value', label.value)
}

/** Before a new custom label is created, with `count` labels in the manager. */
export function checkLabelCount(limits: StoredLimits, count: number): void {
  checkCount(limits, 'maxLabels', count, 'The manager', 'custom labels', (flag) => `remove unused ones with removecustomlabel, or start fleetsim with a higher --${flag}`)
}

/** Before a label is assigned to an agent that has `count` labels. */
export function checkAgentLabelCount(limits: StoredLimits, count: number, agent: string): void {
  checkCount(limits, 'maxLabelsPerAgent', count, `Agent ${JSON.stringify(agent)}`, 'custom labels', (flag) =>
    `remove one of its labels with removecustomlabel first, or start fleetsim with a higher --${flag}`
  )
}

/** The parts of a template input the limits measure (see templates.ts). */
export interface TemplateText {
  name: string
  description?: string
  config: { address?: string; verbatim?: string }
}

export function checkTemplateSizes(limits: StoredLimits, template: TemplateText): void {
  checkSize(limits, 'maxNameBytes', 'body field', 'name', 'template name', template.name)
  checkSize(limits, 'maxTextBytes', 'body field', 'description', 'template description', template.description)
  checkSize(limits, 'maxTextBytes', 'body field', 'global-config.address', 'template address', template.config.address)
  checkSize(limits, 'maxVerbatimBytes', 'body field', 'global-config.verbatim', 'template verbatim text', template.config.verbatim)
}

/** Before a template is created, with `count` templates in the manager. */
export function checkTemplateCount(limits: StoredLimits, count: number): void {
  checkCount(limits, 'maxTemplates', count, 'The manager', 'templates', (flag) =>
    `templates cannot be deleted: reuse one with modifymastertemplate or modifysubtemplate, or start fleetsim with a higher --${flag}`
  )
}

export function checkFieldSizes(limits: StoredLimits, field: { name: string; description?: string }): void {
  checkSize(limits, 'maxNameBytes', 'body field', 'name', 'manager field name', field.name)
  checkSize(limits, 'maxTextBytes', 'body field', 'fieldDescription.description', 'manager field description', field.description)
}

/** Before a field is created, with `count` fields in the manager. */
export function checkFieldCount(limits: StoredLimits, count: number): void {
  checkCount(limits, 'maxFields', count, 'The manager', 'manager fields', (flag) => `fields cannot be deleted: start fleetsim with a higher --${flag}`)
}

/** addagent and modifyagent: the agent's name (when the body gives one) and configuration text. */
export function checkAgentSizes(limits: StoredLimits, agent: { name?: string; config: { address: string; verbatim?: string } }): void {
  checkSize(limits, 'maxNameBytes', 'body field', 'name', 'agent name', agent.name)
  checkSize(limits, 'maxTextBytes', 'body field', 'global-config.address', 'agent address', agent.config.address)
  checkSize(limits, 'maxVerbatimBytes', 'body field', 'global-config.verbatim', 'agent verbatim text', agent.config.verbatim)
}

/**
 * E_LIMIT_REACHED for addagent when the fleet has no room left (FleetFullError): its room is set
 * at start by --max-added-agents, and every agent added over the run takes some of it, deleted
 * or not (an agent's place in the fleet's memory is its identity, and is not used again).
 */
export function fleetFull(error: FleetFullError): ApiError {
  return apiError('E_LIMIT_REACHED', {
    holder: 'The fleet',
    count: error.added,
    what: 'agents added over this run (deleted ones count too)',
    limit: error.room,
    flag: 'max-added-agents',
    fix: 'start fleetsim with a higher --max-added-agents'
  })
}
