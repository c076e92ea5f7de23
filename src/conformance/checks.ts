/**
 * The black-box checks of `fleetsim conformance`, in the order they run. Each check makes its
 * own requests (so a broken answer fails exactly the check that looks at it) and states what
 * the spec or the facts about the real manager say. Checks that need what an earlier one found
 * (an agent, the CA fingerprint, a created agent's uuid, the templates) declare it (`needs`,
 * `provides`: src/conformance/facts.ts), so their order matters: providers come first.
 * Write checks create uniquely named objects (`fleetsim-conformance-<run>-...`) and delete the
 * agents they created.
 */
import type { Check } from './check.js'
import { addagent, deleteagent204, deleteagentWarning, modifyagent, stopStart } from './checks/agent-lifecycle.js'
import { agentinfoEnvelope, agentinfoModules, agentinfoRecordFields, agentinfoStateFilter } from './checks/agent-reads.js'
import { authRejected, errorEnvelope } from './checks/auth-errors.js'
import { acceptXml, suffixJson, xmlRoot } from './checks/formats.js'
import { createfield, labels } from './checks/labels-fields.js'
import { agentmanagerEnvelope, appinfoRecord, certificateinfo, linksDoubleMvc } from './checks/manager-info.js'
import { assigntemplatetoagent, templates } from './checks/templates.js'

export type { Check } from './check.js'

export const CHECKS: readonly Check[] = [
  authRejected,
  agentmanagerEnvelope,
  appinfoRecord,
  linksDoubleMvc,
  suffixJson,
  xmlRoot,
  acceptXml,
  agentinfoEnvelope,
  agentinfoRecordFields,
  agentinfoModules,
  agentinfoStateFilter,
  errorEnvelope,
  certificateinfo,
  addagent,
  modifyagent,
  templates,
  assigntemplatetoagent,
  labels,
  stopStart,
  deleteagentWarning,
  deleteagent204,
  createfield
]
