/**
 * A Prometheus histogram whose label sets are looked up once. `series(labels)` returns a
 * handle, and observing through it is a bucket search and three additions.
 *
 * Why not prom-client's Histogram: it validates and hashes the labels on every observe, also
 * through a `labels()` child, and the API metrics observe two histograms per request: on the
 * fast path's agentinfo answers, one of the larger items of a request's CPU profile
 * (bench/README.md, "Reading the numbers"). Everything else stays prom-client's: this registers
 * on a prom-client Registry, which exposes and resets it like its own metrics. The registry
 * uses only `name`, `type`, `get()`, `getForPromString()` and `reset()` of a metric
 * (prom-client lib/registry.js), and the values are in the shape its Histogram produces, so
 * the text is the same (test/metrics/series-histogram.test.ts compares the two).
 */
import type { Histogram, MetricValueWithName, Registry } from 'prom-client'

export interface HistogramOptions<L extends string> {
  name: string
  help: string
  labelNames: readonly L[]
  /** upper bounds, ascending; +Inf is implied */
  buckets: readonly number[]
  registers: readonly Registry[]
}

/** One label set of a histogram: observe() adds a value. */
export class HistogramSeries {
  /** observations per bucket (not cumulative); the last slot is above every bound */
  readonly counts: Float64Array
  sum = 0
  count = 0

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[]
  ) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`histogram value must be a finite number, got ${value}`)
    const bounds = this.bounds
    let bucket = 0
    while (bucket < bounds.length && value > bounds[bucket]) bucket++
    this.counts[bucket]++
    this.sum += value
    this.count++
  }

  clear(): void {
    this.counts.fill(0)
    this.sum = 0
    this.count = 0
  }
}

type ExportedValue = MetricValueWithName<string> & { sharedLabels: Record<string, string>; exemplar?: null }

export class SeriesHistogram<L extends string> {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly name: string
  readonly help: string
  readonly labelNames: readonly L[]
  private readonly bounds: readonly number[]
  private readonly byLabels = new Map<string, HistogramSeries>()

  constructor(options: HistogramOptions<L>) {
    const { name, help, labelNames, buckets, registers } = options
    if (labelNames.includes('le' as L)) throw new Error('le is a reserved label name of histograms')
    for (let k = 1; k < buckets.length; k++) {
      if (!(buckets[k] > buckets[k - 1])) throw new RangeError(`histogram buckets must ascend, got ${buckets.join(', ')}`)
    }
    this.name = name
    this.help = help
    this.labelNames = labelNames
    this.bounds = [...buckets]
    // The registry's types name only prom-client's own classes; at run time it needs the members above.
    for (const registry of registers) registry.registerMetric(this as unknown as Histogram)
  }

  /** The series of these labels (every label name given, no other), made on first use. */
  series(labels: Readonly<Record<L, string>>): HistogramSeries {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000')
    const known = this.byLabels.get(key)
    if (known !== undefined) return known
    const names = Object.keys(labels)
    const unknown = names.find((name) => !this.labelNames.includes(name as L))
    if (unknown !== undefined || names.length !== this.labelNames.length) {
      throw new Error(`${this.name} takes the labels ${this.labelNames.join(', ')}; got ${names.join(', ') || 'none'}`)
    }
    const made = new HistogramSeries({ ...labels }, this.bounds)
    this.byLabels.set(key, made)
    return made
  }

  observe(labels: Readonly<Record<L, string>>, value: number): void {
    this.series(labels).observe(value)
  }

  /**
   * Drops every observation. A series observed since appears again; handles stay valid, so a
   * caller holding one is not cut off by a reset.
   */
  reset(): void {
    for (const series of this.byLabels.values()) series.clear()
  }

  /** For the text exposition: bucket values carry the series labels as `sharedLabels`, as prom-client's do. */
  getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: ExportedValue[] }> {
    const values: ExportedValue[] = []
    const bucketName = `${this.name}_bucket`
    for (const series of this.byLabels.values()) {
      // prom-client shows a series from its first observation on, and none after a reset.
      if (series.count === 0) continue
      const shared = series.labels
      let cumulative = 0
      this.bounds.forEach((bound, k) => {
        cumulative += series.counts[k]
        values.push({ labels: { le: bound }, sharedLabels: shared, value: cumulative, metricName: bucketName, exemplar: null })
      })
      values.push({ labels: { le: '+Inf' }, sharedLabels: shared, value: series.count, metricName: bucketName, exemplar: null })
      values.push({ labels: {}, sharedLabels: shared, value: series.sum, metricName: `${this.name}_sum` })
      values.push({ labels: {}, sharedLabels: shared, value: series.count, metricName: `${this.name}_count` })
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values })
  }

  /** For JSON (registry.getMetricsAsJSON): every value's labels include its series' labels. */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Array<MetricValueWithName<string>> }> {
    const data = await this.getForPromString()
    return { ...data, values: data.values.map(({ sharedLabels, labels, ...value }) => ({ ...value, labels: { ...labels, ...sharedLabels } })) }
  }
}
