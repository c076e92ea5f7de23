/**
 * API metrics: a request duration histogram by operation, method and status; requests in
 * flight; bytes of answers their clients have not read; and response sizes by operation. Labels are bounded: `operation` is one of the spec's
 * operation names or one of OTHER_OPERATIONS, never a URL. The histograms are SeriesHistograms:
 * every request observes both, and the label sets are looked up once (series-histogram.ts).
 */
import { Gauge, type Registry } from 'prom-client'
import { SeriesHistogram, type HistogramSeries } from './series-histogram.js'

export const API_METRICS = {
  duration: 'fleetsim_http_request_duration_seconds',
  inFlight: 'fleetsim_http_requests_in_flight',
  unsentBytes: 'fleetsim_http_unsent_answer_bytes',
  responseSize: 'fleetsim_http_response_size_bytes'
} as const

/** `operation` values of requests that are not one of the spec's operations. */
export const OTHER_OPERATIONS = {
  metrics: 'metrics',
  openapi: 'openapi',
  /** no route matched (404 from the not-found handler) */
  notFound: 'not_found',
  /** any other route (admin and the like) */
  other: 'other'
} as const

/** Up to a minute: fault rules can stall answers for a long time. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
/** 256 B to 64 MiB, times four: single records up to a million-agent list. */
export const SIZE_BUCKETS = [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]

export interface ApiMetrics {
  duration: SeriesHistogram<'operation' | 'method' | 'status'>
  inFlight: Gauge
  /** bytes of large answers waiting for their clients to read them (src/http/unsent-answers.ts) */
  unsentBytes: Gauge
  responseSize: SeriesHistogram<'operation'>
}

export function registerApiMetrics(registry: Registry): ApiMetrics {
  const registers = [registry]
  return {
    duration: new SeriesHistogram({
      name: API_METRICS.duration,
      help: 'Time from receiving a request to sending the last byte of its answer, by operation, method and status code.',
      labelNames: ['operation', 'method', 'status'],
      buckets: DURATION_BUCKETS,
      registers
    }),
    inFlight: new Gauge({
      name: API_METRICS.inFlight,
      help: 'Requests received and not yet answered.',
      registers
    }),
    unsentBytes: new Gauge({
      name: API_METRICS.unsentBytes,
      help: 'Bytes of answers of 64 KiB or more sent and not yet read by their clients, which --unsent-answers-max-bytes bounds (over plain HTTP an answer of bytes sent to several clients counts once).',
      registers
    }),
    responseSize: new SeriesHistogram({
      name: API_METRICS.responseSize,
      help: 'Bytes of response bodies (streamed lists counted as they are sent), by operation.',
      labelNames: ['operation'],
      buckets: SIZE_BUCKETS,
      registers
    })
  }
}

/** The series one kind of answer is counted in, for observeAnswer. */
export interface AnswerSeries {
  duration: HistogramSeries
  size: HistogramSeries
}

export function answerSeries(api: ApiMetrics, operation: string, method: string, status: number): AnswerSeries {
  return { duration: api.duration.series({ operation, method, status: String(status) }), size: api.responseSize.series({ operation }) }
}

/** One answered request: its duration (seconds) and body size (bytes). */
export function observeAnswer(series: AnswerSeries, seconds: number, bytes: number): void {
  series.duration.observe(seconds)
  series.size.observe(bytes)
}
