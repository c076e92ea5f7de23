/**
 * The partial-reconnect-failure scenario served live: assigntemplatetoagent with updateAgents
 * on 1,000 agents names exactly the scenario's failing agents among them in `errors`, and the
 * same agents for the same seed. The virtual clock is driven while the call waits (no sleeps).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { settle } from '../http/helpers.js'
import { adminHarness, AUTH, REST, type AdminHarness } from './helpers.js'

const open: AdminHarness[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()))
})

interface Outcome {
  failing: string[]
  chosen: number
  errors: Array<{ status: number; message: string }>
  updated: number
}

async function assignToThousand(): Promise<Outcome> {
  const h = await adminHarness({ scenario: 'scenarios/partial-reconnect-failure.yaml', workers: 2 })
  open.push(h)
  const failing = h.engine.scenarioInfo()?.reconnectFailureSets[0] ?? []
  // Every failing agent, and the first connected others up to 1,000 in all.
  const failingIndices = failing.map((name) => h.engine.findByName(name) as number)
  const others = [...h.engine.indices(new Set(['ONLINE']))].filter((i) => !failingIndices.includes(i)).slice(0, 1000 - failingIndices.length)
  const uuids = [...others.slice(0, 500), ...failingIndices, ...others.slice(500)].map((i) => h.engine.uuid(i))
  const pending = h.app.inject({
    method: 'POST',
    url: `${REST}/assigntemplatetoagent?templateName=linux-baseline&updateAgents=true&agentUuids=${uuids.join(',')}`,
    headers: { ...AUTH, accept: 'application/json' }
  })
  const response = await settle(h.engine, pending)
  expect(response.statusCode).toBe(200)
  const body = response.json() as { values: Array<{ message: string }>; errors?: Outcome['errors'] }
  return {
    failing,
    chosen: uuids.length,
    errors: body.errors ?? [],
    updated: body.values.filter((v) => v.message.endsWith(': configuration updated')).length
  }
}

describe('a live partial reconnect failure', () => {
  it('names exactly the failing agents in errors, the same ones for the same seed', async () => {
    const [first, second] = [await assignToThousand(), await assignToThousand()]
    expect(first.chosen).toBe(1000)
    expect(first.failing).toHaveLength(10)
    const named = first.errors.map((e) => e.message.slice(0, e.message.indexOf(':')))
    expect(named.sort()).toEqual([...first.failing].sort())
    expect(first.errors.every((e) => e.status === 0 && e.message.endsWith('did not reconnect within 10 seconds'))).toBe(true)
    expect(first.updated).toBe(990)
    expect(second).toEqual(first)
  })
})
