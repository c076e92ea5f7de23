/** The quick fault flags become the very rules a scenario would write for them. */
import { describe, expect, it } from 'vitest'
import { quickFaultRules } from '../../src/faults/flag-rules.js'
import { FaultState, type FaultSource } from '../../src/faults/state.js'
import type { FaultRule } from '../../src/scenario/index.js'
import { doc, valid } from '../scenario/helpers.js'

/** The normalised fault rules of a scenario whose `faults:` section is `yaml`. */
const scenarioFaults = (yaml: string) => valid(doc(`faults:\n${yaml}`)).faults

describe('quickFaultRules', () => {
  it('makes --latency with a spread a uniform latency rule, and --error-rate an error rule with the scenario defaults', () => {
    expect(quickFaultRules({ latency: { ms: 200, spreadMs: 50 }, errorRate: 0.05 })).toEqual(
      scenarioFaults(`  - { name: "--latency", operation: "*", latency: { dist: uniform, min: 150, max: 250 } }
  - { name: "--error-rate", operation: "*", error: { rate: 0.05 } }
`)
    )
  })

  it('makes --latency without a spread a fixed latency, limited by --fault-operations', () => {
    expect(quickFaultRules({ latency: { ms: 200, spreadMs: 0 }, faultOperations: ['agentinfo', 'appinfo'] })).toEqual(
      scenarioFaults('  - { name: "--latency", operation: [agentinfo, appinfo], latency: 200 }\n')
    )
  })

  it('adds no rule for a latency or error rate of 0, nor for flags not given', () => {
    expect(quickFaultRules({ latency: { ms: 0, spreadMs: 0 }, errorRate: 0 })).toEqual([])
    expect(quickFaultRules({})).toEqual([])
  })
})

describe('FaultState with flag rules', () => {
  const source = (rules: readonly FaultRule[]): FaultSource => ({ faultRules: () => rules, second: () => 0, stats: { faultsInjected: {} }, identity: { seed: 1 } })
  const flagRules = quickFaultRules({ errorRate: 0.5 })

  it('puts the scenario rules first and the flags after them', () => {
    const scenario = scenarioFaults('  - { name: cold, operation: appinfo, failFirst: 2 }\n')
    const state = new FaultState(source(scenario), { flagRules })
    expect(state.rules().map((rule) => rule.name)).toEqual(['cold', '--error-rate'])
    expect(state.status().map((s) => s.failFirstLeft)).toEqual([2, null])
  })

  it('is active with flag rules alone, and not once switched off', () => {
    const state = new FaultState(source([]), { flagRules })
    expect(state.active()).toBe(true)
    state.enabled = false
    expect(state.active()).toBe(false)
    expect(new FaultState(source([])).active()).toBe(false)
  })
})
