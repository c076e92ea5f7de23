import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { AUTH, CA, call, START } from '../http/helpers.js'
import { heldRounds } from './helpers.js'

// An operation looks its agents up by UUID, then waits for the fleet's turn to change them. A
// reset queued ahead of it (behind a step round in flight, say) starts a new run whose agents
// take the same indices: the operation must not change the new run's agent at the index it
// looked up, which is another agent (or, with the same seed, the same agent built anew).
//
// The reset is asked of the engine, as a program embedding it may. Through the admin API a reset
// takes the manager's turns, as the operations' lookups and changes do, so none falls between
// them (test/hardening/concurrency.test.ts, "requests while the fleet is reset"); the engine
// still holds each change to the run it was looked up in.

type Change = 'deleteAgents' | 'stopAgents' | 'setTemplate' | 'reconnectAgents'

/** Resolves once the fleet's method has been called (the caller has queued its turn). */
function calledOnce(fleet: FleetEngine, method: Change): Promise<void> {
  const original = fleet[method].bind(fleet) as (...args: unknown[]) => Promise<unknown>
  return new Promise((resolve) => {
    ;(fleet as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      ;(fleet as unknown as Record<string, unknown>)[method] = original
      const result = original(...args)
      resolve()
      return result
    }
  })
}

let fleet: FleetEngine
let app: FastifyInstance
let rounds: ReturnType<typeof heldRounds>
beforeEach(async () => {
  rounds = heldRounds()
  fleet = await createFleet({ agents: 20, seed: 7, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint, stepTask: rounds.stepTask })
  ;({ app } = await buildApp({ fleet, ca: CA, processMetrics: false }, { user: AUTH.REST_USER, password: AUTH.REST_PASSWORD }))
})
afterEach(async () => {
  rounds.release()
  await app.close()
  await fleet.close()
})

/**
 * Sends the call once a reset is queued behind a held step round, lets the call look its agents
 * up in the run before and queue its change behind the reset, then lets them all run.
 */
async function behindReset(send: () => Promise<LightMyRequestResponse>, method: Change): Promise<LightMyRequestResponse> {
  const inFlight = rounds.hold()
  const stepping = fleet.advance(60)
  await inFlight
  const reset = fleet.reset()
  const changeQueued = calledOnce(fleet, method)
  const answer = send()
  await changeQueued
  rounds.release()
  await stepping
  await reset
  return answer
}

/** The fleet is the one the reset built, untouched: another reset gives the same digest. */
async function expectAsBuilt(): Promise<void> {
  const digest = await fleet.digest()
  await fleet.reset()
  expect(await fleet.digest()).toBe(digest)
}

describe('a call that looked its agents up before a reset queued ahead of its change', () => {
  it('deleteagent leaves the new run’s agent at the index alone', async () => {
    const name = fleet.name(3)
    const response = await behindReset(() => call(app, 'DELETE', `deleteagent?agentUuids=${fleet.uuid(3)}&revokeCert=true`), 'deleteAgents')
    expect(response.statusCode).toBe(204)
    expect(fleet.findByName(name)).toBe(3)
    expect(fleet.size()).toBe(20)
    await expectAsBuilt()
  })

  it('stopagent reports the agent gone with the reset, and leaves the new run’s agent as built', async () => {
    const name = fleet.name(3)
    const response = await behindReset(() => call(app, 'POST', `stopagent?agentUuids=${fleet.uuid(3)}`), 'stopAgents')
    expect(response.json()).toMatchObject({ errors: [{ message: `${name}: agent no longer exists: the fleet was reset` }] })
    expect(response.json().values).toEqual([])
    await expectAsBuilt()
  })

  it('updateandreloadagent reports the agent gone with the reset, and reloads no agent of the new run', async () => {
    const name = fleet.name(3)
    const response = await behindReset(() => call(app, 'POST', `updateandreloadagent?agentUuids=${fleet.uuid(3)}`), 'reconnectAgents')
    expect(response.json()).toMatchObject({ values: [], errors: [{ message: `${name}: agent no longer exists: the fleet was reset` }] })
    await expectAsBuilt()
  })

  it('assigntemplatetoagent gives the new run’s agent at the index no master template', async () => {
    const master = { name: 'base', 'global-config': { address: '10.0.0.1', port: 4041, 'ca-fingerprint': CA.fingerprint } }
    expect((await call(app, 'POST', 'addmastertemplate', master)).statusCode).toBe(200)
    const response = await behindReset(() => call(app, 'POST', `assigntemplatetoagent?agentUuids=${fleet.uuid(3)}&templateName=base`), 'setTemplate')
    expect(response.statusCode).toBe(200)
    expect(fleet.templateOf(3)).toBe(-1)
    await expectAsBuilt()
  })
})
