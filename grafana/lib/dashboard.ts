/**
 * A whole dashboard from its uid, title, panels and annotations, with what every fleetsim
 * dashboard shares: the `datasource` and `instance` variables, a link to the other fleetsim
 * dashboards, a 5 s refresh over the last 15 minutes, and a shared crosshair.
 *
 * Panels flow left to right in rows of 24 columns: a panel that does not fit the rest of a row
 * starts the next one, below the tallest panel of the row before. Panel ids count from 1 in
 * that order.
 */
import { DashboardCursorSync, VariableHide, VariableRefresh, VariableSort, type VariableModel } from '@grafana/schema'
import { FLEET_METRICS } from '../../src/metrics/fleet-metrics.js'
import { BUILT_IN_ANNOTATION } from './annotations.js'
import type { Dashboard, Panel, PanelDraft, PrometheusAnnotation, QueryVariable } from './model.js'
import { DATASOURCE_UID, PROMETHEUS } from './prometheus.js'

/** Width of Grafana's dashboard grid. */
const GRID_COLUMNS = 24

/**
 * The dashboard JSON schema version these dashboards are written in; a newer Grafana migrates
 * them when it loads them.
 */
const SCHEMA_VERSION = 39

/** The tag of every fleetsim dashboard; the dashboards link to each other through it. */
const TAG = 'fleetsim'

export interface DashboardSpec {
  /** fixed, so links and bookmarks survive regeneration */
  uid: string
  title: string
  /** also the dashboard's description in grafana/README.md */
  description: string
  annotations: PrometheusAnnotation[]
  panels: PanelDraft[]
}

/** The Prometheus the queries go to, chosen on the dashboard (the provisioned one by default). */
const datasourceVariable: VariableModel = {
  name: 'datasource',
  label: 'Prometheus',
  type: 'datasource',
  query: 'prometheus',
  current: { text: 'fleetsim Prometheus', value: DATASOURCE_UID },
  hide: VariableHide.dontHide
}

/** The simulators shown, for several scraped by one Prometheus: all by default. */
const instances = `label_values(${FLEET_METRICS.agents}, instance)`
const instanceVariable: QueryVariable = {
  name: 'instance',
  label: 'Instance',
  type: 'query',
  datasource: PROMETHEUS,
  definition: instances,
  query: { query: instances, refId: 'instance' },
  refresh: VariableRefresh.onTimeRangeChanged,
  includeAll: true,
  multi: true,
  allValue: '.+',
  current: { text: 'All', value: '$__all' },
  sort: VariableSort.alphabeticalAsc,
  hide: VariableHide.dontHide
}

/** Numbers the panels and places them in rows (see the module comment). */
function flow(drafts: PanelDraft[]): Panel[] {
  let x = 0
  let y = 0
  let rowHeight = 0
  return drafts.map((draft, k) => {
    const { w, h } = draft.gridPos
    if (x + w > GRID_COLUMNS) {
      x = 0
      y += rowHeight
      rowHeight = 0
    }
    // The spread keeps gridPos where the draft has it, so the JSON's key order follows the draft.
    const panel: Panel = { id: k + 1, ...draft, gridPos: { x, y, w, h } }
    x += w
    rowHeight = Math.max(rowHeight, h)
    return panel
  })
}

/** A dashboard as Grafana's JSON model, in the provisioning form (no numeric id). */
export function dashboard(spec: DashboardSpec): Dashboard {
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: [TAG],
    editable: true,
    graphTooltip: DashboardCursorSync.Crosshair,
    schemaVersion: SCHEMA_VERSION,
    version: 1,
    refresh: '5s',
    time: { from: 'now-15m', to: 'now' },
    timepicker: {},
    timezone: 'browser',
    links: [{ type: 'dashboards', tags: [TAG], asDropdown: false, includeVars: true, keepTime: true, title: 'fleetsim' }],
    templating: { list: [datasourceVariable, instanceVariable] },
    annotations: { list: [BUILT_IN_ANNOTATION, ...spec.annotations] },
    panels: flow(spec.panels)
  }
}
