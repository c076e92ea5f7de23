/**
 * The Grafana dashboards, as code. `npm run grafana:generate` writes them to
 * grafana/dashboards/*.json (and the panel list of grafana/README.md); a test keeps the
 * committed files equal to this source, and test/metrics/proven-queries.test.ts evaluates every
 * query of the committed JSON against a real Prometheus scraping a running fleetsim.
 *
 * Conventions: uids are fixed (`fleetsim-fleet`, `fleetsim-api`, `fleetsim-simulator`) so links
 * and bookmarks survive regeneration; every query filters on the `$instance` variable; the
 * datasource is the `$datasource` variable (provisioned default: uid `fleetsim-prometheus`).
 * Counter rates use `$__rate_interval`, which Grafana derives from the scrape interval set on the
 * datasource.
 */
import { API_METRICS } from './api-metrics.js'
import { FLEET_METRICS } from './fleet-metrics.js'
import { SCENARIO_METRICS } from './scenario-metrics.js'
import { SIMULATOR_METRICS } from './simulator-metrics.js'

/** uid of the Prometheus datasource the provisioning file creates. */
export const DATASOURCE_UID = 'fleetsim-prometheus'

const DS = { type: 'prometheus', uid: '${datasource}' } as const
/** The instance filter every query carries. */
const I = 'instance=~"$instance"'
const RATE = '$__rate_interval'

interface Target {
  expr: string
  legend?: string
  /** an instant query (bar gauges, stats of "now") */
  instant?: boolean
}

type Unit = 'short' | 's' | 'ms' | 'bytes' | 'Bps' | 'percentunit' | 'reqps' | 'ops' | 'opm' | 'dateTimeAsIso' | 'none'

interface PanelSpec {
  title: string
  /** what the panel shows; also the panel's description in Grafana and grafana/README.md */
  description: string
  kind: 'timeseries' | 'stat' | 'bargauge'
  targets: Target[]
  unit?: Unit
  stacked?: boolean
  /** grid width (of 24) and height */
  w: number
  h: number
  /** fixed colours by series name */
  colors?: Record<string, string>
  min?: number
  max?: number
  decimals?: number
  /** the second target (refId B) on a right axis with this unit */
  rightAxis?: Unit
}

interface AnnotationSpec {
  name: string
  description: string
  expr: string
  title: string
  tags: string[]
  color: string
}

interface DashboardSpec {
  uid: string
  file: string
  title: string
  description: string
  panels: PanelSpec[]
  annotations: AnnotationSpec[]
}

const STATE_COLORS: Record<string, string> = {
  ONLINE: 'green',
  OFFLINE: 'red',
  ERROR: 'orange',
  UNMANAGED: 'blue',
  UNTRUSTED: 'purple',
  FORGED: 'dark-red'
}

const scenarioAnnotation: AnnotationSpec = {
  name: 'Scenario',
  description: 'A region while a scenario runs, titled with its name (from fleetsim_scenario_info).',
  expr: `group by (scenario) (${SCENARIO_METRICS.info}{${I}, scenario!=""})`,
  title: '{{scenario}}',
  tags: ['scenario'],
  color: 'purple'
}

const timelineAnnotation: AnnotationSpec = {
  name: 'Timeline events',
  description: 'A mark where a scenario timeline event fired.',
  expr: `sum by (event) (increase(${SCENARIO_METRICS.timelineEvents}{${I}}[$__interval])) > 0`,
  title: '{{event}}',
  tags: ['event'],
  color: 'orange'
}

