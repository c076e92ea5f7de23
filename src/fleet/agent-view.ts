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
import { Figure, FIGURES, ModuleFigure, MODULE_FIGURES, Modules, MODULES_LENGTH, type AgentView, type ModuleHead, type ModuleView } from './fleet-api.js'
import type { ModuleSpec } from './program.js'
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

/**
 * What the last read (readFigures) saw besides its figures, for agentView to copy out before
 * the next read: whole numbers only, so writing them allocates nothing.
 */
const lastRead = { osIdx: 0, versionIdx: 0, moduleSetIdx: 0, moduleCount: 0, moduleStatuses: new Array<number>(MAX_MODULES).fill(0) }

/**
 * Agent i's figures as the API shows them, into `out` at Figure's offsets, from one read under
 * the agent's sequence lock; with modules, their statuses and counters too (lastRead, scratch).
 * `identityRevision`: the overrides' revision the identity's text is read at (reads.ts).
 */
export function readFigures(
  program: FleetProgram,
  v: FleetViews,
  epochMs: number,
  /** the agent's last status poll (status-poll.ts) */
  polledAt: number,
  identityRevision: number,
  i: number,
  withModules: boolean,
  out: Float64Array
): void {
  // The fields are read under the agent's sequence lock (readConsistent), written out here
  // rather than through a closure: a list of 100k agents reads them 100k times, and the
  // closure and the snapshot object were most of what a read allocated.
  let at: number, state: number, osIdx: number, versionIdx: number, startedAt: number, lastOnlineAt: number
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
    startedAt = v.startedAt[i]
    // An agent online now was seen online when the manager last heard from it.
    lastOnlineAt = state === AgentState.ONLINE ? at : v.lastOnlineAt[i]
    out[Figure.RECEIVED_TODAY] = scratch.received - v.receivedAtMidnight[i]
    out[Figure.SENT_TODAY] = scratch.sent - v.sentAtMidnight[i]
    if (withModules) {
      lastRead.moduleSetIdx = v.moduleSetIdx[i]
      const count = (lastRead.moduleCount = v.moduleCount[i])
      for (let k = 0; k < count; k++) lastRead.moduleStatuses[k] = v.moduleStatus[i * MAX_MODULES + k]
    }
    // Atomics.load is sequentially consistent: the plain reads above cannot move past it.
    if (Atomics.load(v.seq, i) === before) break
  }
  lastRead.osIdx = osIdx
  lastRead.versionIdx = versionIdx
  out[Figure.STATE] = state
  // OS and version are bytes (layout.ts): the key is exact while the revision is below 2^37.
  out[Figure.IDENTITY] = identityRevision * 65_536 + osIdx * 256 + versionIdx
  out[Figure.OS] = osIdx
  out[Figure.VERSION] = versionIdx
  out[Figure.STARTED] = epochMs + startedAt * 1000
  out[Figure.LAST_ONLINE] = epochMs + lastOnlineAt * 1000
  out[Figure.LOAD] = loadAt(program, i, at, state !== AgentState.OFFLINE)
  out[Figure.MEM_USAGE] = memoryAt(program, i, at, scratch.queued)
  out[Figure.RECEIVED] = scratch.received
  out[Figure.PROCESSING] = scratch.queued
  out[Figure.SENT] = scratch.sent
}

/** The figures of the view being made, when its caller does not want them. */
const ownFigures = new Float64Array(FIGURES)

export function agentView(
  program: FleetProgram,
  v: FleetViews,
  identity: Identity,
  epochMs: number,
  /** the agent's last status poll (status-poll.ts) */
  polledAt: number,
  identityRevision: number,
  i: number,
  withModules: boolean,
  shown: ShownIdentity,
  /** where the view's figures are written (Fleet.view) */
  figures: Float64Array = ownFigures
): AgentView {
  readFigures(program, v, epochMs, polledAt, identityRevision, i, withModules, figures)
  const { osIdx, versionIdx } = lastRead
  const os = program.os.names[osIdx] ?? 'unknown'
  const received = figures[Figure.RECEIVED]
  const sent = figures[Figure.SENT]
  const queued = figures[Figure.PROCESSING]
  const record: AgentView = {
    index: i,
    uuid: shown.uuid,
    name: shown.name,
    version: program.versions.names[versionIdx] ?? 'unknown',
    status: stateName(figures[Figure.STATE]),
    os,
    address: shown.address,
    service: shown.service,
    started: figures[Figure.STARTED],
    lastOnline: figures[Figure.LAST_ONLINE],
    load: figures[Figure.LOAD],
    memUsage: figures[Figure.MEM_USAGE],
    received,
    receivedToday: figures[Figure.RECEIVED_TODAY],
    processing: queued,
    sent,
    sentToday: figures[Figure.SENT_TODAY],
    sysinfo: shown.sysinfoOs === osIdx ? shown.sysinfo : sysinfoOf(program, identity, i, osIdx)
  }
  if (withModules) {
    readModuleFigures(program, figures, ownModules)
    record.modules = moduleViews(program, ownModules)
  }
  return record
}

