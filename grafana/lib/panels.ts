/**
 * Panel builders: a stat, time series or bar gauge panel from its title, description, size,
 * queries and unit, with the look every fleetsim panel shares. Each returns Grafana's model of
 * that panel (lib/model.ts), not yet placed: `dashboard()` numbers the panels and flows them
 * into rows.
 */
import {
  AxisPlacement,
  BarGaugeDisplayMode,
  BigValueColorMode,
  BigValueGraphMode,
  BigValueJustifyMode,
  BigValueTextMode,
  FieldColorModeId,
  GraphDrawStyle,
  LegendDisplayMode,
  SortOrder,
  StackingMode,
  ThresholdsMode,
  TooltipDisplayMode,
  VisibilityMode,
  VizOrientation,
  type FieldColor,
  type FieldConfigSource,
  type ReduceDataOptions,
  type ThresholdsConfig
} from '@grafana/schema'
import type { BarGaugePanel, PanelDraft, PrometheusQuery, StatPanel, TimeseriesPanel } from './model.js'
import { PROMETHEUS } from './prometheus.js'

/** Grafana unit ids these dashboards use (Grafana's model types a unit as any string). */
export type Unit = 'short' | 's' | 'ms' | 'bytes' | 'Bps' | 'percentunit' | 'reqps' | 'ops' | 'opm' | 'dateTimeAsIso' | 'none'

export interface Query {
  /** PromQL; filter on the instance variable (`I` of lib/prometheus.ts) */
  expr: string
  /** the series' name in the legend, with `{{label}}` placeholders (default: Grafana's own) */
  legend?: string
  /** an instant query (bar gauges, stats of "now") rather than a range */
  instant?: boolean
}

export interface PanelSpec {
  title: string
  /** what the panel shows; also the panel's description in Grafana and grafana/README.md */
  description: string
  /** grid width (of 24 columns) and height */
  w: number
  h: number
  /** the queries, in order: refId A, B, … */
  targets: Query[]
  /** default `short` */
  unit?: Unit
  min?: number
  max?: number
  decimals?: number
}

export interface TimeseriesSpec extends PanelSpec {
  /** series stacked on each other (the total is meaningful, e.g. agents by state) */
  stacked?: boolean
  /** fixed colours by series name */
  colors?: Record<string, string>
  /** the second query (refId B) on a right axis with this unit */
  rightAxis?: Unit
}

type FieldOverride = FieldConfigSource['overrides'][number]

/** The single value a stat or bar gauge shows: the last value that is not null. */
const LAST_VALUE: ReduceDataOptions = { calcs: ['lastNotNull'], fields: '', values: false }

/** One colour whatever the value: these panels have no thresholds. */
const NO_THRESHOLDS: ThresholdsConfig = { mode: ThresholdsMode.Absolute, steps: [{ color: 'green', value: null }] }

/** The panel's queries, with refIds A, B, … in order. */
function prometheusQueries(queries: Query[]): PrometheusQuery[] {
  return queries.map((query, k) => ({
    refId: String.fromCharCode(65 + k),
    datasource: PROMETHEUS,
    expr: query.expr,
    legendFormat: query.legend ?? '__auto',
    range: query.instant !== true,
    instant: query.instant === true,
    editorMode: 'code'
  }))
}

/** The parts every panel has, in the order of the committed JSON. */
function head(spec: PanelSpec) {
  return { title: spec.title, description: spec.description, datasource: PROMETHEUS, gridPos: { w: spec.w, h: spec.h } }
}

/** Field defaults every panel shares. Unset min, max and decimals stay out of the JSON (JSON.stringify drops undefined). */
function fieldDefaults(spec: PanelSpec, color: FieldColorModeId) {
  return {
    unit: spec.unit ?? 'short',
    color: { mode: color },
    thresholds: NO_THRESHOLDS,
    min: spec.min,
    max: spec.max,
    decimals: spec.decimals
  }
}

/** Series `series` drawn in `color`. */
export function fixedColor(series: string, color: string): FieldOverride {
  const value: FieldColor = { mode: FieldColorModeId.Fixed, fixedColor: color }
  return { matcher: { id: 'byName', options: series }, properties: [{ id: 'color', value }] }
}

/** The series of query `refId` on a right axis with its own unit. */
export function rightAxis(unit: Unit, refId = 'B'): FieldOverride {
  return {
    matcher: { id: 'byFrameRefID', options: refId },
    properties: [
      { id: 'custom.axisPlacement', value: AxisPlacement.Right },
      { id: 'unit', value: unit }
    ]
  }
}

/** A big number: the latest value of one query. */
export function stat(spec: PanelSpec): PanelDraft<StatPanel> {
  return {
    type: 'stat',
    ...head(spec),
    fieldConfig: { defaults: fieldDefaults(spec, FieldColorModeId.Thresholds), overrides: [] },
    options: {
      reduceOptions: LAST_VALUE,
      colorMode: BigValueColorMode.Value,
      graphMode: BigValueGraphMode.Area,
      textMode: BigValueTextMode.Auto,
      justifyMode: BigValueJustifyMode.Auto,
      orientation: VizOrientation.Auto
    },
    targets: prometheusQueries(spec.targets)
  }
}

/** Lines over time, one per series, with a legend below and a tooltip listing every series. */
export function timeseries(spec: TimeseriesSpec): PanelDraft<TimeseriesPanel> {
  const stacked = spec.stacked === true
  return {
    type: 'timeseries',
    ...head(spec),
    fieldConfig: {
      defaults: {
        ...fieldDefaults(spec, FieldColorModeId.PaletteClassic),
        custom: {
          drawStyle: GraphDrawStyle.Line,
          lineWidth: 1,
          fillOpacity: stacked ? 70 : 10,
          showPoints: VisibilityMode.Never,
          spanNulls: false,
          stacking: { mode: stacked ? StackingMode.Normal : StackingMode.None, group: 'A' },
          axisPlacement: AxisPlacement.Auto
        }
      },
      overrides: [
        ...Object.entries(spec.colors ?? {}).map(([series, color]) => fixedColor(series, color)),
        ...(spec.rightAxis === undefined ? [] : [rightAxis(spec.rightAxis)])
      ]
    },
    options: {
      legend: { displayMode: LegendDisplayMode.List, placement: 'bottom', showLegend: true },
      tooltip: { mode: TooltipDisplayMode.Multi, sort: SortOrder.Descending }
    },
    targets: prometheusQueries(spec.targets)
  }
}

/** Horizontal bars, one per series: the latest value of an instant query. */
export function barGauge(spec: PanelSpec): PanelDraft<BarGaugePanel> {
  return {
    type: 'bargauge',
    ...head(spec),
    fieldConfig: { defaults: fieldDefaults(spec, FieldColorModeId.Thresholds), overrides: [] },
    options: {
      reduceOptions: LAST_VALUE,
      orientation: VizOrientation.Horizontal,
      displayMode: BarGaugeDisplayMode.Gradient,
      showUnfilled: true
    },
    targets: prometheusQueries(spec.targets)
  }
}
