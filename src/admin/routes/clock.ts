/** GET /__admin/clock, POST /__admin/clock, POST /__admin/clock/advance. */
import type { FastifyInstance } from 'fastify'
import { speedProblem, type ClockState } from '../../fleet/clock.js'
import { apiError, shown } from '../../protocol/errors.js'
import { objectBody, optionalBoolean, requireField, seconds } from '../body.js'
import type { AdminContext } from '../context.js'
import { adminSchema } from '../openapi.js'

/** Most virtual seconds one advance call may step: 30 days. Longer runs take several calls (or `fleetsim run`). */
export const MAX_ADVANCE_SECONDS = 30 * 86400

function clockJson(state: ClockState) {
  return { now: new Date(state.now).toISOString(), speed: state.speed, paused: state.paused }
}

export function clockRoutes(app: FastifyInstance, { engine }: AdminContext): void {
  app.get('/clock', { schema: adminSchema('adminGetClock', 'The virtual clock: now, speed, paused') }, async () => clockJson(engine.clockState()))

  app.post('/clock', { schema: adminSchema('adminSetClock', 'Pause, resume or change the speed of the virtual clock', true) }, async (request) => {
    const body = objectBody(request.body, 'POST /__admin/clock', '{"paused": true, "speed": 60}', ['paused', 'speed'], true)
    const paused = optionalBoolean(body, 'paused')
    const speed = body.speed
    if (speed !== undefined) {
      const problem = speedProblem(typeof speed === 'number' ? speed : Number.NaN)
      if (problem !== undefined) throw apiError('E_INVALID_VALUE', { where: 'body field', name: 'speed', rule: problem, got: shown(speed) })
    }
    // A pause answers once the fleet holds still at the paused second: the next read sees it.
    return clockJson(await engine.setClock({ ...(paused !== undefined ? { paused } : {}), ...(typeof speed === 'number' ? { speed } : {}) }))
  })

  app.post('/clock/advance', { schema: adminSchema('adminAdvanceClock', 'Step the virtual clock forward by some seconds', true) }, async (request) => {
    const body = objectBody(request.body, 'POST /__admin/clock/advance', '{"seconds": 60}', ['seconds'], true)
    const rule = `must be a whole number of seconds (or a duration like "5m") from 0 to ${MAX_ADVANCE_SECONDS} (30 days)`
    const n = seconds(requireField(body, 'seconds'), 'seconds', rule)
    if (!Number.isInteger(n) || n > MAX_ADVANCE_SECONDS) throw apiError('E_INVALID_VALUE', { where: 'body field', name: 'seconds', rule, got: shown(body.seconds) })
    // Answers once the fleet has been stepped there: a following read sees the new second.
    return clockJson(await engine.advance(n))
  })
}
