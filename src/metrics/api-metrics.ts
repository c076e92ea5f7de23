/**
 * API metrics: a request duration histogram by operation, method and status; requests in
 * flight; and response sizes by operation. Labels are bounded: `operation` is one of the spec's
 * operation names or one of OTHER_OPERATIONS, never a URL.
 */
import { Gauge, Histogram, type Registry } from 'prom-client'

export const API_METRICS = {
  duration: 'fleetsim_http_request_duration_seconds',
  inFlight: 'fleetsim_http_requests_in_flight',
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
  duration: Histogram<'operation' | 'method' | 'status'>
  inFlight: Gauge
  responseSize: Histogram<'operation'>
}

export function registerApiMetrics(registry: Registry): ApiMetrics {
  const registers = [registry]
  return {
    duration: new Histogram({
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
    responseSize: new Histogram({
      name: API_METRICS.responseSize,
      help: 'Bytes of response bodies (streamed lists counted as they are sent), by operation.',
      labelNames: ['operation'],
      buckets: SIZE_BUCKETS,
      registers
    })
  }
}

/** The label sets of one kind of answer, for observeAnswer. */
export interface AnswerLabels {
  duration: { operation: string; method: string; status: string }
  size: { operation: string }
}

export function answerLabels(operation: string, method: string, status: number): AnswerLabels {
  return { duration: { operation, method, status: String(status) }, size: { operation } }
}

/** One answered request: its duration (seconds) and body size (bytes). */
export function observeAnswer(api: ApiMetrics, labels: AnswerLabels, seconds: number, bytes: number): void {
  api.duration.observe(labels.duration, seconds)
  api.responseSize.observe(labels.size, bytes)
}
