/**
 * The dashboard model the generator writes, in Grafana's own types (`@grafana/schema`), narrowed
 * to what fleetsim's dashboards use so that a panel Grafana would not load fails the typecheck:
 *
 * - a panel is a time series, stat or bar gauge panel, each with its plugin's options and field
 *   config types (an option of another plugin, a misspelt key or a value outside an enum fails);
 * - every query is a Prometheus query, every annotation is the built-in one or a Prometheus one;
 * - the grid position, ids, variables and links are Grafana's own types.
 *
 * What Grafana fills in is optional here, and only that: it merges a panel's options and field
 * config with its plugin's defaults when it loads the panel (`PluginDefaults`), and a dashboard
 * link of type `dashboards` needs no icon, tooltip or target (`DashboardsLink`).
 *
 * `Is<T, Grafana>` keeps each narrowed type assignable to the schema type it narrows, so apart
 * from the link above the narrowing can only be stricter than Grafana's model, never looser.
 *
 * Only types come from `@grafana/schema` here; the enums the builders use are its runtime values.
 */
import type {
  AnnotationQuery,
  Dashboard as GrafanaDashboard,
  DashboardLink,
  DataQuery,
  FieldConfig,
  FieldConfigSource,
  GraphFieldConfig,
  GridPos,
  Panel as GrafanaPanel,
  VariableModel
} from '@grafana/schema'
import type { Options as BarGaugeOptions } from '@grafana/schema/dist/esm/raw/composable/bargauge/panelcfg/x/BarGaugePanelCfg_types.gen'
import type { Options as StatOptions } from '@grafana/schema/dist/esm/raw/composable/stat/panelcfg/x/StatPanelCfg_types.gen'
import type { Options as TimeSeriesOptions } from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen'

/** `T`, checked to be assignable to Grafana's type `Grafana` (a compile error otherwise). */
type Is<T extends Grafana, Grafana> = T

/** The same properties as one object type (an intersection with an interface has no implicit index signature). */
type Flat<T> = { [K in keyof T]: T[K] }

/**
 * What a panel may leave out of its plugin's options and field config: Grafana merges them,
 * deeply, with the plugin's defaults when it loads the panel. Keys and value types stay checked.
 */
export type PluginDefaults<T> =
  T extends readonly (infer Item)[] ? PluginDefaults<Item>[]
  : T extends object ? { [K in keyof T]?: PluginDefaults<T[K]> }
  : T

/**
 * A query of Grafana's Prometheus datasource: the common part from `@grafana/schema`, the rest as
 * the datasource's PromQuery declares it (the schema package does not carry datasource queries).
 * One flat object type, not an interface, so it stays assignable to the schema's untyped targets.
 */
export type PrometheusQuery = Is<
  Flat<
    DataQuery & {
      /** the PromQL text */
      expr: string
      legendFormat?: string
      /** a range query (graphs) */
      range?: boolean
      /** an instant query (bar gauges, stats of "now") */
      instant?: boolean
      editorMode?: 'code' | 'builder'
      format?: 'time_series' | 'table' | 'heatmap'
      exemplar?: boolean
      interval?: string
    }
  >,
  Record<string, unknown>
>

/** A field config whose `custom` part is the plugin's (never: the plugin has none). */
type PluginFieldConfig<Custom> = Omit<FieldConfigSource, 'defaults'> & {
  defaults: Omit<FieldConfig, 'custom'> & { custom?: PluginDefaults<Custom> }
}

/** A panel of one plugin: its type id, options and field config, Prometheus queries, a place. */
type PluginPanel<Type extends string, Options, Custom> = Omit<GrafanaPanel, 'type' | 'id' | 'gridPos' | 'options' | 'fieldConfig' | 'targets'> & {
  id: number
  type: Type
  gridPos: GridPos
  fieldConfig: PluginFieldConfig<Custom>
  options: PluginDefaults<Options>
  targets: PrometheusQuery[]
}

export type TimeseriesPanel = PluginPanel<'timeseries', TimeSeriesOptions, GraphFieldConfig>
export type StatPanel = PluginPanel<'stat', StatOptions, never>
export type BarGaugePanel = PluginPanel<'bargauge', BarGaugeOptions, never>

/** Any panel of these dashboards. */
export type Panel = Is<TimeseriesPanel | StatPanel | BarGaugePanel, GrafanaPanel>

/**
 * A panel before the dashboard places it: its size, not yet its id or position (see
 * `dashboard()`, which numbers the panels and flows them into rows).
 */
export type PanelDraft<P extends Panel = Panel> =
  P extends Panel ? Omit<P, 'id' | 'gridPos'> & { gridPos: Pick<GridPos, 'w' | 'h'> } : never

/** The annotation every Grafana dashboard has: annotations and alerts stored in Grafana itself. */
export type BuiltInAnnotation = Is<AnnotationQuery & { builtIn: 1; type: 'dashboard' }, AnnotationQuery>

/**
 * An annotation from a Prometheus query, in the form Grafana's Prometheus datasource reads
 * (its annotation support moves `expr` and `step` into the query when it loads the dashboard).
 */
export type PrometheusAnnotation = Is<
  AnnotationQuery & {
    expr: string
    /** the query's resolution, e.g. `10s` */
    step: string
    /** the event's title, with `{{label}}` placeholders */
    titleFormat: string
    /** the event's text */
    textFormat: string
    /** labels that become the event's tags, comma separated */
    tagKeys: string
    /** true: the series' value is the event's time; false: the sample's time is */
    useValueForTime: boolean
  },
  AnnotationQuery
>

/**
 * A query variable: its values are the results of a query. `definition` is the query as text,
 * which Grafana shows in the dashboard's variable list; the classic dashboard model leaves it
 * out of VariableModel, Grafana's v2 dashboard schema has it (QueryVariableSpec.definition).
 */
export type QueryVariable = Is<VariableModel & { type: 'query'; definition?: string }, VariableModel>

/** A link to the dashboards with some tags: Grafana needs no icon, tooltip or target for it. */
export type DashboardsLink = Omit<DashboardLink, 'type' | 'icon' | 'tooltip' | 'targetBlank'> &
  Partial<Pick<DashboardLink, 'icon' | 'tooltip' | 'targetBlank'>> & { type: 'dashboards' }

/**
 * A whole dashboard as Grafana's JSON model, in the provisioning form (no numeric id; the uid
 * names it).
 */
export type Dashboard = Is<
  Omit<GrafanaDashboard, 'id' | 'uid' | 'title' | 'panels' | 'annotations' | 'templating' | 'links'> & {
    uid: string
    title: string
    description: string
    panels: Panel[]
    annotations: { list: Array<BuiltInAnnotation | PrometheusAnnotation> }
    templating: { list: Array<VariableModel | QueryVariable> }
    links: DashboardsLink[]
  },
  Omit<GrafanaDashboard, 'links'>
>
