/**
 * PUT, GET and DELETE /__admin/scenario. PUT takes the scenario as YAML (application/yaml,
 * text/yaml) or JSON; both are read as text, so problems in either come with line and column.
 * The scenario replaces the running one: the fleet is rebuilt at its start. With `?dryRun=true`
 * PUT only checks the scenario (an editor's "check" button) and changes nothing.
 */
import type { FastifyInstance } from 'fastify'
import { apiError } from '../../protocol/errors.js'
import { checkForManager, compileForManager, readScenario, scenarioSummary } from '../scenario-load.js'
import type { AdminContext } from '../context.js'
import { adminSchema } from '../openapi.js'
import { refuseTemplatesNamedAsAgents } from '../templates.js'
import { readTextBodies, requireText } from '../text-body.js'

/** Names an uploaded scenario that has no `name` of its own. */
const DEFAULT_SOURCE = 'admin-upload'

function dryRunOf(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false
  if (value === 'true') return true
  throw apiError('E_NOT_IN_ENUM', { where: 'query parameter', name: 'dryRun', allowed: ['true', 'false'], got: JSON.stringify(value) })
}

export async function scenarioRoutes(app: FastifyInstance, { engine, manager }: AdminContext): Promise<void> {
  // Own parsers in their own scope: the scenario text, untouched, for the YAML loader.
  await app.register(async (scope) => {
    readTextBodies(scope)

    scope.put<{ Querystring: { source?: string; dryRun?: string } }>('/scenario', { schema: adminSchema('adminLoadScenario', 'Load and start a scenario (YAML or JSON), or only check it', 'scenario') }, async (request) => {
      const dryRun = dryRunOf(request.query.dryRun)
      const text = requireText(request.body, 'PUT /__admin/scenario', 'scenario')
      const source = typeof request.query.source === 'string' && request.query.source !== '' ? request.query.source : DEFAULT_SOURCE
      const scenario = readScenario(text, source)
      if (dryRun) {
        checkForManager(scenario, engine, manager)
        return { valid: true, ...scenarioSummary(scenario) }
      }
      // In the manager's turns: the templates checked against the new fleet's names stay so (fleet.ts /reset).
      await manager.serial(() => engine.reset(compileForManager(scenario, engine, manager)))
      return engine.scenarioInfo()
    })
  })

  app.get('/scenario', { schema: adminSchema('adminGetScenario', 'The running scenario and its progress') }, async () => {
    // A reset under way sets the run's scenario part way through: the answer is the run's once it is built.
    await engine.resetting()
    const info = engine.scenarioInfo()
    if (info === undefined) throw apiError('E_NO_SCENARIO')
    return info
  })

  app.delete('/scenario', { schema: adminSchema('adminStopScenario', 'Stop the scenario and go back to the default fleet') }, async () => {
    await manager.serial(async () => {
      refuseTemplatesNamedAsAgents(manager, engine.startsWithName(null), 'stop the scenario')
      await engine.reset(null)
    })
    const { agents, byState } = engine.counts()
    return { scenario: null, agents, byState }
  })
}
