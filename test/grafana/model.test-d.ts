/**
 * Panels Grafana would not load do not typecheck. Checked by `npm run typecheck` (part of
 * `npm test`), not by vitest: every `@ts-expect-error` below must meet an error on the line it
 * precedes, so a dashboard model loose enough to accept one of these panels fails the typecheck.
 */
import { BigValueGraphMode, GraphDrawStyle } from '@grafana/schema'
import type { BarGaugePanel, Dashboard, Panel, PrometheusAnnotation, StatPanel, TimeseriesPanel } from '../../grafana/lib/model.js'

const query = { refId: 'A', expr: 'sum(fleetsim_agents)' }
const fieldConfig = { defaults: { unit: 's' }, overrides: [] }

/** A panel Grafana loads: what each case below breaks in one place. */
export const stat: StatPanel = {
  id: 1,
  type: 'stat',
  title: 'Agents',
  gridPos: { x: 0, y: 0, w: 4, h: 4 },
  fieldConfig,
  options: { graphMode: BigValueGraphMode.Area },
  targets: [query]
}

export const positionAsText: Panel = {
  ...stat,
  // @ts-expect-error a grid position is in numbers of columns and rows
  gridPos: { x: '0', y: 0, w: 4, h: 4 }
}

export const noSize: Panel = {
  ...stat,
  // @ts-expect-error a grid position has a width and a height
  gridPos: { x: 0, y: 0 }
}

export const unknownField: Panel = {
  ...stat,
  // @ts-expect-error no such panel field (Grafana's is `transparent`)
  transparant: true
}

export const unknownPlugin: Panel = {
  ...stat,
  // @ts-expect-error not a panel type of these dashboards
  type: 'graph'
}

const { type: _type, ...withoutType } = stat
// @ts-expect-error a panel names its plugin
export const untyped: Panel = withoutType

export const optionOfAnotherPlugin: StatPanel = {
  ...stat,
  // @ts-expect-error a legend is a time series option, not a stat option
  options: { legend: { showLegend: true } }
}

export const valueOutsideEnum: StatPanel = {
  ...stat,
  // @ts-expect-error graphMode is `area`, `line` or `none`
  options: { graphMode: 'bars' }
}

export const customOfAnotherPlugin: BarGaugePanel = {
  ...stat,
  type: 'bargauge',
  options: {},
  // @ts-expect-error a bar gauge has no custom field config (drawStyle is a time series one)
  fieldConfig: { defaults: { custom: { drawStyle: GraphDrawStyle.Line } }, overrides: [] }
}

export const misspeltCustom: TimeseriesPanel = {
  ...stat,
  type: 'timeseries',
  options: {},
  // @ts-expect-error the time series field is `lineWidth`
  fieldConfig: { defaults: { custom: { lineWidht: 1 } }, overrides: [] }
}

export const queryWithoutPromQL: Panel = {
  ...stat,
  // @ts-expect-error a Prometheus query has an expr
  targets: [{ refId: 'A', query: 'sum(fleetsim_agents)' }]
}

export const queryWithoutRefId: Panel = {
  ...stat,
  // @ts-expect-error every query of a panel has a refId
  targets: [{ expr: 'sum(fleetsim_agents)' }]
}

export const overrideWithoutMatcher: Panel = {
  ...stat,
  // @ts-expect-error an override says which fields it applies to
  fieldConfig: { defaults: {}, overrides: [{ properties: [{ id: 'unit', value: 's' }] }] }
}

export const annotationWithoutColour: Omit<PrometheusAnnotation, 'iconColor'> = {
  name: 'Scenario',
  datasource: { type: 'prometheus', uid: '${datasource}' },
  enable: true,
  expr: 'fleetsim_scenario_info',
  step: '10s',
  titleFormat: '{{scenario}}',
  textFormat: 'A scenario runs',
  tagKeys: 'scenario',
  useValueForTime: false
}
// @ts-expect-error an annotation has a colour
export const uncoloured: PrometheusAnnotation = annotationWithoutColour

export const dashboardWithoutSchemaVersion: Omit<Dashboard, 'schemaVersion'> = {
  uid: 'fleetsim-test',
  title: 'Test',
  description: 'A dashboard',
  panels: [stat],
  annotations: { list: [] },
  templating: { list: [] },
  links: []
}
// @ts-expect-error Grafana migrates a dashboard from the schema version it names
export const unversioned: Dashboard = dashboardWithoutSchemaVersion

export const rowOfPanels: Dashboard = {
  ...dashboardWithoutSchemaVersion,
  schemaVersion: 39,
  // @ts-expect-error a dashboard's panels are panels, not ids
  panels: [1]
}
