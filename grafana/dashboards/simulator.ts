/**
 * The Simulator dashboard (simulator.json): the simulator itself, its step rounds and lag behind
 * the virtual clock, the worker pool, the event loop, CPU and memory.
 */
import { PROCESS_PREFIX, SIMULATOR_METRICS } from '../../src/metrics/simulator-metrics.js'
import { dashboard } from '../lib/dashboard.js'
import { stat, timeseries } from '../lib/panels.js'
import { I, RATE } from '../lib/prometheus.js'

/** A metric of prom-client's process and Node.js group, by its unprefixed name. */
const processMetric = (name: string) => `${PROCESS_PREFIX}${name}`

export const simulator = dashboard({
  uid: 'fleetsim-simulator',
  title: 'fleetsim / Simulator',
  description: 'The simulator itself: step rounds and lag behind the virtual clock, the worker pool, the event loop, CPU and memory.',
  annotations: [],
  panels: [
    stat({
      title: 'Step lag',
      w: 6,
      h: 4,
      description: 'Virtual seconds the fleet is behind the clock. Under 1 s: the pool keeps up with the speed.',
      unit: 's',
      targets: [{ expr: `max(${SIMULATOR_METRICS.stepLag}{${I}})` }]
    }),
    stat({ title: 'Worker threads', w: 6, h: 4, description: 'Threads in the step pool.', targets: [{ expr: `sum(${SIMULATOR_METRICS.poolThreads}{${I}})` }] }),
    stat({
      title: 'Worker restarts',
      w: 6,
      h: 4,
      description: 'Shards re-stepped after a worker died, in the time range.',
      decimals: 0,
      targets: [{ expr: `sum(increase(${SIMULATOR_METRICS.workerRestarts}{${I}}[$__range]))`, instant: true }]
    }),
    stat({
      title: 'Resident memory',
      w: 6,
      h: 4,
      description: 'Resident memory of the process, shared fleet buffers included.',
      unit: 'bytes',
      targets: [{ expr: `sum(${processMetric('process_resident_memory_bytes')}{${I}})` }]
    }),
    timeseries({
      title: 'Step lag behind the virtual clock',
      w: 12,
      h: 8,
      description: 'Virtual seconds between the clock and the second the fleet has been stepped to. A growing line means --speed is too high for this fleet on this machine.',
      unit: 's',
      targets: [{ expr: `max by (instance) (${SIMULATOR_METRICS.stepLag}{${I}})`, legend: '{{instance}}' }]
    }),
    timeseries({
      title: 'Step round time and rounds per second',
      w: 12,
      h: 8,
      description: 'Wall time of the latest step round at each scrape, and step rounds per second (right axis).',
      unit: 's',
      rightAxis: 'short',
      targets: [
        { expr: `max by (instance) (${SIMULATOR_METRICS.stepLastRound}{${I}})`, legend: 'round time {{instance}}' },
        { expr: `sum by (instance) (rate(${SIMULATOR_METRICS.stepRounds}{${I}}[${RATE}]))`, legend: 'rounds/s {{instance}}' }
      ]
    }),
    timeseries({
      title: 'Worker pool',
      w: 12,
      h: 8,
      description: 'Utilisation of the step pool (0 to 1) and step tasks waiting for a worker (right axis).',
      unit: 'percentunit',
      rightAxis: 'short',
      targets: [
        { expr: `max by (instance) (${SIMULATOR_METRICS.poolUtilization}{${I}})`, legend: 'utilisation {{instance}}' },
        { expr: `sum by (instance) (${SIMULATOR_METRICS.poolQueue}{${I}})`, legend: 'queued {{instance}}' }
      ],
      min: 0
    }),
    timeseries({
      title: 'Event loop delay',
      w: 12,
      h: 8,
      description: "Delay of the main thread's event loop between scrapes (p50, p99, max): the facade answers late when these grow.",
      unit: 's',
      targets: [
        { expr: `max by (instance) (${processMetric('nodejs_eventloop_lag_p50_seconds')}{${I}})`, legend: 'p50 {{instance}}' },
        { expr: `max by (instance) (${processMetric('nodejs_eventloop_lag_p99_seconds')}{${I}})`, legend: 'p99 {{instance}}' },
        { expr: `max by (instance) (${processMetric('nodejs_eventloop_lag_max_seconds')}{${I}})`, legend: 'max {{instance}}' }
      ]
    }),
    timeseries({
      title: 'Memory',
      w: 12,
      h: 8,
      description: 'Resident memory, V8 heap used and total, and external memory (buffers outside the heap).',
      unit: 'bytes',
      targets: [
        { expr: `sum by (instance) (${processMetric('process_resident_memory_bytes')}{${I}})`, legend: 'resident {{instance}}' },
        { expr: `sum by (instance) (${processMetric('nodejs_heap_size_used_bytes')}{${I}})`, legend: 'heap used {{instance}}' },
        { expr: `sum by (instance) (${processMetric('nodejs_heap_size_total_bytes')}{${I}})`, legend: 'heap total {{instance}}' },
        { expr: `sum by (instance) (${processMetric('nodejs_external_memory_bytes')}{${I}})`, legend: 'external {{instance}}' }
      ]
    }),
    timeseries({
      title: 'CPU',
      w: 12,
      h: 8,
      description: 'CPU used by the process, all threads, in cores.',
      unit: 'short',
      targets: [{ expr: `sum by (instance) (rate(${processMetric('process_cpu_seconds_total')}{${I}}[${RATE}]))`, legend: 'cores {{instance}}' }]
    }),
    timeseries({
      title: 'Garbage collection',
      w: 12,
      h: 8,
      description: 'Share of wall time the main thread spent in garbage collection, by kind.',
      unit: 'percentunit',
      targets: [{ expr: `sum by (kind) (rate(${processMetric('nodejs_gc_duration_seconds_sum')}{${I}}[${RATE}]))`, legend: '{{kind}}' }]
    }),
    timeseries({
      title: 'Composition pass time',
      w: 12,
      h: 8,
      description: 'Wall time of the latest pass counting agents by mode and version and modules by status (at most one every 10 s).',
      unit: 's',
      targets: [{ expr: `max by (instance) (${SIMULATOR_METRICS.compositionScan}{${I}})`, legend: '{{instance}}' }]
    })
  ]
})
