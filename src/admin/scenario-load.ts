/**
 * A scenario from an admin request body, compiled against the manager's templates: the one
 * path from text to something `engine.reset(compiled)` runs, shared by PUT /__admin/scenario
 * and the server's --scenario flag.
 */
import { compileScenario, ScenarioCompileError, type CompiledScenario } from '../fleet/scenario-program.js'
import { apiError } from '../protocol/errors.js'
import type { Manager } from '../manager/manager.js'
import { formatIssue, type ScenarioIssue } from '../scenario/errors.js'
import { checkScenarioValue, parseScenario } from '../scenario/load.js'
import type { Scenario } from '../scenario/types.js'
import { managerTemplates } from './templates.js'

/** The issues of an invalid scenario, carried to the admin error handler. */
export class InvalidScenarioError extends Error {
  constructor(readonly issues: readonly ScenarioIssue[]) {
    super(`invalid scenario: ${issues.length} problem(s)`)
    this.name = 'InvalidScenarioError'
  }
}

/** One envelope error item per problem: the catalogue code, and where the problem is. */
export function issueItems(issues: readonly ScenarioIssue[]) {
  return issues.map((issue) => {
    const error = apiError('E_INVALID_SCENARIO', { problem: formatIssue(issue) })
    return { status: error.statusCode, code: error.code, message: error.message, issue: issue.code, path: issue.path, line: issue.line, column: issue.column }
  })
}

/** Parses YAML or JSON text (or checks an already parsed value); throws InvalidScenarioError. */
export function readScenario(body: unknown, sourceName: string): Scenario {
  const result = typeof body === 'string' ? parseScenario(body, sourceName) : checkScenarioValue(body, sourceName)
  if (!result.ok) throw new InvalidScenarioError(result.issues)
  return result.scenario
}

/** Compiles with template names resolved (and created when missing) in the manager. */
export function compileForManager(scenario: Scenario, epochMs: number, manager: Manager): CompiledScenario {
  try {
    return compileScenario(scenario, epochMs, managerTemplates(manager, scenario.name))
  } catch (error) {
    if (error instanceof ScenarioCompileError) throw apiError('E_SCENARIO_UNSUPPORTED', { detail: error.message })
    throw error
  }
}