/** The modules of the view being made (agentView). */
const ownModules = new Float64Array(MODULES_LENGTH)

/**
 * The modules of the last read (readFigures with modules) as the API shows them, into `out` at
 * Modules' offsets; `figures`: that read's. Inputs count what they receive; an output reports
 * the agent's whole flow. What both a view's modules and an item written from figures show.
 */
export function readModuleFigures(program: FleetProgram, figures: Float64Array, out: Float64Array): void {
  const set = lastRead.moduleSetIdx
  const count = lastRead.moduleCount
  out[Modules.SET] = set
  out[Modules.COUNT] = count
  const specs = program.moduleSets[set]?.modules
  for (let k = 0; k < count; k++) {
    const isOutput = specs?.[k]?.type === 'OUTPUT'
    const at = Modules.FIRST + k * MODULE_FIGURES
    out[at + ModuleFigure.STATUS] = lastRead.moduleStatuses[k]
    out[at + ModuleFigure.EVT_RECVD] = isOutput ? figures[Figure.RECEIVED] : scratch.moduleReceived[k]
    out[at + ModuleFigure.QUEUESIZE] = isOutput ? figures[Figure.PROCESSING] : 0
    out[at + ModuleFigure.EVT_FWD] = isOutput ? figures[Figure.SENT] : scratch.moduleReceived[k]
    out[at + ModuleFigure.EVT_DROP] = isOutput ? scratch.dropped : 0
  }
}

function moduleViews(program: FleetProgram, modules: Float64Array): ModuleView[] {
  const views: ModuleView[] = []
  for (let k = 0; k < modules[Modules.COUNT]; k++) {
    const at = Modules.FIRST + k * MODULE_FIGURES
    const status = modules[at + ModuleFigure.STATUS]
    const head = moduleHeadOf(program, modules[Modules.SET], k)
    // Field by field, not spread: with a spread, an item of a long list with modules cost three times as much CPU (npm run bench:items -- --modules).
    views.push({
      moduleName: head.moduleName,
      module: head.module,
      moduleType: head.moduleType,
      type: head.type,
      isRunning: status === ModuleStatus.RUNNING,
      evtRecvd: modules[at + ModuleFigure.EVT_RECVD],
      queuesize: modules[at + ModuleFigure.QUEUESIZE],
      evtFwd: modules[at + ModuleFigure.EVT_FWD],
      evtDrop: modules[at + ModuleFigure.EVT_DROP],
      status: MODULE_STATUSES[status],
      statusCode: status,
      id: k + 1
    })
  }
  return views
}

/** Heads of the modules a scenario names, made once per module (a new scenario's are new objects). */
const specHeads = new WeakMap<ModuleSpec, ModuleHead>()
/** Heads of modules past their set's specs, by position. */
const unnamedHeads: ModuleHead[] = []

/** Module `k` of module set `set`'s head, as a view shows it (Fleet.moduleHead). */
export function moduleHeadOf(program: FleetProgram, set: number, k: number): ModuleHead {
  const spec = program.moduleSets[set]?.modules[k]
  if (spec === undefined) return (unnamedHeads[k] ??= { moduleName: `module${k}`, module: 'unknown', moduleType: 0, type: 'INPUT' })
  let head = specHeads.get(spec)
  if (head === undefined) specHeads.set(spec, (head = { moduleName: spec.name, module: spec.kind, moduleType: spec.moduleType, type: spec.type === 'OUTPUT' ? 'OUTPUT' : 'INPUT' }))
  return head
}