const fleet: DashboardSpec = {
  uid: 'fleetsim-fleet',
  file: 'fleet-overview.json',
  title: 'fleetsim / Fleet overview',
  description: 'The simulated fleet: agents by state, how they change, reconnects and modules, with the scenario and its timeline events as annotations.',
  annotations: [scenarioAnnotation, timelineAnnotation],
  panels: [
    { title: 'Agents', kind: 'stat', w: 4, h: 4, description: 'Agents in the fleet.', targets: [{ expr: `sum(${FLEET_METRICS.agents}{${I}})` }] },
    {
      title: 'Online',
      kind: 'stat',
      w: 4,
      h: 4,
      description: 'Agents ONLINE now.',
      targets: [{ expr: `sum(${FLEET_METRICS.agents}{${I}, state="ONLINE"})` }]
    },
    { title: 'Offline', kind: 'stat', w: 4, h: 4, description: 'Agents OFFLINE now.', targets: [{ expr: `sum(${FLEET_METRICS.agents}{${I}, state="OFFLINE"})` }] },
    {
      title: 'Connected',
      kind: 'stat',
      w: 4,
      h: 4,
      description: 'Agents connected to the manager (all but OFFLINE and UNMANAGED).',
      targets: [{ expr: `sum(${FLEET_METRICS.agentsConnected}{${I}})` }]
    },
    {
      title: 'Clock speed',
      kind: 'stat',
      w: 4,
      h: 4,
      description: 'Virtual seconds per wall second. Rates on this dashboard are per wall time: at speed 60 a wall minute holds a virtual hour.',
      targets: [{ expr: `max(${SCENARIO_METRICS.clockSpeed}{${I}})` }],
      unit: 'none'
    },
    {
      title: 'Virtual time',
      kind: 'stat',
      w: 4,
      h: 4,
      description: 'The simulated wall clock of the fleet.',
      targets: [{ expr: `max(${SCENARIO_METRICS.clockTime}{${I}}) * 1000` }],
      unit: 'dateTimeAsIso'
    },
    {
      title: 'Agents by state',
      kind: 'timeseries',
      w: 24,
      h: 9,
      stacked: true,
      description: 'Agents by state, stacked: the total is the fleet size. An outage shows as a red wave growing and draining back into green.',
      targets: [{ expr: `sum by (state) (${FLEET_METRICS.agents}{${I}})`, legend: '{{state}}' }],
      colors: STATE_COLORS
    },
    {
      title: 'State transitions per minute, by new state',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Agents entering each state per wall minute (sum over previous states).',
      targets: [{ expr: `sum by (to) (rate(${FLEET_METRICS.transitions}{${I}}[${RATE}])) * 60`, legend: '→ {{to}}' }],
      unit: 'opm',
      colors: Object.fromEntries(Object.entries(STATE_COLORS).map(([state, color]) => [`→ ${state}`, color]))
    },
    {
      title: 'Top transitions in the time range',
      kind: 'bargauge',
      w: 12,
      h: 8,
      description: 'The ten most frequent state changes (previous → new) within the dashboard\'s time range.',
      targets: [{ expr: `topk(10, sum by (from, to) (increase(${FLEET_METRICS.transitions}{${I}}[$__range])))`, legend: '{{from}} → {{to}}', instant: true }],
      unit: 'short',
      decimals: 0
    },
    {
      title: 'Reconnects per minute',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Reconnects the manager asked for (updateandreloadagent) and those that failed to come back within the 10 s wait, per wall minute.',
      targets: [
        { expr: `sum(rate(${FLEET_METRICS.reconnectAttempts}{${I}}[${RATE}])) * 60`, legend: 'attempts' },
        { expr: `sum(rate(${FLEET_METRICS.reconnectFailures}{${I}}[${RATE}])) * 60`, legend: 'failures' }
      ],
      unit: 'opm',
      colors: { attempts: 'blue', failures: 'red' }
    },
    {
      title: 'Module crashes and restarts per minute',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Module crashes and modules coming back to RUNNING, per wall minute. Restarts lagging crashes means modules are crash-looping.',
      targets: [
        { expr: `sum(rate(${FLEET_METRICS.moduleCrashes}{${I}}[${RATE}])) * 60`, legend: 'crashes' },
        { expr: `sum(rate(${FLEET_METRICS.moduleRestarts}{${I}}[${RATE}])) * 60`, legend: 'restarts' }
      ],
      unit: 'opm',
      colors: { crashes: 'red', restarts: 'green' }
    },
    {
      title: 'Modules by status',
      kind: 'timeseries',
      w: 8,
      h: 8,
      stacked: true,
      description: 'Modules of all agents by status (refreshed at most every 10 s).',
      targets: [{ expr: `sum by (status) (${FLEET_METRICS.modules}{${I}})`, legend: '{{status}}' }],
      colors: { RUNNING: 'green', STOPPED: 'blue', STARTING: 'yellow', FAILED: 'red' }
    },
    {
      title: 'Agents by version',
      kind: 'timeseries',
      w: 8,
      h: 8,
      stacked: true,
      description: 'Agents by software version (refreshed at most every 10 s): a rollout shows as one band growing while others shrink.',
      targets: [{ expr: `sum by (version) (${FLEET_METRICS.agentsByVersion}{${I}})`, legend: '{{version}}' }]
    },
    {
      title: 'Agents by mode',
      kind: 'timeseries',
      w: 8,
      h: 8,
      stacked: true,
      description: 'Agents by connection mode: Connect, Listen, Unmanaged (refreshed at most every 10 s).',
      targets: [{ expr: `sum by (mode) (${FLEET_METRICS.agentsByMode}{${I}})`, legend: '{{mode}}' }]
    },
    {
      title: 'Events received per virtual second',
      kind: 'timeseries',
      w: 24,
      h: 7,
      description: 'Log events the input modules of all agents receive, per virtual second (the wall rate divided by the clock speed).',
      targets: [
        { expr: `sum(rate(${FLEET_METRICS.eventsReceived}{${I}}[${RATE}]) / ${SCENARIO_METRICS.clockSpeed}{${I}})`, legend: 'events/s' }
      ],
      unit: 'short'
    }
  ]
}

