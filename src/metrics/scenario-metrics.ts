/**
 * Scenario metrics: which scenario runs and its stages (an info metric),
 * timeline events fired, API faults injected, and the virtual clock. Stage and event names come
 * from the scenario file, so their number is bounded by it.
 */
import { Gauge, type Registry } from 'prom-client'
import { readScenario, type MetricsSource } from './source.js'
import { totalCounter } from './totals.js'

export const SCENARIO_METRICS = {
  info: 'fleetsim_scenario_info',
  timelineEvents: 'fleetsim_timeline_events_fired_total',
  faults: 'fleetsim_api_faults_injected_total',
  clockTime: 'fleetsim_virtual_clock_time_seconds',
  clockSpeed: 'fleetsim_virtual_clock_speed_ratio',
  clockPaused: 'fleetsim_virtual_clock_paused'
} as const

/** The label value of `scenario` and `stage` when there is none. */
export const NONE = ''

export function registerScenarioMetrics(registry: Registry, source: MetricsSource): void {
  const registers = [registry]
  new Gauge({
    name: SCENARIO_METRICS.info,
    help: 'Always 1: one series per stage of the running scenario (stage="" for a scenario without stages, scenario="" and stage="" without a scenario).',
    labelNames: ['scenario', 'stage'],
    registers,
    collect() {
      const info = readScenario(source)
      this.reset()
      const scenario = info?.name ?? NONE
      const stages = info?.stages.length ? info.stages : [NONE]
      for (const stage of stages) this.set({ scenario, stage }, 1)
    }
  })
  totalCounter({
    name: SCENARIO_METRICS.timelineEvents,
    help: 'Fleet-wide timeline events of the scenario fired, by event name.',
    labelNames: ['event'],
    registry,
    restarts: () => source.stats.restarts,
    *read() {
      for (const [event, fired] of Object.entries(source.stats.timelineFired)) yield [{ event }, fired]
    }
  })
  totalCounter({
    name: SCENARIO_METRICS.faults,
    help: "Faults the fault rules (the scenario's, --latency, --error-rate) injected into API answers, by kind (latency, error, reset, stall, fail-first, slow-body, truncate) and operation.",
    labelNames: ['kind', 'operation'],
    registry,
    restarts: () => source.stats.restarts,
    *read() {
      for (const [key, injected] of Object.entries(source.stats.faultsInjected)) {
        // Keys are `${kind} ${operation}`.
        const space = key.indexOf(' ')
        const kind = space < 0 ? key : key.slice(0, space)
        const operation = space < 0 ? '' : key.slice(space + 1)
        yield [{ kind, operation }, injected]
      }
    }
  })
  new Gauge({
    name: SCENARIO_METRICS.clockTime,
    help: 'Virtual time of the simulator, in seconds since the Unix epoch.',
    registers,
    collect() {
      this.set(source.clockState().now / 1000)
    }
  })
  new Gauge({
    name: SCENARIO_METRICS.clockSpeed,
    help: 'Virtual seconds per wall second (1: real time; 3600: an hour per second).',
    registers,
    collect() {
      this.set(source.clockState().speed)
    }
  })
  new Gauge({
    name: SCENARIO_METRICS.clockPaused,
    help: '1 while the virtual clock is paused, else 0.',
    registers,
    collect() {
      this.set(source.clockState().paused ? 1 : 0)
    }
  })
}
