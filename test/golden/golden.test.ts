/**
 * Golden runs: every library scenario runs headless for two virtual hours from its seed, and a
 * summary (counts by state every 30 minutes, transitions, timeline events, final digest) must
 * equal the committed expectation in test/golden/expected/<name>.json.
 *
 * A change to the engine or a scenario that changes a run on purpose regenerates them:
 *   UPDATE_GOLDEN=1 npx vitest run test/golden
 * then review the diff of test/golden/expected/ like code.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runScenario, type RunResult } from '../../src/run/runner.js'
import { libraryFiles, loadScenarioFileOrThrow } from '../../src/scenario/index.js'

const DURATION_SECONDS = 2 * 3600
const SAMPLE_SECONDS = 30 * 60
const UPDATE = process.env.UPDATE_GOLDEN === '1'

function goldenSummary(result: RunResult) {
  return {
    scenario: result.scenario.name,
    seed: result.scenario.seed,
    durationSeconds: result.durationSeconds,
    samples: result.samples.map(({ second, agents, byState }) => ({ second, agents, byState })),
    transitions: result.transitions,
    timelineEvents: result.events.map(({ second, name }) => ({ second, name })),
    moduleCrashes: result.moduleCrashes,
    lockedOut: result.lockedOut,
    digest: result.digest
  }
}

const library = await libraryFiles()

describe('golden runs of the scenario library', () => {
  it.each(library.map((file) => [basename(file, '.yaml'), file]))('%s matches its committed two-hour summary', async (name, file) => {
    const scenario = await loadScenarioFileOrThrow(file)
    const result = await runScenario({ scenario, durationSeconds: DURATION_SECONDS, sampleSeconds: SAMPLE_SECONDS, workers: 2 })
    const actual = goldenSummary(result)
    const path = new URL(`./expected/${name}.json`, import.meta.url)
    if (UPDATE) {
      await writeFile(path, `${JSON.stringify(actual, null, 2)}\n`)
      return
    }
    const expected = JSON.parse(await readFile(path, 'utf8').catch(() => 'null')) as unknown
    expect(expected, `no golden file for ${name}: run UPDATE_GOLDEN=1 npx vitest run test/golden`).not.toBeNull()
    expect(actual).toEqual(expected)
  })
})

describe('golden runs do not depend on the pool', () => {
  it('gives the committed summary of flapping-network on one worker too', async () => {
    const scenario = await loadScenarioFileOrThrow(library.find((f) => f.endsWith('flapping-network.yaml')) as string)
    const result = await runScenario({ scenario, durationSeconds: DURATION_SECONDS, sampleSeconds: SAMPLE_SECONDS, workers: 1 })
    const expected = JSON.parse(await readFile(new URL('./expected/flapping-network.json', import.meta.url), 'utf8')) as unknown
    expect(goldenSummary(result)).toEqual(expected)
  })
})
