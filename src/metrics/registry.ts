/**
 * The project's own registry with every metric group on it. The default prom-client registry
 * is never used, so embedding programs and tests can run several simulators side by side.
 */
import { Registry } from 'prom-client'
import { registerApiMetrics, type ApiMetrics } from './api-metrics.js'
import { registerFleetMetrics } from './fleet-metrics.js'
import { registerScenarioMetrics } from './scenario-metrics.js'
import { registerProcessMetrics, registerSimulatorMetrics } from './simulator-metrics.js'
import type { MetricsSource } from './source.js'
import { registerStateMetrics, type StateSaveTotals } from './state-metrics.js'

export interface RegisterOptions {
  /** prom-client's process and Node.js metrics (default true); a registry can hold them once */
  process?: boolean
  /** the state saver's running totals (src/state/state-saver.ts); default: none, the counters stay 0 */
  stateSaves?: StateSaveTotals
}

/** Registers every group on the registry; the API group's handles are returned for the request hooks. */
export function registerMetrics(registry: Registry, source: MetricsSource, options: RegisterOptions = {}): ApiMetrics {
  registerFleetMetrics(registry, source)
  registerScenarioMetrics(registry, source)
  registerSimulatorMetrics(registry, source)
  registerStateMetrics(registry, options.stateSaves)
  if (options.process ?? true) registerProcessMetrics(registry)
  return registerApiMetrics(registry)
}

export function createRegistry(source: MetricsSource, options: RegisterOptions = {}): { registry: Registry; api: ApiMetrics } {
  const registry = new Registry()
  return { registry, api: registerMetrics(registry, source, options) }
}
