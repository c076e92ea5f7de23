/**
 * The API dashboard (api.json): the manager facade's requests, latency, errors and the faults
 * the scenario's rules injected, with the scenario as an annotation.
 */
import { API_METRICS } from '../../src/metrics/api-metrics.js'
import { SCENARIO_METRICS } from '../../src/metrics/scenario-metrics.js'
import { dashboard } from '../lib/dashboard.js'
import { stat, timeseries } from '../lib/panels.js'
import { I, RATE } from '../lib/prometheus.js'
import { scenarioAnnotation } from './scenario-annotations.js'

/** The request-duration histogram's buckets, on the instance filter. */
const bucket = `${API_METRICS.duration}_bucket{${I}}`
/** The request-duration histogram's count: one per answered request, labelled with operation and status. */
const count = `${API_METRICS.duration}_count`

export const api = dashboard({
  uid: 'fleetsim-api',
  title: 'fleetsim / API',
  description: 'The manager facade: requests, latency, errors and the faults scenario rules injected.',
  annotations: [scenarioAnnotation],
  panels: [
    stat({ title: 'Requests per second', w: 6, h: 4, description: 'All requests per second.', unit: 'reqps', targets: [{ expr: `sum(rate(${count}{${I}}[${RATE}]))` }] }),
    stat({
      title: 'Error ratio',
      w: 6,
      h: 4,
      description: 'Share of answers with a 4xx or 5xx status.',
      unit: 'percentunit',
      targets: [{ expr: `(sum(rate(${count}{${I}, status=~"[45].."}[${RATE}])) or vector(0)) / sum(rate(${count}{${I}}[${RATE}]))` }]
    }),
    stat({
      title: 'p99 latency',
      w: 6,
      h: 4,
      description: '99th percentile of request duration over all operations.',
      unit: 's',
      targets: [{ expr: `histogram_quantile(0.99, sum by (le) (rate(${bucket}[${RATE}])))` }]
    }),
    stat({ title: 'In flight', w: 6, h: 4, description: 'Requests received and not yet answered.', targets: [{ expr: `sum(${API_METRICS.inFlight}{${I}})` }] }),
    timeseries({
      title: 'Requests per second by operation',
      w: 12,
      h: 8,
      description: "Requests per second by operation (metrics, openapi, not_found and other for requests outside the spec's operations).",
      unit: 'reqps',
      targets: [{ expr: `sum by (operation) (rate(${count}{${I}}[${RATE}]))`, legend: '{{operation}}' }]
    }),
    timeseries({
      title: 'Errors per second by operation and status',
      w: 12,
      h: 8,
      description: 'Answers with a 4xx or 5xx status per second, by operation and status.',
      unit: 'reqps',
      targets: [{ expr: `sum by (operation, status) (rate(${count}{${I}, status=~"[45].."}[${RATE}]))`, legend: '{{operation}} {{status}}' }]
    }),
    timeseries({
      title: 'Latency p50 by operation',
      w: 8,
      h: 8,
      description: 'Median request duration by operation.',
      unit: 's',
      targets: [{ expr: `histogram_quantile(0.5, sum by (le, operation) (rate(${bucket}[${RATE}])))`, legend: '{{operation}}' }]
    }),
    timeseries({
      title: 'Latency p90 by operation',
      w: 8,
      h: 8,
      description: '90th percentile of request duration by operation.',
      unit: 's',
      targets: [{ expr: `histogram_quantile(0.9, sum by (le, operation) (rate(${bucket}[${RATE}])))`, legend: '{{operation}}' }]
    }),
    timeseries({
      title: 'Latency p99 by operation',
      w: 8,
      h: 8,
      description: '99th percentile of request duration by operation.',
      unit: 's',
      targets: [{ expr: `histogram_quantile(0.99, sum by (le, operation) (rate(${bucket}[${RATE}])))`, legend: '{{operation}}' }]
    }),
    timeseries({
      title: 'Error ratio by status class',
      w: 12,
      h: 8,
      description: 'Share of answers that are client errors (4xx) and server errors (5xx, including injected ones).',
      unit: 'percentunit',
      targets: [
        { expr: `(sum(rate(${count}{${I}, status=~"4.."}[${RATE}])) or vector(0)) / sum(rate(${count}{${I}}[${RATE}]))`, legend: '4xx' },
        { expr: `(sum(rate(${count}{${I}, status=~"5.."}[${RATE}])) or vector(0)) / sum(rate(${count}{${I}}[${RATE}]))`, legend: '5xx' }
      ],
      colors: { '4xx': 'orange', '5xx': 'red' }
    }),
    timeseries({
      title: 'Faults injected per second',
      w: 12,
      h: 8,
      description: "Faults the fault rules (the scenario's, --latency, --error-rate) injected into answers, by kind and operation.",
      unit: 'ops',
      targets: [{ expr: `sum by (kind, operation) (rate(${SCENARIO_METRICS.faults}{${I}}[${RATE}]))`, legend: '{{kind}} {{operation}}' }]
    }),
    timeseries({
      title: 'Response bytes per second by operation',
      w: 12,
      h: 8,
      description: 'Bytes of response bodies sent per second, by operation.',
      unit: 'Bps',
      targets: [{ expr: `sum by (operation) (rate(${API_METRICS.responseSize}_sum{${I}}[${RATE}]))`, legend: '{{operation}}' }]
    }),
    timeseries({
      title: 'Requests in flight',
      w: 12,
      h: 8,
      description: 'Requests received and not yet answered, over time (stalls and slow bodies show here).',
      targets: [{ expr: `sum(${API_METRICS.inFlight}{${I}})`, legend: 'in flight' }]
    })
  ]
})
