/**
 * POST /__admin/clock {"paused": true} answers once the fleet holds still at the paused clock's
 * second (docs/admin.md, "No sleeping"): a step round in flight when the pause comes ends before
 * the answer, so a read after it sees agents that no longer move. Before, the answer came at once
 * and the round in flight (and the catch-up to the paused second) changed agents after it, so a
 * list and the single answers read right after a pause could disagree.
 */
import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { AUTH, CA, START } from '../http/helpers.js'
import { admin, heldRounds } from './helpers.js'

/** Turns of the event loop: time for an answer that does not wait for anything to come. */
async function turns(count: number): Promise<void> {
  for (let k = 0; k < count; k++) await new Promise((resolve) => setImmediate(resolve))
}

let fleet: FleetEngine
let app: FastifyInstance
let rounds: ReturnType<typeof heldRounds>
beforeEach(async () => {
  rounds = heldRounds()
  // The clock runs at speed 600: rounds come every 40 ms of wall time.
  fleet = await createFleet({ agents: 200, seed: 7, workers: 1, speed: 600, paused: false, startTime: START, caFingerprint: CA.fingerprint, stepTask: rounds.stepTask })
  ;({ app } = await buildApp({ fleet, ca: CA, processMetrics: false }, { user: AUTH.REST_USER, password: AUTH.REST_PASSWORD }))
})
afterEach(async () => {
  rounds.release()
  await app.close()
  await fleet.close()
})

describe('pausing the clock', () => {
  it('answers once the step round in flight has ended and the fleet stands at the paused second', async () => {
    await rounds.hold()
    let answered = false
    const pausing = admin(app, 'POST', '/clock', { paused: true }).then((response) => ((answered = true), response))
    await turns(20)
    // The round in flight is held: the pause waits for it.
    expect(answered).toBe(false)
    rounds.release()
    const response = await pausing
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ paused: true })
    // The fleet stands at the second the paused clock shows, and nothing moves it any more.
    const paused = Date.parse(response.json().now)
    expect(fleet.now()).toBe(Math.floor((paused - START) / 1000) * 1000 + START)
    const revision = fleet.revision()
    const agentRevisions = [...fleet.indices()].map((index) => fleet.agentRevision(index))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(fleet.revision()).toBe(revision)
    expect([...fleet.indices()].map((index) => fleet.agentRevision(index))).toEqual(agentRevisions)
  })

  it('resolves at once through the engine when the clock is already paused', async () => {
    const first = await fleet.setClock({ paused: true })
    const again = await fleet.setClock({ paused: true })
    expect(again).toEqual(first)
  })
})
