/**
 * What the metrics read from the simulator: the engine's running totals and figures. Every
 * read is cheap at a million agents: counts by state are kept incrementally, composition is a
 * cached pass (at most one per 10 s), the rest are numbers the engine already holds. Nothing
 * here scans the fleet per scrape.
 */
import type { FleetObservation } from '../fleet/fleet-types.js'

/** The scenario running and its stages, as the engine reports it (engines may report more). */
export interface ScenarioSummary {
  name: string
  stages: string[]
}

export type MetricsSource = Omit<FleetObservation, 'scenarioInfo'> & {
  /**
   * The scenario and its stages. Optional: engines without scenario support (or
   * running none) leave it out or return undefined.
   */
  scenarioInfo?: () => ScenarioSummary | undefined
  /**
   * The same, cheaply: scenarioInfo also works out which agents the scenario's reconnect rules
   * would fail, over the whole fleet (FleetEngine.scenarioSummary). Read in its place when there.
   */
  scenarioSummary?: () => ScenarioSummary | undefined
  /** while the fleet is rebuilt, when it ends (Fleet.resetting): a scrape then would count none, then some, of its agents */
  resetting?: () => Promise<void> | undefined
}

/** scenarioSummary, else scenarioInfo, read defensively: an engine without either runs no scenario. */
export function readScenario(source: MetricsSource): ScenarioSummary | undefined {
  const { scenarioSummary, scenarioInfo } = source as { scenarioSummary?: unknown; scenarioInfo?: unknown }
  const read = typeof scenarioSummary === 'function' ? scenarioSummary : scenarioInfo
  return typeof read === 'function' ? (read.call(source) as ScenarioSummary | undefined) : undefined
}
