/**
 * The Fleet overview dashboard (fleet-overview.json): the simulated fleet by state, how it
 * changes, reconnects and modules, with the scenario and its timeline events as annotations.
 */
import { FLEET_METRICS } from '../../src/metrics/fleet-metrics.js'
import { SCENARIO_METRICS } from '../../src/metrics/scenario-metrics.js'
import { dashboard } from '../lib/dashboard.js'
import { barGauge, stat, timeseries } from '../lib/panels.js'
import { I, RATE } from '../lib/prometheus.js'
import { scenarioAnnotation, timelineAnnotation } from './scenario-annotations.js'

/** A colour per agent state, the same on every panel: an outage is a red wave. */
const STATE_COLORS: Record<string, string> = {
  ONLINE: 'green',
  OFFLINE: 'red',
  ERROR: 'orange',
  UNMANAGED: 'blue',
  UNTRUSTED: 'purple',
  FORGED: 'dark-red'
}

export const fleetOverview = dashboard({
  uid: 'fleetsim-fleet',
  title: 'fleetsim / Fleet overview',
  description: 'The simulated fleet: agents by state, how they change, reconnects and modules, with the scenario and its timeline events as annotations.',
  annotations: [scenarioAnnotation, timelineAnnotation],
  panels: [
    stat({ title: 'Agents', w: 4, h: 4, description: 'Agents in the fleet.', targets: [{ expr: `sum(${FLEET_METRICS.agents}{${I}})` }] }),
    stat({
      title: 'Online',
      w: 4,
      h: 4,
      description: 'Agents ONLINE now.',
      targets: [{ expr: `sum(${FLEET_METRICS.agents}{${I}, state="ONLINE"})` }]
    }),
    stat({ title: 'Offline', w: 4, h: 4, description: 'Agents OFFLINE now.', targets: [{ expr: `sum(${FLEET_METRICS.agents}{${I}, state="OFFLINE"})` }] }),
    stat({
      title: 'Connected',
      w: 4,
      h: 4,
      description: 'Agents connected to the manager (all but OFFLINE and UNMANAGED).',
      targets: [{ expr: `sum(${FLEET_METRICS.agentsConnected}{${I}})` }]
    }),
    stat({
      title: 'Clock speed',
      w: 4,
      h: 4,
      description: 'Virtual seconds per wall second. Rates on this dashboard are per wall time: at speed 60 a wall minute holds a virtual hour.',
      targets: [{ expr: `max(${SCENARIO_METRICS.clockSpeed}{${I}})` }],
      unit: 'none'
    }),
    stat({
      title: 'Virtual time',
      w: 4,
      h: 4,
      description: 'The simulated wall clock of the fleet.',
      targets: [{ expr: `max(${SCENARIO_METRICS.clockTime}{${I}}) * 1000` }],
      unit: 'dateTimeAsIso'
    }),
    timeseries({
      title: 'Agents by state',
      w: 24,
      h: 9,
      stacked: true,
      description: 'Agents by state, stacked: the total is the fleet size. An outage shows as a red wave growing and draining back into green.',
      targets: [{ expr: `sum by (state) (${FLEET_METRICS.agents}{${I}})`, legend: '{{state}}' }],
      colors: STATE_COLORS
    }),
    timeseries({
      title: 'State transitions per minute, by new state',
      w: 12,
      h: 8,
      description: 'Agents entering each state per wall minute (sum over previous states).',
      targets: [{ expr: `sum by (to) (rate(${FLEET_METRICS.transitions}{${I}}[${RATE}])) * 60`, legend: '→ {{to}}' }],
      unit: 'opm',
      colors: Object.fromEntries(Object.entries(STATE_COLORS).map(([state, color]) => [`→ ${state}`, color]))
    }),
    barGauge({
      title: 'Top transitions in the time range',
      w: 12,
      h: 8,
      description: "The ten most frequent state changes (previous → new) within the dashboard's time range.",
      targets: [{ expr: `topk(10, sum by (from, to) (increase(${FLEET_METRICS.transitions}{${I}}[$__range])))`, legend: '{{from}} → {{to}}', instant: true }],
      unit: 'short',
      decimals: 0
    }),
    timeseries({
      title: 'Reconnects per minute',
      w: 12,
      h: 8,
      description: 'Reconnects the manager asked for (updateandreloadagent, assigntemplatetoagent with updateAgents=true) and those that failed to come back within the 10 s wait, per wall minute.',
      targets: [
        { expr: `sum(rate(${FLEET_METRICS.reconnectAttempts}{${I}}[${RATE}])) * 60`, legend: 'attempts' },
        { expr: `sum(rate(${FLEET_METRICS.reconnectFailures}{${I}}[${RATE}])) * 60`, legend: 'failures' }
      ],
      unit: 'opm',
      colors: { attempts: 'blue', failures: 'red' }
    }),
    timeseries({
      title: 'Module crashes and restarts per minute',
      w: 12,
      h: 8,
      description: 'Module crashes and modules coming back to RUNNING, per wall minute. Restarts lagging crashes means modules are crash-looping.',
      targets: [
        { expr: `sum(rate(${FLEET_METRICS.moduleCrashes}{${I}}[${RATE}])) * 60`, legend: 'crashes' },
        { expr: `sum(rate(${FLEET_METRICS.moduleRestarts}{${I}}[${RATE}])) * 60`, legend: 'restarts' }
      ],
      unit: 'opm',
      colors: { crashes: 'red', restarts: 'green' }
    }),
    timeseries({
      title: 'Modules by status',
      w: 8,
      h: 8,
      stacked: true,
      description: 'Modules of all agents by status (refreshed at most every 10 s).',
      targets: [{ expr: `sum by (status) (${FLEET_METRICS.modules}{${I}})`, legend: '{{status}}' }],
      colors: { RUNNING: 'green', STOPPED: 'blue', STARTING: 'yellow', FAILED: 'red' }
    }),
    timeseries({
      title: 'Agents by version',
      w: 8,
      h: 8,
      stacked: true,
      description: 'Agents by software version (refreshed at most every 10 s): a rollout shows as one band growing while others shrink.',
      targets: [{ expr: `sum by (version) (${FLEET_METRICS.agentsByVersion}{${I}})`, legend: '{{version}}' }]
    }),
    timeseries({
      title: 'Agents by mode',
      w: 8,
      h: 8,
      stacked: true,
      description: 'Agents by connection mode: Connect, Listen, Unmanaged (refreshed at most every 10 s).',
      targets: [{ expr: `sum by (mode) (${FLEET_METRICS.agentsByMode}{${I}})`, legend: '{{mode}}' }]
    }),
    timeseries({
      title: 'Events received per virtual second',
      w: 24,
      h: 7,
      description: 'Log events the input modules of all agents receive, per virtual second (the wall rate divided by the clock speed).',
      targets: [{ expr: `sum(rate(${FLEET_METRICS.eventsReceived}{${I}}[${RATE}]) / ${SCENARIO_METRICS.clockSpeed}{${I}})`, legend: 'events/s' }],
      unit: 'short'
    })
  ]
})
