/**
 * GET /__admin/fleet, POST /__admin/reset, and one agent's controls:
 * POST /__admin/agents/<name>/override and POST /__admin/agents/<name>/fail-next-reconnect.
 */
import type { FastifyInstance } from 'fastify'
import { OVERRIDE_ACTIONS, type OverrideAction } from '../../fleet/fleet.js'
import { apiError, shown } from '../../protocol/errors.js'
import { MAX_SCHEDULED_SECONDS, MAX_SCHEDULED_TEXT } from '../../lib/units.js'
import { objectBody, requireField, seconds } from '../body.js'
import type { AdminContext } from '../context.js'
import { adminSchema } from '../openapi.js'
import { refuseTemplatesNamedAsAgents } from '../templates.js'
import { suggest } from '../../lib/suggest.js'

const ACTIONS = Object.keys(OVERRIDE_ACTIONS) as OverrideAction[]

function isAction(value: unknown): value is OverrideAction {
  return typeof value === 'string' && Object.hasOwn(OVERRIDE_ACTIONS, value)
}

export function fleetRoutes(app: FastifyInstance, { engine, manager }: AdminContext): void {
  app.get('/fleet', { schema: adminSchema('adminGetFleet', 'Agent counts by state and the fleet digest') }, async () => {
    // Counts of a fleet being rebuilt would be of none, then some of its agents.
    await engine.resetting()
    const { agents, byState } = engine.counts()
    return { agents, byState, digest: await engine.digest() }
  })

  app.post('/reset', { schema: adminSchema('adminReset', 'Reset the fleet to the scenario start') }, async () => {
    // In the manager's turns, with the templates' check: no name is checked and taken meanwhile.
    await manager.serial(async () => {
      refuseTemplatesNamedAsAgents(manager, engine.startsWithName(), 'reset')
      await engine.reset()
    })
    const { agents, byState } = engine.counts()
    return { scenario: engine.scenarioSummary()?.name ?? null, second: engine.second(), agents, byState }
  })

  /** The agent of this name, once a reset under way has ended (a fleet being rebuilt has none, then some, of its agents). */
  const agentIndex = async (name: string): Promise<number> => {
    await engine.resetting()
    const index = engine.findByName(name)
    if (index === undefined) throw apiError('E_UNKNOWN_AGENT', { by: 'name', values: [name] })
    return index
  }

  app.post<{ Params: { name: string } }>('/agents/:name/override', { schema: adminSchema('adminOverrideAgent', 'Force one agent into a state, optionally for a while', true) }, async (request) => {
    const index = await agentIndex(request.params.name)
    const body = objectBody(request.body, 'POST /__admin/agents/<name>/override', '{"action": "offline", "for": "5m"}', ['action', 'for'], true)
    const action = requireField(body, 'action')
    if (!isAction(action)) {
      const near = typeof action === 'string' ? suggest(action, ACTIONS) : undefined
      throw apiError('E_NOT_IN_ENUM', { where: 'body field', name: 'action', allowed: ACTIONS, got: shown(action), ...(near === undefined ? {} : { near }) })
    }
    let forSeconds = 0
    if (body.for !== undefined) {
      // Whole seconds, as a scenario's `for` (docs/scenarios.md, "Whole seconds"): the fleet
      // moves in steps of one virtual second, and a fraction was rounded without a word.
      const rule = `must be a duration of at least one second in whole seconds (the fleet moves in steps of one virtual second) and at most ${MAX_SCHEDULED_TEXT}, like "5m" or 300`
      forSeconds = seconds(body.for, 'for', rule)
      if (forSeconds < 1 || forSeconds > MAX_SCHEDULED_SECONDS || !Number.isInteger(forSeconds)) throw apiError('E_INVALID_VALUE', { where: 'body field', name: 'for', rule, got: shown(body.for) })
    }
    await engine.overrideAgent(index, action, forSeconds)
    return { agent: engine.name(index), action, for: forSeconds === 0 ? null : forSeconds, status: engine.view(index, false).status }
  })

  app.post<{ Params: { name: string } }>('/agents/:name/fail-next-reconnect', { schema: adminSchema('adminFailNextReconnect', 'Make the next reconnect of one agent fail') }, async (request) => {
    const index = await agentIndex(request.params.name)
    await engine.failNextReconnect(index)
    return { agent: engine.name(index), failNextReconnect: true }
  })
}
