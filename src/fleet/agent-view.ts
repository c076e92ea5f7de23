/**
 * One agent as the API shows it: a torn-free copy of its fields (the sequence lock in
 * layout.ts), its counters brought to the fleet's second (counters.ts), and the text of its
 * identity. Pure: reads the views, writes nothing.
 */
import { AgentState, MODULE_STATUSES, ModuleStatus, stateName } from '../protocol/states.js'
import { MAX_MODULES, readConsistent, type FleetViews } from './layout.js'
import type { FleetProgram } from './program.js'
import type { Identity } from './identity.js'
import { countersAt, loadAt, memoryAt, newCounters } from './counters.js'
import type { AgentView, ModuleView } from './fleet-api.js'

/** What only the engine knows of an agent: its current name, UUID, address and port. */
export interface ShownIdentity {
  name: string
  uuid: string
  address: string
  /** the port of the agent's configuration (AGENT_PORT for generated agents) */
  port: number
}

/**
 * `the service`: the agent's address and configured port, an IPv6 address in brackets
 * (`[fd00:3::1]:5555`, RFC 3986's host form), as without them the port cannot be told
 * from the address's last group.
 */
export function serviceOf(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`
}

export function agentView(
  program: FleetProgram,
  v: FleetViews,
  identity: Identity,
  epochMs: number,
  t: number,
  i: number,
  withModules: boolean,
  shown: ShownIdentity
): AgentView {
  const scratch = newCounters()
  const snapshot = readConsistent(v, i, () => {
    countersAt(program, v, i, t, scratch)
    const statuses: number[] = []
    for (let k = 0; k < v.moduleCount[i]; k++) statuses.push(v.moduleStatus[i * MAX_MODULES + k])
    return {
      state: v.state[i],
      osIdx: v.osIdx[i],
      versionIdx: v.versionIdx[i],
      moduleSetIdx: v.moduleSetIdx[i],
      startedAt: v.startedAt[i],
      // An agent online now was seen online at this very second.
      lastOnlineAt: v.state[i] === AgentState.ONLINE ? t : v.lastOnlineAt[i],
      counters: { ...scratch, moduleReceived: [...scratch.moduleReceived] },
      receivedAtMidnight: v.receivedAtMidnight[i],
      sentAtMidnight: v.sentAtMidnight[i],
      statuses
    }
  })
  const os = program.os.names[snapshot.osIdx] ?? 'unknown'
  const running = snapshot.state !== AgentState.OFFLINE
  const c = snapshot.counters
  const record: AgentView = {
    index: i,
    uuid: shown.uuid,
    name: shown.name,
    version: program.versions.names[snapshot.versionIdx] ?? 'unknown',
    status: stateName(snapshot.state),
    os,
    address: shown.address,
    service: serviceOf(shown.address, shown.port),
    started: epochMs + snapshot.startedAt * 1000,
    lastOnline: epochMs + snapshot.lastOnlineAt * 1000,
    load: loadAt(program, i, t, running),
    memUsage: memoryAt(program, i, t, c.queued),
    received: c.received,
    receivedToday: c.received - snapshot.receivedAtMidnight,
    processing: c.queued,
    sent: c.sent,
    sentToday: c.sent - snapshot.sentAtMidnight,
    sysinfo: identity.sysinfo(i, os, program.osFamily[snapshot.osIdx] ?? 'linux')
  }
  if (withModules) {
    const specs = program.moduleSets[snapshot.moduleSetIdx]?.modules ?? []
    record.modules = snapshot.statuses.map((status, k): ModuleView => {
      const spec = specs[k]
      // Inputs count what they receive; an output reports the agent's whole flow.
      const isOutput = spec?.type === 'OUTPUT'
      return {
        moduleName: spec?.name ?? `module${k}`,
        module: spec?.kind ?? 'unknown',
        moduleType: spec?.moduleType ?? 0,
        type: isOutput ? 'OUTPUT' : 'INPUT',
        isRunning: status === ModuleStatus.RUNNING,
        evtRecvd: isOutput ? c.received : c.moduleReceived[k],
        queuesize: isOutput ? c.queued : 0,
        evtFwd: isOutput ? c.sent : c.moduleReceived[k],
        evtDrop: isOutput ? c.dropped : 0,
        status: MODULE_STATUSES[status],
        statusCode: status,
        id: k + 1
      }
    })
  }
  return record
}
