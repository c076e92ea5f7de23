/**
 * A scenario from an admin request body, compiled against the manager's templates: the one
 * path from text to something `engine.reset(compiled)` runs, shared by PUT /__admin/scenario
 * and the server's --scenario flag.
 */
import { compileScenario, ScenarioCompileError, type CompiledScenario } from '../fleet/scenario-program.js'
import { apiError } from '../protocol/errors.js'
import type { Manager } from '../manager/manager.js'
import { formatIssue, problemCount, type ScenarioIssue } from '../scenario/errors.js'
import { checkScenarioValue, parseScenario } from '../scenario/load.js'
import type { Scenario } from '../scenario/types.js'
import type { FleetEngine } from '../fleet/fleet.js'
import { managerTemplates, refuseTemplatesNamedAsAgents, type ScenarioTemplates } from './templates.js'

/** The issues of an invalid scenario (or fault rule: `code`), carried to the admin error handler. */
export class InvalidScenarioError extends Error {
  constructor(
    readonly issues: readonly ScenarioIssue[],
    readonly code: 'E_INVALID_SCENARIO' | 'E_INVALID_FAULT_RULE' = 'E_INVALID_SCENARIO'
  ) {
    super(`invalid ${code === 'E_INVALID_SCENARIO' ? 'scenario' : 'fault rule'}: ${problemCount(issues)} problem(s)`)
    this.name = 'InvalidScenarioError'
  }
}

/**
 * One envelope error item per problem: the catalogue code and message, and the problem apart
 * (`issue` code, `path`, `line` and `column`, `problem` without place or advice) for a program
 * that shows it at its place, as the console's editor does.
 */
export function issueItems(error: InvalidScenarioError) {
  return error.issues.map((issue) => {
    const item = apiError(error.code, { problem: formatIssue(issue) })
    return { status: item.statusCode, code: item.code, message: item.message, issue: issue.code, path: issue.path, line: issue.line, column: issue.column, problem: issue.message }
  })
}

/** Parses YAML or JSON text (or checks an already parsed value); throws InvalidScenarioError. */
export function readScenario(body: unknown, sourceName: string): Scenario {
  const result = typeof body === 'string' ? parseScenario(body, sourceName) : checkScenarioValue(body, sourceName)
  if (!result.ok) throw new InvalidScenarioError(result.issues)
  return result.scenario
}

/** What a scenario is, in brief: the scenario library's listing and a dry run's answer. */
export function scenarioSummary(scenario: Scenario) {
  return {
    name: scenario.name,
    description: scenario.description,
    agents: scenario.fleet.agents,
    stages: scenario.stages.map((stage) => stage.name),
    timeline: scenario.timeline.map((event) => event.name),
    faults: scenario.faults.map((rule) => rule.name)
  }
}

/** What loading a scenario asks of the fleet: its clock's epoch, and the names its new run starts with. */
export type ScenarioHost = Pick<FleetEngine, 'clock' | 'startsWithName'>

/** What the refusal of a template named as an agent says to do again, once the template is renamed. */
const LOAD_AGAIN = 'load the scenario'

/**
 * Checks that the engine can hold the scenario, as compileForManager would, and changes nothing:
 * template names the manager lacks would be created then, so they pass; a sub template's name
 * fails as it would, and so does a template named as an agent the scenario's fleet starts with.
 */
export function checkForManager(scenario: Scenario, fleet: ScenarioHost, manager: Manager): void {
  compileChecked(scenario, fleet, manager, managerTemplates(manager, scenario.name, { create: false }))
}

/**
 * Compiles with template names resolved (and created when missing) in the manager. A refused
 * compile takes back the templates it created: the load changes nothing. So does a scenario
 * whose fleet starts with an agent named as a template (refuseTemplatesNamedAsAgents).
 */
export function compileForManager(scenario: Scenario, fleet: ScenarioHost, manager: Manager): CompiledScenario {
  const templates = managerTemplates(manager, scenario.name)
  try {
    return compileChecked(scenario, fleet, manager, templates)
  } catch (error) {
    templates.takeBack()
    throw error
  }
}

/** The scenario compiled against `templates`, and its agents' names checked against the manager's templates: a load and its dry run alike. */
function compileChecked(scenario: Scenario, fleet: ScenarioHost, manager: Manager, templates: ScenarioTemplates): CompiledScenario {
  let compiled: CompiledScenario
  try {
    compiled = compileScenario(scenario, fleet.clock.epochMs, templates)
  } catch (error) {
    if (error instanceof ScenarioCompileError) throw apiError('E_SCENARIO_UNSUPPORTED', { detail: error.message })
    throw error
  }
  refuseTemplatesNamedAsAgents(manager, fleet.startsWithName(compiled), LOAD_AGAIN, templates.ownNames)
  return compiled
}
