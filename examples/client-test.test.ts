/**
 * How a client's own test suite uses fleetsim: start a simulator, point the client at it,
 * drive the virtual clock instead of sleeping, and assert on the client report.
 *
 * In a project that depends on fleetsim: `import { startFleetsim } from 'fleetsim'`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../src/index.js'

/** The "client under test": counts agents per state, the way a monitoring job would. */
async function countAgents(baseUrl: string, headers: Record<string, string>): Promise<Record<string, number>> {
  const answer = await fetch(`${baseUrl}/restservice/agentinfo.json?agentwithmodules=false`, { headers })
  const body = (await answer.json()) as { values: Array<{ content: { status: string } }> }
  const counts: Record<string, number> = {}
  for (const { content } of body.values) counts[content.status] = (counts[content.status] ?? 0) + 1
  return counts
}

let sim: RunningFleetsim

beforeAll(async () => {
  // HTTP keeps the example short; over HTTPS, trust `sim.ca` (PEM) in the client instead.
  sim = await startFleetsim({ http: true, agents: 200, seed: 42 })
})
afterAll(() => sim.close())

it('counts every agent, and follows the fleet as virtual time passes', async () => {
  const before = await countAgents(sim.baseUrl, sim.headers)
  expect(Object.values(before).reduce((a, b) => a + b, 0)).toBe(200)

  // A virtual hour passes at once: no sleeping in tests.
  await sim.clock.advance(3600)
  const after = await countAgents(sim.baseUrl, sim.headers)
  expect(Object.values(after).reduce((a, b) => a + b, 0)).toBe(200)
})

it('uses the protocol as the spec says', () => {
  const report = sim.report()
  expect(report.violations).toEqual([])
  expect(report.coverage.operations.used).toContain('agentinfo')
})
