/**
 * Scenario template names → the manager's master template ids. A scenario that assigns or
 * selects `linux-baseline` refers to the manager's master template of that name; when the
 * manager has none yet, one is created with the defaults below, so agentinfo, viewagentortemplate
 * and assigntemplatetoagent all see the same template the scenario uses.
 */
import type { CompileContext } from '../fleet/scenario-program.js'
import { ScenarioCompileError } from '../fleet/scenario-program.js'
import type { Manager } from '../manager/manager.js'
import { ApiError, apiError } from '../protocol/errors.js'
import type { MasterConfig } from '../manager/templates.js'

/** The configuration of a master template created for a scenario. */
export function defaultMasterConfig(caFingerprint: string): MasterConfig {
  return { address: 'manager.fleetsim.local', port: 4041, caFingerprint, isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' }
}

/** Id a dry run gives a template it would create: the compiled program is thrown away. */
const NOT_CREATED = 0

/** The scenario's template names resolved in the manager, and the templates it created for them. */
export interface ScenarioTemplates extends CompileContext {
  /** the names of the templates the load created, or a dry run (`create: false`) would have */
  readonly ownNames: ReadonlySet<string>
  /**
   * Takes back the templates created for the scenario (its load was refused after all): a refused
   * load changes nothing, and no operation could delete them.
   */
  takeBack(): void
}

/**
 * `create: false` (a dry run): a missing template is not created, but checked as its creation
 * would be (its name free, within the size limits, room for it and the others to create), so a
 * dry run refuses what the load would; the compiled program is only a check.
 */
export function managerTemplates(manager: Manager, scenarioName: string, { create = true }: { create?: boolean } = {}): ScenarioTemplates {
  const created: number[] = []
  const checked = new Set<string>()
  const inputOf = (name: string) => ({
    name,
    description: `created by fleetsim for scenario "${scenarioName}"`,
    config: defaultMasterConfig(manager.certificates.caFingerprint)
  })
  return {
    ownNames: checked,
    templateId(name) {
      const existing = manager.templates.get(name)
      if (existing?.kind === 'master') return existing.id
      if (existing !== undefined) throw new ScenarioCompileError(`"${name}" is a sub template of the manager; scenario templates are master templates, so rename one of them`)
      try {
        if (!create) {
          if (!checked.has(name)) manager.templates.check(inputOf(name), checked.size)
          checked.add(name)
          return NOT_CREATED
        }
        const template = manager.templates.add('master', inputOf(name))
        created.push(template.id)
        checked.add(name)
        return template.id
      } catch (error) {
        // The registry's errors name the fields of a createmastertemplate body, which an upload has not.
        if (error instanceof ApiError) throw new ApiError(error.code, `The scenario's master template "${name}" cannot be created: ${error.message}`, error.more)
        throw error
      }
    },
    takeBack() {
      for (const id of created.splice(0)) manager.templates.takeBack(id)
    }
  }
}

/**
 * Refuses a new run (a reset, a scenario loaded or stopped) that may name one of its agents as
 * one of the manager's templates (`startsWithName`), kept or the scenario's own (`own`: the ones
 * its load creates, or a dry run would). Templates outlive runs, and a name is unique across
 * agents and templates: a template made while its name was free (its agent deleted, or in another
 * scenario's fleet) would otherwise share it with an agent of the new run, and agentinfo,
 * viewagentortemplate and assigntemplatetoagent would each pick one of the two. A kept template
 * is renamed through the REST operations; the scenario's own, in the scenario.
 */
export function refuseTemplatesNamedAsAgents(manager: Manager, startsWithName: (name: string) => boolean, doing: string, own: ReadonlySet<string> = new Set()): void {
  const kept: string[] = []
  for (const template of manager.templates.all()) if (!own.has(template.name) && startsWithName(template.name)) kept.push(template.name)
  const scenarios = [...own].filter(startsWithName)
  if (scenarios.length > 0) throw apiError('E_TEMPLATE_NAMES_AGENT', { templates: scenarios, whose: 'scenario', doing })
  if (kept.length > 0) throw apiError('E_TEMPLATE_NAMES_AGENT', { templates: kept, whose: 'manager', doing })
}
