/**
 * The manager's own state next to the fleet: templates, custom labels, manager fields and
 * certificates, plus the one rule that spans them: agent and template names share a
 * namespace (viewagentortemplate finds either by name).
 */
import type { Fleet } from '../fleet/fleet-api.js'
import type { CaInfo } from '../tls/ca-info.js'
import { apiError } from '../protocol/errors.js'
import { TurnQueue } from '../lib/turn-queue.js'
import { CertificateRegistry, type CertificatesSnapshot } from './certificates.js'
import { FieldRegistry, type FieldsSnapshot } from './fields.js'
import { LabelRegistry, type LabelsSnapshot } from './labels.js'
import { storedLimits, type StoredLimits } from './limits.js'
import { TemplateRegistry, type TemplatesSnapshot } from './templates.js'

/** Everything the manager keeps, as plain data, for the state file. */
export interface ManagerSnapshot {
  startedAt: number
  templates: TemplatesSnapshot
  labels: LabelsSnapshot
  fields: FieldsSnapshot
  certificates: CertificatesSnapshot
}

export interface Manager {
  readonly fleet: Fleet
  readonly templates: TemplateRegistry
  readonly labels: LabelRegistry
  readonly fields: FieldRegistry
  readonly certificates: CertificateRegistry
  /** how much it stores for clients (limits.ts); the agent routes check agents' text against it */
  readonly limits: StoredLimits
  /** virtual time the manager started (appinfo's mgrUptime counts from here) */
  readonly startedAt: number
  /** E_DUPLICATE_NAME when an agent or template already has the name (other than `except`) */
  checkName(name: string, except?: string): void
  /**
   * The manager's turns for what checks and then changes (RouteKit.serial: an add after its name
   * check, a rename, a delete) and for replacing the fleet (a reset, a scenario loaded or
   * stopped): sections never overlap. A name checked against the fleet a reset is replacing
   * would be added to the new fleet unchecked, under a name one of its agents has.
   */
  serial<T>(section: () => Promise<T> | T): Promise<T>
  /**
   * forgets everything the manager keeps about agents that are being deleted (what it keeps
   * about the agents of a run that ends, with a reset, it forgets by itself: Fleet.onNewRun)
   */
  forgetAgents(indices: readonly number[], revokeCert: boolean): void
  snapshot(): ManagerSnapshot
}

export interface ManagerOptions {
  /** continues a run from a state file (restored as saved, whatever the limits) */
  saved?: ManagerSnapshot
  /** default STORED_LIMIT_DEFAULTS; ones not given keep their default */
  limits?: Partial<StoredLimits>
}

/** The manager's state. */
export function createManager(fleet: Fleet, ca: CaInfo, options: ManagerOptions = {}): Manager {
  const { saved } = options
  const limits = storedLimits(options.limits)
  const checkName = (name: string, except?: string): void => {
    if (name === except) return
    if (fleet.findByName(name) !== undefined) throw apiError('E_DUPLICATE_NAME', { name, owner: `agent "${name}"` })
    // One name, one agent: a name is not free while the agent deleted under it will rejoin.
    const rejoining = fleet.findRejoining(name)
    if (rejoining !== undefined) throw apiError('E_NAME_RESERVED', { name, uuid: fleet.uuid(rejoining) })
    const template = templates.get(name)
    if (template !== undefined) {
      throw apiError('E_DUPLICATE_NAME', { name, owner: `${template.kind} template "${name}"` })
    }
  }
  const templates = new TemplateRegistry(checkName, limits)
  const labels = new LabelRegistry(limits, (index) => fleet.name(index))
  const certificates = new CertificateRegistry(fleet, ca)
  const fields = new FieldRegistry(limits)
  /**
   * The one place that decides what becomes of the records the manager keeps by agent index,
   * the labels and templates a client gave an agent, when indices stop naming their agents. An
   * index names one agent for the life of a run: addagent takes an index never used in the run,
   * and deleteagent forgets the agent's records (forgetAgents). A new run (a reset, a scenario
   * loaded or removed) hands the indices out from 0 again, to agents built anew at second 0, so
   * every record goes with the run it was given in; the labels and templates themselves stay.
   * Certificates are kept by fingerprint, and move their index-based ids themselves (certificates.ts).
   */
  const retainAgentRecords = (keep: (index: number) => boolean): void => {
    labels.retainAgents(keep)
    templates.retainAgents(keep)
  }
  if (saved !== undefined) {
    templates.restore(saved.templates)
    labels.restore(saved.labels)
    fields.restore(saved.fields)
    certificates.restore(saved.certificates)
    // The saved fleet is resumed as it was, so its agents keep their records; a state saved by an
    // older fleetsim may hold records a reset left behind, and those of indices without an agent
    // go (there, addagent would hand them to the agent it adds).
    retainAgentRecords((index) => fleet.exists(index))
  }
  fleet.onNewRun(() => retainAgentRecords(() => false))
  const startedAt = saved?.startedAt ?? fleet.now()
  const turns = new TurnQueue()
  return {
    fleet,
    serial: (section) => turns.run(section),
    templates,
    labels,
    fields,
    certificates,
    limits,
    startedAt,
    checkName,
    snapshot: () => ({
      startedAt,
      templates: templates.snapshot(),
      labels: labels.snapshot(),
      fields: fields.snapshot(),
      certificates: certificates.snapshot()
    }),
    forgetAgents(indices, revokeCert) {
      for (const index of indices) {
        const fingerprint = fleet.config(index).certFingerprint
        // Kept explicitly: the certificate outlives its agent (listed, and reusable when not
        // revoked, as a reconnecting agent would reuse it).
        if (revokeCert) certificates.revoke(fingerprint)
        else certificates.keep(fingerprint)
        templates.forgetAgent(index)
        labels.forgetAgent(index)
      }
    }
  }
}
