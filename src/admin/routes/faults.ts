/**
 * The API fault rules in force: GET /__admin/faults lists them, PUT /__admin/faults switches them
 * all on or off, POST /__admin/faults adds one, DELETE /__admin/faults/<id> removes one.
 *
 * An added rule is written as an entry of a scenario's `faults` (YAML or JSON), read by the
 * scenario's own reader, so it is checked and normalised exactly as a scenario's rule is and its
 * problems come with path, line and column.
 */
import type { FastifyInstance } from 'fastify'
import { MAX_ADDED_RULES, type FaultRuleStatus, type FaultState } from '../../faults/state.js'
import { apiError, shown } from '../../protocol/errors.js'
import { parseFaultRule } from '../../scenario/load.js'
import { objectBody, requireField } from '../body.js'
import type { AdminContext } from '../context.js'
import { adminSchema } from '../openapi.js'
import { InvalidScenarioError } from '../scenario-load.js'
import { readTextBodies, requireText } from '../text-body.js'

/** A listed rule as the admin API shows it: id and origin first, then the normalised rule. */
function shownRule({ id, origin, rule, failFirstLeft }: FaultRuleStatus) {
  return { id, origin, ...rule, ...(failFirstLeft === null ? {} : { failFirstLeft }) }
}

function listing(faults: FaultState) {
  return { enabled: faults.enabled, rules: faults.status().map(shownRule) }
}

/** Who holds a rule's name, for E_DUPLICATE_NAME. */
const OWNERS = { scenario: "the scenario's fault rule", flag: 'the quick fault flag rule', admin: 'the added fault rule' } as const

export async function faultRoutes(app: FastifyInstance, { faults }: AdminContext): Promise<void> {
  app.get('/faults', { schema: adminSchema('adminGetFaults', 'The API fault rules in force and whether they are enabled') }, async () => listing(faults))

  app.put('/faults', { schema: adminSchema('adminSetFaults', 'Enable or disable the API fault rules', true) }, async (request) => {
    const body = objectBody(request.body, 'PUT /__admin/faults', '{"enabled": false}', ['enabled'], true)
    const enabled = requireField(body, 'enabled')
    if (typeof enabled !== 'boolean') throw apiError('E_WRONG_TYPE', { where: 'body field', name: 'enabled', expected: 'true or false', got: shown(enabled) })
    faults.enabled = enabled
    return listing(faults)
  })

  app.delete<{ Params: { id: string } }>('/faults/:id', { schema: adminSchema('adminRemoveFault', 'Remove one API fault rule by its id') }, async (request) => {
    const { id } = request.params
    if (!faults.remove(id)) throw apiError('E_UNKNOWN_FAULT_RULE', { id, ids: faults.status().map((rule) => rule.id) })
    return { removed: id, ...listing(faults) }
  })

  await app.register(async (scope) => {
    readTextBodies(scope)
    scope.post('/faults', { schema: adminSchema('adminAddFault', 'Add an API fault rule, written as a scenario faults entry', 'fault-rule') }, async (request) => {
      const text = requireText(request.body, 'POST /__admin/faults', 'fault rule')
      if (faults.addedRules() >= MAX_ADDED_RULES) throw apiError('E_TOO_MANY_FAULT_RULES', { limit: MAX_ADDED_RULES })
      // The name an unnamed rule gets is the id it will have, so the two never disagree.
      const result = parseFaultRule(text, 'fault rule', faults.nextAddedId())
      if (!result.ok) throw new InvalidScenarioError(result.issues, 'E_INVALID_FAULT_RULE')
      const holder = faults.status().find((listed) => listed.rule.name === result.value.name)
      if (holder !== undefined) throw apiError('E_DUPLICATE_NAME', { name: result.value.name, owner: `${OWNERS[holder.origin]} ${holder.id}` })
      const added = faults.add(result.value)
      return { added: added.id, ...listing(faults) }
    })
  })
}
