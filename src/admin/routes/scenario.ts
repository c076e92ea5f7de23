/**
 * PUT, GET and DELETE /__admin/scenario. PUT takes the scenario as YAML (application/yaml,
 * text/yaml) or JSON; both are read as text, so problems in either come with line and column.
 * The scenario replaces the running one: the fleet is rebuilt at its start.
 */
import type { FastifyInstance } from 'fastify'
import { apiError } from '../../protocol/errors.js'
import { compileForManager, readScenario } from '../scenario-load.js'
import type { AdminContext } from '../context.js'
import { adminSchema } from '../openapi.js'

export const SCENARIO_TYPES: Array<string | RegExp> = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', /^application\/[\w.-]+\+(json|yaml)$/]

/** Names an uploaded scenario that has no `name` of its own. */
const DEFAULT_SOURCE = 'admin-upload'

export async function scenarioRoutes(app: FastifyInstance, { engine, manager }: AdminContext): Promise<void> {
  // Own parsers in their own scope: the scenario text, untouched, for the YAML loader.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    for (const type of SCENARIO_TYPES) scope.addContentTypeParser(type, { parseAs: 'string' }, (_request, text, done) => done(null, text))

    scope.put<{ Querystring: { source?: string } }>('/scenario', { schema: adminSchema('adminLoadScenario', 'Load and start a scenario (YAML or JSON)', 'scenario') }, async (request) => {
      if (typeof request.body !== 'string' || request.body.trim() === '') {
        throw apiError('E_MISSING_BODY', { operation: 'PUT /__admin/scenario', body: 'scenario, as YAML or JSON,' })
      }
      const source = typeof request.query.source === 'string' && request.query.source !== '' ? request.query.source : DEFAULT_SOURCE
      const scenario = readScenario(request.body, source)
      const compiled = compileForManager(scenario, engine.clock.epochMs, manager)
      await engine.reset(compiled)
      return engine.scenarioInfo()
    })
  })

  app.get('/scenario', { schema: adminSchema('adminGetScenario', 'The running scenario and its progress') }, async () => {
    const info = engine.scenarioInfo()
    if (info === undefined) throw apiError('E_NO_SCENARIO')
    return info
  })

  app.delete('/scenario', { schema: adminSchema('adminStopScenario', 'Stop the scenario and go back to the default fleet') }, async () => {
    await engine.reset(null)
    const { agents, byState } = engine.counts()
    return { scenario: null, agents, byState }
  })
}