const bucket = `${API_METRICS.duration}_bucket{${I}}`
const count = `${API_METRICS.duration}_count`

const api: DashboardSpec = {
  uid: 'fleetsim-api',
  file: 'api.json',
  title: 'fleetsim / API',
  description: 'The manager facade: requests, latency, errors and the faults scenario rules injected.',
  annotations: [scenarioAnnotation],
  panels: [
    { title: 'Requests per second', kind: 'stat', w: 6, h: 4, description: 'All requests per second.', unit: 'reqps', targets: [{ expr: `sum(rate(${count}{${I}}[${RATE}]))` }] },
    {
      title: 'Error ratio',
      kind: 'stat',
      w: 6,
      h: 4,
      description: 'Share of answers with a 4xx or 5xx status.',
      unit: 'percentunit',
      targets: [{ expr: `(sum(rate(${count}{${I}, status=~"[45].."}[${RATE}])) or vector(0)) / sum(rate(${count}{${I}}[${RATE}]))` }]
    },
    {
      title: 'p99 latency',
      kind: 'stat',
      w: 6,
      h: 4,
      description: '99th percentile of request duration over all operations.',
      unit: 's',
      targets: [{ expr: `histogram_quantile(0.99, sum by (le) (rate(${bucket}[${RATE}])))` }]
    },
    { title: 'In flight', kind: 'stat', w: 6, h: 4, description: 'Requests received and not yet answered.', targets: [{ expr: `sum(${API_METRICS.inFlight}{${I}})` }] },
    {
      title: 'Requests per second by operation',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Requests per second by operation (metrics, openapi, not_found and other for requests outside the spec\'s operations).',
      unit: 'reqps',
      targets: [{ expr: `sum by (operation) (rate(${count}{${I}}[${RATE}]))`, legend: '{{operation}}' }]
    },
    {
      title: 'Errors per second by operation and status',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Answers with a 4xx or 5xx status per second, by operation and status.',
      unit: 'reqps',
      targets: [{ expr: `sum by (operation, status) (rate(${count}{${I}, status=~"[45].."}[${RATE}]))`, legend: '{{operation}} {{status}}' }]
    },
    {
      title: 'Latency p50 by operation',
      kind: 'timeseries',
      w: 8,
      h: 8,
      description: 'Median request duration by operation.',
      unit: 's',
      targets: [{ expr: `histogram_quantile(0.5, sum by (le, operation) (rate(${bucket}[${RATE}])))`, legend: '{{operation}}' }]
    },
    {
      title: 'Latency p90 by operation',
      kind: 'timeseries',
      w: 8,
      h: 8,
      description: '90th percentile of request duration by operation.',
      unit: 's',
      targets: [{ expr: `histogram_quantile(0.9, sum by (le, operation) (rate(${bucket}[${RATE}])))`, legend: '{{operation}}' }]
    },
    {
      title: 'Latency p99 by operation',
      kind: 'timeseries',
      w: 8,
      h: 8,
      description: '99th percentile of request duration by operation.',
      unit: 's',
      targets: [{ expr: `histogram_quantile(0.99, sum by (le, operation) (rate(${bucket}[${RATE}])))`, legend: '{{operation}}' }]
    },
    {
      title: 'Error ratio by status class',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Share of answers that are client errors (4xx) and server errors (5xx, including injected ones).',
      unit: 'percentunit',
      targets: [
        { expr: `(sum(rate(${count}{${I}, status=~"4.."}[${RATE}])) or vector(0)) / sum(rate(${count}{${I}}[${RATE}]))`, legend: '4xx' },
        { expr: `(sum(rate(${count}{${I}, status=~"5.."}[${RATE}])) or vector(0)) / sum(rate(${count}{${I}}[${RATE}]))`, legend: '5xx' }
      ],
      colors: { '4xx': 'orange', '5xx': 'red' }
    },
    {
      title: 'Faults injected per second',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: "Faults the scenario's fault rules injected into answers, by kind and operation.",
      unit: 'ops',
      targets: [{ expr: `sum by (kind, operation) (rate(${SCENARIO_METRICS.faults}{${I}}[${RATE}]))`, legend: '{{kind}} {{operation}}' }]
    },
    {
      title: 'Response bytes per second by operation',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Bytes of response bodies sent per second, by operation.',
      unit: 'Bps',
      targets: [{ expr: `sum by (operation) (rate(${API_METRICS.responseSize}_sum{${I}}[${RATE}]))`, legend: '{{operation}}' }]
    },
    {
      title: 'Requests in flight',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Requests received and not yet answered, over time (stalls and slow bodies show here).',
      targets: [{ expr: `sum(${API_METRICS.inFlight}{${I}})`, legend: 'in flight' }]
    }
  ]
}

const simulator: DashboardSpec = {
  uid: 'fleetsim-simulator',
  file: 'simulator.json',
  title: 'fleetsim / Simulator',
  description: 'The simulator itself: step rounds and lag behind the virtual clock, the worker pool, the event loop, CPU and memory.',
  annotations: [],
  panels: [
    {
      title: 'Step lag',
      kind: 'stat',
      w: 6,
      h: 4,
      description: 'Virtual seconds the fleet is behind the clock. Under 1 s: the pool keeps up with the speed.',
      unit: 's',
      targets: [{ expr: `max(${SIMULATOR_METRICS.stepLag}{${I}})` }]
    },
    { title: 'Worker threads', kind: 'stat', w: 6, h: 4, description: 'Threads in the step pool.', targets: [{ expr: `sum(${SIMULATOR_METRICS.poolThreads}{${I}})` }] },
    {
      title: 'Worker restarts',
      kind: 'stat',
      w: 6,
      h: 4,
      description: 'Shards re-stepped after a worker died, in the time range.',
      decimals: 0,
      targets: [{ expr: `sum(increase(${SIMULATOR_METRICS.workerRestarts}{${I}}[$__range]))`, instant: true }]
    },
    {
      title: 'Resident memory',
      kind: 'stat',
      w: 6,
      h: 4,
      description: 'Resident memory of the process, shared fleet buffers included.',
      unit: 'bytes',
      targets: [{ expr: `sum(fleetsim_process_resident_memory_bytes{${I}})` }]
    },
    {
      title: 'Step lag behind the virtual clock',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Virtual seconds between the clock and the second the fleet has been stepped to. A growing line means --speed is too high for this fleet on this machine.',
      unit: 's',
      targets: [{ expr: `max by (instance) (${SIMULATOR_METRICS.stepLag}{${I}})`, legend: '{{instance}}' }]
    },
    {
      title: 'Step round time and rounds per second',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Wall time of the latest step round at each scrape, and step rounds per second (right axis).',
      unit: 's',
      rightAxis: 'short',
      targets: [
        { expr: `max by (instance) (${SIMULATOR_METRICS.stepLastRound}{${I}})`, legend: 'round time {{instance}}' },
        { expr: `sum by (instance) (rate(${SIMULATOR_METRICS.stepRounds}{${I}}[${RATE}]))`, legend: 'rounds/s {{instance}}' }
      ]
    },
    {
      title: 'Worker pool',
      kind: 'timeseries',
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
    },
    {
      title: 'Event loop delay',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Delay of the main thread\'s event loop between scrapes (p50, p99, max): the facade answers late when these grow.',
      unit: 's',
      targets: [
        { expr: `max by (instance) (fleetsim_nodejs_eventloop_lag_p50_seconds{${I}})`, legend: 'p50 {{instance}}' },
        { expr: `max by (instance) (fleetsim_nodejs_eventloop_lag_p99_seconds{${I}})`, legend: 'p99 {{instance}}' },
        { expr: `max by (instance) (fleetsim_nodejs_eventloop_lag_max_seconds{${I}})`, legend: 'max {{instance}}' }
      ]
    },
    {
      title: 'Memory',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Resident memory, V8 heap used and total, and external memory (buffers outside the heap).',
      unit: 'bytes',
      targets: [
        { expr: `sum by (instance) (fleetsim_process_resident_memory_bytes{${I}})`, legend: 'resident {{instance}}' },
        { expr: `sum by (instance) (fleetsim_nodejs_heap_size_used_bytes{${I}})`, legend: 'heap used {{instance}}' },
        { expr: `sum by (instance) (fleetsim_nodejs_heap_size_total_bytes{${I}})`, legend: 'heap total {{instance}}' },
        { expr: `sum by (instance) (fleetsim_nodejs_external_memory_bytes{${I}})`, legend: 'external {{instance}}' }
      ]
    },
    {
      title: 'CPU',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'CPU used by the process, all threads, in cores.',
      unit: 'short',
      targets: [{ expr: `sum by (instance) (rate(fleetsim_process_cpu_seconds_total{${I}}[${RATE}]))`, legend: 'cores {{instance}}' }]
    },
    {
      title: 'Garbage collection',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Share of wall time the main thread spent in garbage collection, by kind.',
      unit: 'percentunit',
      targets: [{ expr: `sum by (kind) (rate(fleetsim_nodejs_gc_duration_seconds_sum{${I}}[${RATE}]))`, legend: '{{kind}}' }]
    },
    {
      title: 'Composition pass time',
      kind: 'timeseries',
      w: 12,
      h: 8,
      description: 'Wall time of the latest pass counting agents by mode and version and modules by status (at most one every 10 s).',
      unit: 's',
      targets: [{ expr: `max by (instance) (${SIMULATOR_METRICS.compositionScan}{${I}})`, legend: '{{instance}}' }]
    }
  ]
}

export const DASHBOARDS: readonly DashboardSpec[] = [fleet, api, simulator]

// ---- rendering -------------------------------------------------------------------------------

function colorOverrides(colors: Record<string, string> | undefined): unknown[] {
  return Object.entries(colors ?? {}).map(([name, color]) => ({
    matcher: { id: 'byName', options: name },
    properties: [{ id: 'color', value: { mode: 'fixed', fixedColor: color } }]
  }))
}

function rightAxisOverrides(panel: PanelSpec): unknown[] {
  if (panel.rightAxis === undefined) return []
  return [
    {
      matcher: { id: 'byFrameRefID', options: 'B' },
      properties: [
        { id: 'custom.axisPlacement', value: 'right' },
        { id: 'unit', value: panel.rightAxis }
      ]
    }
  ]
}

function renderPanel(panel: PanelSpec, id: number, gridPos: { x: number; y: number; w: number; h: number }): Record<string, unknown> {
  const targets = panel.targets.map((target, k) => ({
    refId: String.fromCharCode(65 + k),
    datasource: DS,
    expr: target.expr,
    legendFormat: target.legend ?? '__auto',
    range: target.instant !== true,
    instant: target.instant === true,
    editorMode: 'code'
  }))
  const defaults: Record<string, unknown> = {
    unit: panel.unit ?? 'short',
    color: { mode: panel.kind === 'timeseries' ? 'palette-classic' : 'thresholds' },
    thresholds: { mode: 'absolute', steps: [{ color: 'green', value: null }] }
  }
  if (panel.min !== undefined) defaults.min = panel.min
  if (panel.max !== undefined) defaults.max = panel.max
  if (panel.decimals !== undefined) defaults.decimals = panel.decimals
  if (panel.kind === 'timeseries') {
    defaults.custom = {
      drawStyle: 'line',
      lineWidth: 1,
      fillOpacity: panel.stacked === true ? 70 : 10,
      showPoints: 'never',
      spanNulls: false,
      stacking: { mode: panel.stacked === true ? 'normal' : 'none', group: 'A' },
      axisPlacement: 'auto'
    }
  }
  const options =
    panel.kind === 'timeseries' ?
      { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } }
    : panel.kind === 'stat' ?
      { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'area', textMode: 'auto', justifyMode: 'auto', orientation: 'auto' }
    : { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, orientation: 'horizontal', displayMode: 'gradient', showUnfilled: true }
  return {
    id,
    type: panel.kind,
    title: panel.title,
    description: panel.description,
    datasource: DS,
    gridPos,
    fieldConfig: { defaults, overrides: [...colorOverrides(panel.colors), ...rightAxisOverrides(panel)] },
    options,
    targets
  }
}

