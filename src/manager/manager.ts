/**
 * The manager's own state next to the fleet: templates, custom labels, manager fields and
 * certificates, plus the one rule that spans them: agent and template names share a
 * namespace (viewagentortemplate finds either by name).
 */
import type { Fleet } from '../fleet/fleet-api.js'
import type { CaInfo } from '../tls/ca-info.js'
import { apiError } from '../http/errors.js'
import { CertificateRegistry } from './certificates.js'
import { FieldRegistry } from './fields.js'
import { LabelRegistry } from './labels.js'
import { TemplateRegistry } from './templates.js'

export interface Manager {
  readonly fleet: Fleet
  readonly templates: TemplateRegistry
  readonly labels: LabelRegistry
  readonly fields: FieldRegistry
  readonly certificates: CertificateRegistry
  /** virtual time the manager started (appinfo's mgrUptime counts from here) */
  readonly startedAt: number
  /** E_DUPLICATE_NAME when an agent or template already has the name (other than `except`) */
  checkName(name: string, except?: string): void
  /** forgets everything the manager keeps about agents that are being deleted */
  forgetAgents(indices: readonly number[], revokeCert: boolean): void
}

export function createManager(fleet: Fleet, ca: CaInfo): Manager {
  const checkName = (name: string, except?: string): void => {
    if (name === except) return
    if (fleet.findByName(name) !== undefined) throw apiError('E_DUPLICATE_NAME', { name, owner: `agent "${name}"` })
    const template = templates.get(name)
    if (template !== undefined) {
      throw apiError('E_DUPLICATE_NAME', { name, owner: `${template.kind} template "${name}"` })
    }
  }
  const templates = new TemplateRegistry(checkName)
  const labels = new LabelRegistry()
  const certificates = new CertificateRegistry(fleet, ca)
  return {
    fleet,
    templates,
    labels,
    fields: new FieldRegistry(),
    certificates,
    startedAt: fleet.now(),
    checkName,
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
