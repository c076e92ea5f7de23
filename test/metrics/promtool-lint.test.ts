/**
 * The metrics page as Prometheus's own linter reads it: `promtool check metrics` (Debian's
 * `prometheus` package, installed by .ci/run) finds nothing wrong in its names, types and help,
 * after a run with state changes, module restarts and API traffic. Without promtool the test is
 * skipped with a warning saying how to run it; with CI=true it fails instead.
 */
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { answerSeries, observeAnswer } from '../../src/metrics/api-metrics.js'
import { createRegistry } from '../../src/metrics/registry.js'
import { CA } from '../http/helpers.js'
import { IN_CI, onPath } from './helpers.js'

const promtool = onPath('promtool')
const inCi = IN_CI
const MISSING = 'promtool is not installed, so the metrics page is not linted: install it with `apt-get install prometheus` (Debian\'s package, as .ci/run does)'

if (promtool === undefined && !inCi) console.warn(`promtool-lint: SKIPPED: ${MISSING}. With CI=true this test fails instead.`)

describe.runIf(promtool === undefined && inCi)('the promtool lint in CI', () => {
  it('finds promtool (.ci/run installs Debian\'s prometheus package)', () => {
    expect.fail(MISSING)
  })
})

describe.skipIf(promtool === undefined)('the metrics page, linted by promtool check metrics', () => {
  let fleet: FleetEngine
  beforeAll(async () => {
    fleet = await createFleet({ agents: 200, seed: 5, workers: 1, paused: true, startTime: Date.parse('2026-03-01T00:00:00Z'), caFingerprint: CA.fingerprint })
  })
  afterAll(() => fleet.close())

  it('has nothing to say about names, types or help, process metrics included', async () => {
    const { registry, api } = createRegistry(fleet, { process: true })
    await fleet.advance(3600)
    observeAnswer(answerSeries(api, 'agentinfo', 'GET', 200), 0.002, 1024)
    const page = await registry.metrics()
    expect(page).toContain('fleetsim_agent_state_transitions_total')
    const checked = spawnSync(promtool as string, ['check', 'metrics'], { input: page, encoding: 'utf8' })
    expect(`${checked.stdout}${checked.stderr}`.trim()).toBe('')
    expect(checked.status).toBe(0)
  })
})
