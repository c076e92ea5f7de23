import { describe, expect, it } from 'vitest'
import { basename } from 'node:path'
import { readFile } from 'node:fs/promises'
import { formatIssue, libraryFiles, listLibrary, loadScenarioFile } from '../../src/scenario/index.js'

const files = await libraryFiles()

describe('the scenario library', () => {
  it('holds the ten documented scenarios', () => {
    expect(files.map((f) => basename(f, '.yaml'))).toEqual([
      'certificate-trouble',
      'flapping-network',
      'large-rollout-ramp',
      'manager-restart-lockout',
      'mass-outage-recovery',
      'module-crash-loop',
      'partial-reconnect-failure',
      'rolling-restart',
      'slow-failing-api',
      'steady-fleet'
    ])
  })

  it.each(files.map((f) => [basename(f), f]))('%s validates', async (_name, file) => {
    const result = await loadScenarioFile(file)
    expect(result.ok ? [] : result.issues.map(formatIssue)).toEqual([])
  })

  it('describes every scenario in scenarios/README.md', async () => {
    const readme = await readFile(new URL('../../scenarios/README.md', import.meta.url), 'utf8')
    for (const file of files) expect(readme).toContain(basename(file))
  })

  it('lists every scenario with its description', async () => {
    const entries = await listLibrary()
    expect(entries).toHaveLength(files.length)
    for (const e of entries) {
      expect(e.valid).toBe(true)
      expect(e.description.length).toBeGreaterThan(20)
    }
  })

  it('makes exactly 10 of 5,000 agents fail to reconnect in partial-reconnect-failure', async () => {
    const result = await loadScenarioFile(files.find((f) => f.endsWith('partial-reconnect-failure.yaml'))!)
    if (!result.ok) throw new Error('invalid')
    expect(result.scenario.fleet.agents).toBe(5000)
    expect(result.scenario.reconnect.failures).toHaveLength(1)
    expect(result.scenario.reconnect.failures[0].mode).toEqual({ kind: 'count', count: 10 })
    expect(result.scenario.reconnect.failures[0].recoverAfter).toBeNull()
  })
})
