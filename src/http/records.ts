/** Agent and module records in the spec's shape, from the fleet's views. */
import type { AgentView, ModuleView } from '../fleet/fleet-api.js'
import { formatLocalMinute } from '../manager/time-format.js'
import type { AgentRecord, ModuleRecord } from './schemas.js'

// serverInfo is always empty in the simulator; one shared frozen object, never mutated.
const EMPTY_SERVER_INFO = Object.freeze({}) as Record<string, never>

export function moduleRecord(m: ModuleView): ModuleRecord {
  return {
    module_name: m.moduleName,
    module: m.module,
    'module-type': m.moduleType,
    type: m.type,
    isRunning: m.isRunning,
    'evt-recvd': m.evtRecvd,
    queuesize: m.queuesize,
    'evt-fwd': m.evtFwd,
    'evt-drop': m.evtDrop,
    status: m.statusCode,
    'module-status': m.status,
    id: m.id,
    serverInfo: EMPTY_SERVER_INFO
  }
}

/** Key order follows the spec's table, with `uuid` after `name`. */
export function agentRecord(view: AgentView): AgentRecord {
  const record: AgentRecord = {
    name: view.name,
    uuid: view.uuid,
    version: view.version,
    status: view.status,
    os: view.os,
    address: view.address,
    'the service': view.service,
    started: formatLocalMinute(view.started),
    lastOnline: formatLocalMinute(view.lastOnline),
    load: view.load.toFixed(2),
    memUsage: view.memUsage,
    received: view.received,
    receivedToday: view.receivedToday,
    processing: view.processing,
    sent: view.sent,
    sentToday: view.sentToday,
    sysinfo: view.sysinfo
  }
  if (view.modules !== undefined) record.modules = view.modules.map(moduleRecord)
  return record
}
