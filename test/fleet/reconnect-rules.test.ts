/**
 * A reconnect-failure rule's selector is read as the fleet stands when the call begins, state
 * and template included: `state: ERROR` fails only agents in ERROR (it failed agents in any
 * state), and `template: web` with a count fails that many of the agents the call itself gives
 * the template (it failed none: the set was fixed when the scenario started, before any agent
 * had the template).
 */
import { describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { compileScenario } from '../../src/fleet/scenario-program.js'
import { parseScenario } from '../../src/scenario/index.js'
import { closeAfterEach, templateIds } from './helpers.js'

const START = Date.parse('2026-06-01T00:00:00Z')
const open = closeAfterEach()

async function engineOf(failures: string, fleet = '{ agents: 200, seed: 5, states: { ERROR: 0.1 } }'): Promise<{ engine: FleetEngine; templateId: (name: string) => number }> {
  const parsed = parseScenario(`name: rules\ndescription: Reconnect rules.\nfleet: ${fleet}\nbehaviour: off\nreconnect:\n  failures:\n${failures}`, 'rules.yaml')
  if (!parsed.ok) throw new Error(JSON.stringify(parsed))
  const ids = templateIds()
  const engine = await createFleet({ agents: 0, seed: 0, workers: 1, paused: true, startTime: START, caFingerprint: 'AB', scenario: compileScenario(parsed.scenario, START, ids) })
  open.push(engine)
  return { engine, templateId: ids.templateId }
}

/** Reconnects the agents, as updateandreloadagent does, through the wait; the failed ones' indices. */
async function reconnect(engine: FleetEngine, indices: number[]): Promise<number[]> {
  const pending = engine.reconnectAgents(indices, 'updateandreloadagent')
  await engine.advance(10)
  return (await pending).failed.filter((f) => f.reason.startsWith('agent did not reconnect')).map((f) => f.index)
}

describe('a reconnect-failure rule', () => {
  it('with a state and probability 1 fails exactly the agents in that state', async () => {
    const { engine } = await engineOf('    - { select: { state: ERROR }, probability: 1 }\n')
    const inError = [...engine.indices(new Set(['ERROR']))]
    expect(inError.length).toBeGreaterThan(5)
    expect(await reconnect(engine, [...engine.indices()])).toEqual(inError)
  })

  it('with a state and a count fails that many agents, every one in that state when the call began', async () => {
    const { engine } = await engineOf('    - { select: { state: ERROR }, count: 5 }\n')
    const inError = new Set(engine.indices(new Set(['ERROR'])))
    const named = engine.scenarioInfo()?.reconnectFailureSets[0] ?? []
    const failed = await reconnect(engine, [...engine.indices()])
    expect(failed).toHaveLength(5)
    for (const i of failed) expect(inError.has(i)).toBe(true)
    // The set the admin API shows before the call is the one the call failed.
    expect(named).toEqual(failed.map((i) => engine.name(i)))
  })

  it('with a template and a count fails that many of the agents the call itself gives the template, the same ones for the seed', async () => {
    const outcomes: number[][] = []
    for (let run = 0; run < 2; run++) {
      const { engine, templateId } = await engineOf('    - { select: { template: web-baseline }, count: 10 }\n', '{ agents: 200, seed: 5 }')
      expect(engine.scenarioInfo()?.reconnectFailureSets).toEqual([[]])
      const given = [...engine.indices()].filter((i) => i % 4 === 1)
      await engine.setTemplate(given, templateId('web-baseline'))
      const failed = await reconnect(engine, given)
      expect(failed).toHaveLength(10)
      for (const i of failed) expect(given).toContain(i)
      outcomes.push(failed)
    }
    expect(outcomes[1]).toEqual(outcomes[0])
  })

  it('with a template and a fraction fails only agents that have it, each by its own seeded draw', async () => {
    const { engine, templateId } = await engineOf('    - { select: { template: web-baseline }, fraction: 0.5 }\n', '{ agents: 400, seed: 5 }')
    const given = [...engine.indices()].filter((i) => i < 200)
    await engine.setTemplate(given, templateId('web-baseline'))
    const failed = await reconnect(engine, [...engine.indices()].filter((i) => i >= 100 && i < 300))
    // Agents 200 to 299 lack the template; of 100 to 199, about half fail.
    expect(failed.every((i) => i >= 100 && i < 200)).toBe(true)
    expect(failed.length).toBeGreaterThan(30)
    expect(failed.length).toBeLessThan(70)
  })
})
