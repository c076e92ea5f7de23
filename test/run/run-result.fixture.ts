/** A small RunResult for the renderers' unit tests: 100 agents over an hour, with an outage and a lockout. */
import type { RunResult } from '../../src/run/runner.js'
import type { AgentStateName } from '../../src/protocol/states.js'

export const counts = (byState: Partial<Record<AgentStateName, number>>): Record<AgentStateName, number> => ({
  ONLINE: 0,
  OFFLINE: 0,
  ERROR: 0,
  UNMANAGED: 0,
  UNTRUSTED: 0,
  FORGED: 0,
  ...byState
})

export function runResult(overrides: Partial<RunResult> = {}): RunResult {
  const samples = [
    { second: 0, agents: 100, byState: counts({ ONLINE: 96, UNTRUSTED: 3, FORGED: 1 }) },
    { second: 1200, agents: 100, byState: counts({ ONLINE: 76, OFFLINE: 20, UNTRUSTED: 3, FORGED: 1 }) },
    { second: 2400, agents: 100, byState: counts({ OFFLINE: 100 }) },
    { second: 3600, agents: 100, byState: counts({ OFFLINE: 100 }) }
  ]
  return {
    scenario: { name: 'a <b> & c', description: 'd <i>', source: 'x.yaml', seed: 1 },
    startTime: Date.parse('2026-01-01T00:00:00Z'),
    durationSeconds: 3600,
    sampleSeconds: 1200,
    samples,
    events: [
      { second: 600, name: 'outage', action: 'offline' },
      { second: 1200, name: 'outage', action: 'offline' },
      { second: 1800, name: 'restart', action: 'manager-restart' }
    ],
    final: samples[3],
    transitions: { total: 120, byPair: { 'ONLINE->OFFLINE': 116, 'UNTRUSTED->OFFLINE': 3, 'FORGED->OFFLINE': 1 } },
    moduleCrashes: 0,
    moduleRestarts: 0,
    lockouts: [{ from: 1800, to: null }],
    lockedOut: true,
    digest: 'ab'.repeat(32),
    wallMs: 1,
    ...overrides
  }
}
