/** GET /__admin/faults and PUT /__admin/faults: API fault injection on or off, and the rules. */
import type { FastifyInstance } from 'fastify'
import { apiError, shown } from '../../protocol/errors.js'
import { objectBody, requireField } from '../body.js'
import type { AdminContext } from '../context.js'
import { adminSchema } from '../openapi.js'

export function faultRoutes(app: FastifyInstance, { faults }: AdminContext): void {
  const state = () => ({
    enabled: faults.enabled,
    rules: faults.status().map(({ rule, failFirstLeft }) => ({ ...rule, ...(failFirstLeft === null ? {} : { failFirstLeft }) }))
  })

  app.get('/faults', { schema: adminSchema('adminGetFaults', 'The API fault rules in force and whether they are enabled') }, async () => state())

  app.put('/faults', { schema: adminSchema('adminSetFaults', 'Enable or disable the API fault rules', true) }, async (request) => {
    const body = objectBody(request.body, 'PUT /__admin/faults', '{"enabled": false}', ['enabled'], true)
    const enabled = requireField(body, 'enabled')
    if (typeof enabled !== 'boolean') throw apiError('E_WRONG_TYPE', { where: 'body field', name: 'enabled', expected: 'true or false', got: shown(enabled) })
    faults.enabled = enabled
    return state()
  })
}
