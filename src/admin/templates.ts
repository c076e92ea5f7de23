/**
 * Scenario template names → the manager's master template ids. A scenario that assigns or
 * selects `linux-baseline` refers to the manager's master template of that name; when the
 * manager has none yet, one is created with the defaults below, so agentinfo, viewagentortemplate
 * and assigntemplatetoagent all see the same template the scenario uses.
 */
import type { CompileContext } from '../fleet/scenario-program.js'
import { ScenarioCompileError } from '../fleet/scenario-program.js'
import type { Manager } from '../manager/manager.js'
import type { MasterConfig } from '../manager/templates.js'

/** The configuration of a master template created for a scenario. */
export function defaultMasterConfig(caFingerprint: string): MasterConfig {
  return { address: 'manager.fleetsim.local', port: 4041, caFingerprint, isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' }
}

/** Id a dry run gives a template it would create: the compiled program is thrown away. */
const NOT_CREATED = 0

/** `create: false` (a dry run): a missing template is not created, and the compiled program is only a check. */
export function managerTemplates(manager: Manager, scenarioName: string, { create = true }: { create?: boolean } = {}): CompileContext {
  return {
    templateId(name) {
      const existing = manager.templates.get(name)
      if (existing?.kind === 'master') return existing.id
      if (existing !== undefined) throw new ScenarioCompileError(`"${name}" is a sub template of the manager; scenario templates are master templates, so rename one of them`)
      if (!create) return NOT_CREATED
      const created = manager.templates.add('master', {
        name,
        description: `created by fleetsim for scenario "${scenarioName}"`,
        config: defaultMasterConfig(manager.certificates.caFingerprint)
      })
      return created.id
    }
  }
}
