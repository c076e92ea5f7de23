import { describe, expect, it } from 'vitest'
import { readScenario, type MetricsSource } from '../../src/metrics/source.js'

describe('the scenario the metrics and the log read', () => {
  it('is the engine\'s cheap summary when it has one, never the full info (which works out the reconnect rules\' agents over the whole fleet)', () => {
    const source = {
      scenarioSummary: () => ({ name: 'cheap', stages: ['a'] }),
      scenarioInfo: () => {
        throw new Error('scenarioInfo read every second')
      }
    } as unknown as MetricsSource
    expect(readScenario(source)).toEqual({ name: 'cheap', stages: ['a'] })
  })

  it('is scenarioInfo from a source with no summary, and none from a source with neither', () => {
    expect(readScenario({ scenarioInfo: () => ({ name: 'full', stages: [] }) } as unknown as MetricsSource)).toEqual({ name: 'full', stages: [] })
    expect(readScenario({} as unknown as MetricsSource)).toBeUndefined()
  })
})
