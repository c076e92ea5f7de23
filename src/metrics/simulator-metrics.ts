/**
 * Simulator metrics: step rounds, how far the fleet lags behind the virtual clock, the worker
 * pool, and the process itself. The process group is prom-client's collectDefaultMetrics with
 * the project prefix: CPU, memory, file descriptors, heap spaces, GC, and the event-loop delay
 * percentiles it measures with perf_hooks.monitorEventLoopDelay (reset after every scrape).
 */
import { Gauge, collectDefaultMetrics, type Registry } from 'prom-client'
import type { MetricsSource } from './source.js'
import { totalCounter } from './totals.js'

export const SIMULATOR_METRICS = {
  stepRounds: 'fleetsim_step_rounds_total',
  stepLastRound: 'fleetsim_step_last_round_duration_seconds',
  stepLag: 'fleetsim_step_lag_seconds',
  poolUtilization: 'fleetsim_worker_pool_utilization_ratio',
  poolQueue: 'fleetsim_worker_pool_queued_tasks',
  poolThreads: 'fleetsim_worker_pool_threads',
  workerRestarts: 'fleetsim_worker_restarts_total',
  compositionScan: 'fleetsim_composition_scan_duration_seconds'
} as const

/** Prefix of prom-client's default process and Node.js metrics. */
export const PROCESS_PREFIX = 'fleetsim_'

/** The event-loop delay histogram's resolution, in ms. */
const EVENT_LOOP_RESOLUTION_MS = 10

export function registerSimulatorMetrics(registry: Registry, source: MetricsSource): void {
  const registers = [registry]
  totalCounter({
    name: SIMULATOR_METRICS.stepRounds,
    help: 'Step rounds run: each steps every shard of the fleet to the next virtual second it has to reach.',
    registry,
    restarts: () => source.stats.restarts,
    read: () => [[{}, source.stats.stepRounds]]
  })
  new Gauge({
    name: SIMULATOR_METRICS.stepLastRound,
    help: 'Wall time the latest step round took.',
    registers,
    collect() {
      this.set(source.stats.lastRoundMs / 1000)
    }
  })
  new Gauge({
    name: SIMULATOR_METRICS.stepLag,
    help: 'How far the stepped fleet is behind the virtual clock, in virtual seconds (near 0 when the pool keeps up).',
    registers,
    collect() {
      this.set(source.lagSeconds())
    }
  })
  new Gauge({
    name: SIMULATOR_METRICS.poolUtilization,
    help: 'Share of the worker pool\'s capacity spent stepping (0 to 1), as piscina reports it.',
    registers,
    collect() {
      this.set(source.poolStats().utilization)
    }
  })
  new Gauge({
    name: SIMULATOR_METRICS.poolQueue,
    help: 'Step tasks waiting for a free worker.',
    registers,
    collect() {
      this.set(source.poolStats().queueSize)
    }
  })
  new Gauge({
    name: SIMULATOR_METRICS.poolThreads,
    help: 'Worker threads in the pool.',
    registers,
    collect() {
      this.set(source.poolStats().threads)
    }
  })
  totalCounter({
    name: SIMULATOR_METRICS.workerRestarts,
    help: 'Shards stepped again after their worker died part way (the worker is replaced, no state is lost).',
    registry,
    restarts: () => source.stats.restarts,
    read: () => [[{}, source.stats.workerRestarts]]
  })
  new Gauge({
    name: SIMULATOR_METRICS.compositionScan,
    help: 'Wall time of the latest pass over the fleet that counts agents by mode and version and modules by status.',
    registers,
    collect() {
      this.set(source.composition().scanMs / 1000)
    }
  })
}

/**
 * Gauges prom-client names with `_total`, the suffix of counters: `promtool check metrics` fails
 * a page holding them, and each is the sum of the gauge of the same name without the suffix,
 * by type.
 */
const GAUGES_NAMED_AS_COUNTERS = ['nodejs_active_resources_total', 'nodejs_active_handles_total', 'nodejs_active_requests_total']

/** prom-client's process and Node.js metrics, prefixed `fleetsim_`, but the gauges it names as counters. */
export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, prefix: PROCESS_PREFIX, eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS })
  for (const name of GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(`${PROCESS_PREFIX}${name}`)
}
