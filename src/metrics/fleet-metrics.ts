/**
 * Fleet metrics: agents by state, mode and version, modules by status, and the totals of what
 * the agents did (state transitions, module crashes and restarts, reconnects, events). Gauges
 * are set from the engine's incrementally kept counts and its cached composition in collect();
 * counters follow the engine's running totals (see totals.ts).
 */
import { Gauge, type Registry } from 'prom-client'
import { AGENT_STATES } from '../protocol/states.js'
import type { MetricsSource } from './source.js'
import { totalCounter } from './totals.js'

export const FLEET_METRICS = {
  agents: 'fleetsim_agents',
  agentsConnected: 'fleetsim_agents_connected',
  agentsByMode: 'fleetsim_agents_by_mode',
  agentsByVersion: 'fleetsim_agents_by_version',
  modules: 'fleetsim_modules',
  transitions: 'fleetsim_agent_state_transitions_total',
  moduleCrashes: 'fleetsim_module_crashes_total',
  moduleRestarts: 'fleetsim_module_restarts_total',
  reconnectAttempts: 'fleetsim_reconnect_attempts_total',
  reconnectFailures: 'fleetsim_reconnect_failures_total',
  eventsReceived: 'fleetsim_agent_events_received_total'
} as const

/** Sets a labelled gauge to exactly these values: label values gone since the last scrape disappear. */
function setAll<L extends string>(gauge: Gauge<L>, label: L, values: Record<string, number>): void {
  gauge.reset()
  for (const [value, count] of Object.entries(values)) gauge.set({ [label]: value } as Record<L, string>, count)
}

export function registerFleetMetrics(registry: Registry, source: MetricsSource): void {
  const registers = [registry]
  new Gauge({
    name: FLEET_METRICS.agents,
    help: 'Agents in the fleet by state (ONLINE, OFFLINE, ERROR, UNMANAGED, UNTRUSTED, FORGED).',
    labelNames: ['state'],
    registers,
    collect() {
      setAll(this, 'state', source.counts().byState)
    }
  })
  new Gauge({
    name: FLEET_METRICS.agentsConnected,
    help: 'Agents connected to the manager: every agent except OFFLINE and UNMANAGED ones.',
    registers,
    collect() {
      this.set(source.connectedCount())
    }
  })
  new Gauge({
    name: FLEET_METRICS.agentsByMode,
    help: 'Agents by connection mode (Connect, Listen, Unmanaged); refreshed at most every 10 s.',
    labelNames: ['mode'],
    registers,
    collect() {
      setAll(this, 'mode', source.composition().byMode)
    }
  })
  new Gauge({
    name: FLEET_METRICS.agentsByVersion,
    help: 'Agents by agent software version; refreshed at most every 10 s.',
    labelNames: ['version'],
    registers,
    collect() {
      setAll(this, 'version', source.composition().byVersion)
    }
  })
  new Gauge({
    name: FLEET_METRICS.modules,
    help: 'Modules of all agents by status (RUNNING, STOPPED, STARTING, FAILED); refreshed at most every 10 s.',
    labelNames: ['status'],
    registers,
    collect() {
      setAll(this, 'status', source.composition().modulesByStatus)
    }
  })

  // Every possible change of state, exported from the start so rate() has a baseline.
  const pairs: Array<{ from: string; to: string; index: number }> = []
  AGENT_STATES.forEach((from, f) =>
    AGENT_STATES.forEach((to, t) => {
      if (f !== t) pairs.push({ from, to, index: f * AGENT_STATES.length + t })
    })
  )
  totalCounter({
    name: FLEET_METRICS.transitions,
    help: 'Agent state changes by previous and new state.',
    labelNames: ['from', 'to'],
    registry,
    initial: pairs.map(({ from, to }) => ({ from, to })),
    restarts: () => source.stats.restarts,
    *read() {
      const transitions = source.stats.transitions
      for (const { from, to, index } of pairs) yield [{ from, to }, transitions[index] ?? 0]
    }
  })
  const total = (name: string, help: string, value: () => number) =>
    totalCounter({ name, help, registry, restarts: () => source.stats.restarts, read: () => [[{}, value()]] })
  total(FLEET_METRICS.moduleCrashes, 'Module crashes summed over the fleet.', () => source.stats.moduleCrashes)
  total(FLEET_METRICS.moduleRestarts, 'Module restarts summed over the fleet (a crashed or stopped module coming back).', () => source.stats.moduleRestarts)
  total(FLEET_METRICS.reconnectAttempts, 'Agent reconnects the manager asked for (updateandreloadagent, and assigntemplatetoagent with updateAgents=true).', () => source.stats.reconnectAttempts)
  total(FLEET_METRICS.reconnectFailures, 'Agent reconnects that did not come back within the 10 s reconnect wait.', () => source.stats.reconnectFailures)
  total(
    FLEET_METRICS.eventsReceived,
    'Log events received by the input modules of all agents, in virtual time (rate() is per wall second: divide by the clock speed for per virtual second).',
    () => source.stats.eventsReceived
  )
}
