/** --agents and --seed given with a scenario: they replace its fleet.agents and fleet.seed. */
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/flags/config-error.js'
import { describeReplacement, withFleetFlags } from '../../src/scenario/fleet-flags.js'
import { doc, valid } from './helpers.js'

const scenario = valid(doc('fleet: { agents: 5000, seed: 4242, ramp: { over: 10m, initial: 50 } }\n'))

describe('withFleetFlags', () => {
  it('leaves the scenario as it is when neither is given', () => {
    expect(withFleetFlags(scenario, {})).toEqual({ scenario, replaced: {} })
    expect(withFleetFlags(scenario, { agents: undefined, seed: undefined }).scenario).toBe(scenario)
  })

  it('replaces fleet.agents and fleet.seed with the values given, and says so', () => {
    const { scenario: replaced, replaced: what } = withFleetFlags(scenario, { agents: 200, seed: 7 })
    expect(replaced.fleet).toEqual({ ...scenario.fleet, agents: 200, seed: 7 })
    expect(Object.isFrozen(replaced.fleet)).toBe(true)
    // The scenario read from the file is untouched.
    expect(scenario.fleet).toMatchObject({ agents: 5000, seed: 4242 })
    expect(describeReplacement(what)).toBe("--agents 200 replaces the scenario's fleet.agents 5000; --seed 7 replaces the scenario's fleet.seed 4242")
  })

  it('says nothing of a value given that is the scenario\'s own', () => {
    expect(describeReplacement(withFleetFlags(scenario, { seed: 4242 }).replaced)).toBeUndefined()
    expect(describeReplacement(withFleetFlags(scenario, { agents: 5000, seed: 7 }).replaced)).toBe("--seed 7 replaces the scenario's fleet.seed 4242")
  })

  it('replaces one and keeps the other', () => {
    expect(withFleetFlags(scenario, { seed: 0 }).scenario.fleet).toMatchObject({ agents: 5000, seed: 0 })
    expect(withFleetFlags(scenario, { agents: 50 }).scenario.fleet).toMatchObject({ agents: 50, seed: 4242 })
  })

  it('refuses fewer agents than the ramp has at the start, naming both values and the fix', () => {
    let error: unknown
    try {
      withFleetFlags(scenario, { agents: 10 })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).code).toBe('FLEETSIM_CONFLICTING_FLAGS')
    expect((error as Error).message).toBe(
      '--agents 10 is fewer than the 50 agents the ramp of test.yaml has present at the start (fleet.ramp.initial); give --agents 50 or more, or lower fleet.ramp.initial'
    )
  })

  it('names the env twin a value came from, as it was given', () => {
    expect(() => withFleetFlags(scenario, { agents: 10, givenAs: { agents: 'FLEETSIM_AGENTS' } })).toThrow(
      'FLEETSIM_AGENTS=10 is fewer than the 50 agents the ramp of test.yaml has present at the start (fleet.ramp.initial); give FLEETSIM_AGENTS=50 or more, or lower fleet.ramp.initial'
    )
    const { replaced } = withFleetFlags(scenario, { agents: 200, seed: 7, givenAs: { seed: 'FLEETSIM_SEED' } })
    expect(describeReplacement(replaced)).toBe("--agents 200 replaces the scenario's fleet.agents 5000; FLEETSIM_SEED=7 replaces the scenario's fleet.seed 4242")
  })
})
