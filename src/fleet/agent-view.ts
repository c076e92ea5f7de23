/**
 * One agent as the API shows it: a torn-free copy of its fields (the sequence lock in
 * layout.ts), its counters, load and memory as the manager's last status poll of it saw them
 * (status-poll.ts, counters.ts), and the text of its identity (shown-identities.ts). Pure: reads
 * the views, writes nothing.
 */
import { AgentState, MODULE_STATUSES, ModuleStatus, stateName } from '../protocol/states.js'
import { MAX_MODULES, type FleetViews } from './layout.js'
import type { FleetProgram } from './program.js'
import type { Identity } from './identity.js'
import { countersAt, loadAt, memoryAt, newCounters } from './counters.js'
import type { AgentView, ModuleView } from './fleet-api.js'
import type { ShownIdentity } from './shown-identities.js'

/**
 * `the service`: the agent's address and configured port, an IPv6 address in brackets
 * (`[fd00:3::1]:5555`, RFC 3986's host form), as without them the port cannot be told
 * from the address's last group.
 */
export function serviceOf(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`
}

/** An agent's sysinfo line, a function of its index and OS. */
export function sysinfoOf(program: FleetProgram, identity: Identity, i: number, osIdx: number): string {
  return identity.sysinfo(i, program.os.names[osIdx] ?? 'unknown', program.osFamily[osIdx] ?? 'linux')
}

/** One scratch for every read: a view copies what it needs out of it before returning. */
const scratch = newCounters()

export function agentView(
  program: FleetProgram,
  v: FleetViews,
  identity: Identity,
  epochMs: number,
  /** the agent's last status poll (status-poll.ts) */
  polledAt: number,
  i: number,
  withModules: boolean,
  shown: ShownIdentity
): AgentView {
  // The fields are read under the agent's sequence lock (readConsistent), written out here
  // rather than through a closure: a list of 100k agents reads them 100k times, and the
  // closure and the snapshot object were most of what a read allocated.
  let at: number, state: number, osIdx: number, versionIdx: number, moduleSetIdx: number, startedAt: number, lastOnlineAt: number
  let receivedAtMidnight: number, sentAtMidnight: number
  let statuses: number[] | undefined
  let moduleReceived: number[] | undefined
  for (;;) {
    const before = Atomics.load(v.seq, i)
    if ((before & 1) !== 0) continue
    // What the manager saw at its last poll, or at the agent's last change, which the agent
    // reports at once (the change materialised its counters at countAt: counters.ts).
    at = Math.max(polledAt, v.countAt[i])
    countersAt(program, v, i, at, scratch)
    state = v.state[i]
    osIdx = v.osIdx[i]
    versionIdx = v.versionIdx[i]
    moduleSetIdx = v.moduleSetIdx[i]
    startedAt = v.startedAt[i]
    // An agent online now was seen online when the manager last heard from it.
    lastOnlineAt = state === AgentState.ONLINE ? at : v.lastOnlineAt[i]
    receivedAtMidnight = v.receivedAtMidnight[i]
    sentAtMidnight = v.sentAtMidnight[i]
    if (withModules) {
      statuses = []
      for (let k = 0; k < v.moduleCount[i]; k++) statuses.push(v.moduleStatus[i * MAX_MODULES + k])
      moduleReceived = scratch.moduleReceived.slice()
    }
    // Atomics.load is sequentially consistent: the plain reads above cannot move past it.
    if (Atomics.load(v.seq, i) === before) break
  }
  const { received, sent, queued, dropped } = scratch
  const os = program.os.names[osIdx] ?? 'unknown'
  const running = state !== AgentState.OFFLINE
  const record: AgentView = {
    index: i,
    uuid: shown.uuid,
    name: shown.name,
    version: program.versions.names[versionIdx] ?? 'unknown',
    status: stateName(state),
    os,
    address: shown.address,
    service: shown.service,
    started: epochMs + startedAt * 1000,
    lastOnline: epochMs + lastOnlineAt * 1000,
    load: loadAt(program, i, at, running),
    memUsage: memoryAt(program, i, at, queued),
    received,
    receivedToday: received - receivedAtMidnight,
    processing: queued,
    sent,
    sentToday: sent - sentAtMidnight,
    sysinfo: shown.sysinfoOs === osIdx ? shown.sysinfo : sysinfoOf(program, identity, i, osIdx)
  }
  if (statuses !== undefined && moduleReceived !== undefined) {
    const specs = program.moduleSets[moduleSetIdx]?.modules ?? []
    const perModule = moduleReceived
    record.modules = statuses.map((status, k): ModuleView => {
      const spec = specs[k]
      // Inputs count what they receive; an output reports the agent's whole flow.
      const isOutput = spec?.type === 'OUTPUT'
      return {
        moduleName: spec?.name ?? `module${k}`,
        module: spec?.kind ?? 'unknown',
        moduleType: spec?.moduleType ?? 0,
        type: isOutput ? 'OUTPUT' : 'INPUT',
        isRunning: status === ModuleStatus.RUNNING,
        evtRecvd: isOutput ? received : perModule[k],
        queuesize: isOutput ? queued : 0,
        evtFwd: isOutput ? sent : perModule[k],
        evtDrop: isOutput ? dropped : 0,
        status: MODULE_STATUSES[status],
        statusCode: status,
        id: k + 1
      }
    })
  }
  return record
}