function renderAnnotation(annotation: AnnotationSpec): Record<string, unknown> {
  return {
    name: annotation.name,
    datasource: DS,
    enable: true,
    hide: false,
    iconColor: annotation.color,
    expr: annotation.expr,
    step: '10s',
    titleFormat: annotation.title,
    textFormat: annotation.description,
    tagKeys: annotation.tags.join(','),
    useValueForTime: false
  }
}

/** A dashboard as Grafana's JSON model (provisioning form: no numeric id). */
export function renderDashboard(spec: DashboardSpec): Record<string, unknown> {
  let x = 0
  let y = 0
  let rowHeight = 0
  const panels = spec.panels.map((panel, k) => {
    if (x + panel.w > 24) {
      x = 0
      y += rowHeight
      rowHeight = 0
    }
    const gridPos = { x, y, w: panel.w, h: panel.h }
    x += panel.w
    rowHeight = Math.max(rowHeight, panel.h)
    return renderPanel(panel, k + 1, gridPos)
  })
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: ['fleetsim'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '5s',
    time: { from: 'now-15m', to: 'now' },
    timepicker: {},
    timezone: 'browser',
    links: [{ type: 'dashboards', tags: ['fleetsim'], asDropdown: false, includeVars: true, keepTime: true, title: 'fleetsim' }],
    templating: {
      list: [
        {
          name: 'datasource',
          label: 'Prometheus',
          type: 'datasource',
          query: 'prometheus',
          current: { text: 'fleetsim Prometheus', value: DATASOURCE_UID },
          hide: 0
        },
        {
          name: 'instance',
          label: 'Instance',
          type: 'query',
          datasource: DS,
          definition: `label_values(${FLEET_METRICS.agents}, instance)`,
          query: { query: `label_values(${FLEET_METRICS.agents}, instance)`, refId: 'instance' },
          refresh: 2,
          includeAll: true,
          multi: true,
          allValue: '.+',
          current: { text: 'All', value: '$__all' },
          sort: 1,
          hide: 0
        }
      ]
    },
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard'
        },
        ...spec.annotations.map(renderAnnotation)
      ]
    },
    panels
  }
}

/** Every dashboard file: name → content, as committed in grafana/dashboards/. */
export function dashboardFiles(): Map<string, string> {
  return new Map(DASHBOARDS.map((spec) => [spec.file, `${JSON.stringify(renderDashboard(spec), null, 2)}\n`]))
}

export const README_START = '<!-- panels: generated by npm run grafana:generate -->'
export const README_END = '<!-- panels: end -->'

/** The panel list of grafana/README.md, between README_START and README_END. */
export function panelList(): string {
  const lines: string[] = []
  for (const spec of DASHBOARDS) {
    lines.push(`### ${spec.title} (\`${spec.file}\`, uid \`${spec.uid}\`)`, '', spec.description, '')
    for (const panel of spec.panels) lines.push(`- **${panel.title}** (${panel.kind}): ${panel.description}`)
    for (const annotation of spec.annotations) lines.push(`- *Annotation* **${annotation.name}**: ${annotation.description}`)
    lines.push('')
  }
  return lines.join('\n')
}

/** README text with the generated panel list put between its markers. */
export function withPanelList(readme: string): string {
  const start = readme.indexOf(README_START)
  const end = readme.indexOf(README_END)
  if (start < 0 || end < start) throw new Error(`grafana/README.md needs the markers ${README_START} and ${README_END}`)
  return `${readme.slice(0, start + README_START.length)}\n\n${panelList()}${readme.slice(end)}`
}
