/**
 * The seam between the manager facade (HTTP routes, templates, labels, certificates) and the
 * simulated fleet. The facade only ever talks to the fleet through this interface; the
 * implementation (src/fleet/fleet.ts) keeps the dynamic state in shared memory, derives the
 * static identity from (seed, index) and steps the agents in a Piscina pool.
 *
 * Agents are addressed by their *index*, a small integer that never changes for the life of
 * the agent (renames keep it). Names and UUIDs are looked up to an index first.
 *
 * Times are virtual epoch milliseconds (see src/fleet/clock.ts).
 */
import type { AgentStateName, LogLevelName, ModeName, ModuleStatusName } from '../protocol/states.js'
import { MAX_MODULES } from './layout.js'

/** Configuration of one agent: the `global-config` object of the spec plus the assignments. */
export interface AgentConfig {
  address: string
  port: number
  caFingerprint: string
  /** any form normaliseFingerprint accepts; the API hands it on as the client sent it */
  certFingerprint: string
  isLogToFile: boolean
  logLevel: LogLevelName
  mode: ModeName
  verbatim: string
}

/** One module of an agent, as the agentinfo module record needs it. */
export interface ModuleView {
  /** configured instance name, e.g. `in_syslog` */
  moduleName: string
  /** module kind, e.g. `im_tcp` */
  module: string
  moduleType: number
  type: 'INPUT' | 'OUTPUT'
  isRunning: boolean
  evtRecvd: number
  queuesize: number
  evtFwd: number
  evtDrop: number
  status: ModuleStatusName
  /** numeric code of `status` */
  statusCode: number
  id: number
}

/** A consistent snapshot of one agent, read at one virtual time. */
export interface AgentView {
  index: number
  uuid: string
  name: string
  version: string
  status: AgentStateName
  os: string
  /** the agent's own address (IPv4 or IPv6 text) */
  address: string
  /** the agent's service endpoint, `address:port` from its configuration (`[address]:port` for IPv6) */
  service: string
  /** virtual epoch ms when the agent (re)started */
  started: number
  /** virtual epoch ms when the manager last saw it online */
  lastOnline: number
  /** system load average, e.g. 0.42 */
  load: number
  /** resident memory of the agent process in bytes */
  memUsage: number
  received: number
  receivedToday: number
  processing: number
  sent: number
  sentToday: number
  sysinfo: string
  /** present only when asked for with modules */
  modules?: ModuleView[]
}

/**
 * Where each figure of an agent stands in what Fleet.figures writes: what view(index, false)
 * shows of it but the text of its identity, as numbers. A list's items are written from them
 * (src/http/item-bytes.ts) without a record made per agent.
 */
export const Figure = {
  /** the state, an AgentState code (stateName gives its name) */
  STATE: 0,
  /**
   * the identity's key: while it stays the same for an agent, so does the text of its identity
   * (name, UUID, version, OS, address, service, sysinfo), and a text kept for the agent holds
   */
  IDENTITY: 1,
  /** `started` and `lastOnline`, virtual epoch ms */
  STARTED: 2,
  LAST_ONLINE: 3,
  LOAD: 4,
  MEM_USAGE: 5,
  RECEIVED: 6,
  RECEIVED_TODAY: 7,
  PROCESSING: 8,
  SENT: 9,
  SENT_TODAY: 10,
  /** the indices of the agent's OS and version, in GeneratedIdentity's osName and versionName */
  OS: 11,
  VERSION: 12
} as const

/** The length of the array Fleet.figures writes into. */
export const FIGURES = 13

/** What a module's head shows: the same for every agent of its module set (Fleet.moduleHead). */
export type ModuleHead = Pick<ModuleView, 'moduleName' | 'module' | 'moduleType' | 'type'>

/**
 * Where an agent's modules stand in what Fleet.figures writes when given `modules`: their module
 * set and count, then MODULE_FIGURES numbers for each module from `FIRST` on, at ModuleFigure's
 * offsets: what view(index, true) shows of each but its head (Fleet.moduleHead) and what follows
 * from its status code (`isRunning`, the status's name) and its position (`id`, one more).
 */
export const Modules = { SET: 0, COUNT: 1, FIRST: 2 } as const
export const ModuleFigure = { STATUS: 0, EVT_RECVD: 1, QUEUESIZE: 2, EVT_FWD: 3, EVT_DROP: 4 } as const
export const MODULE_FIGURES = 5
/** The length of the array Fleet.figures writes an agent's modules into. */
export const MODULES_LENGTH = Modules.FIRST + MAX_MODULES * MODULE_FIGURES

/**
 * The most bytes any of GeneratedIdentity's writes writes: a name (role, site and a number of up
 * to 16 digits), a UUID (36), an address or service (IPv6: 28 at most), a sysinfo after its OS
 * (under 60).
 */
export const MAX_GENERATED_BYTES = 96

/**
 * The identity generated for an agent's index, as ASCII bytes written at `at` in `into` (room for
 * MAX_GENERATED_BYTES needed); each write returns where its text ends. What an agent shows
 * while the API has given it no name, UUID or configuration of its own (Fleet.generatedIdentity):
 * a list of more agents than are kept writes their items from it with no string made
 * (src/http/item-bytes.ts).
 */
export interface GeneratedIdentity {
  writeName(index: number, into: Uint8Array, at: number): number
  writeUuid(index: number, into: Uint8Array, at: number): number
  writeAddress(index: number, into: Uint8Array, at: number): number
  /** `the service`: the address and the port of a generated agent's configuration */
  writeService(index: number, into: Uint8Array, at: number): number
  /** the sysinfo after the name of the OS it starts with (osName(os)), which is the caller's to write */
  writeSysinfoAfterOs(index: number, os: number, into: Uint8Array, at: number): number
  /** the texts Figure.OS and Figure.VERSION index */
  osName(os: number): string
  versionName(version: number): string
}

/** The outcome of an operation that acts on several agents: per-agent successes and failures. */
export interface BatchOutcome {
  /** indices that succeeded, in request order */
  ok: number[]
  /** indices that failed, with the reason (the facade prefixes the agent name) */
  failed: Array<{ index: number; reason: string }>
}

export interface NewAgent {
  name: string
  /** omitted: the slot's generated UUID (deterministic, so the same calls give the same fleet) */
  uuid?: string
  config: AgentConfig
}

export interface FleetCounts {
  agents: number
  byState: Record<AgentStateName, number>
}

/**
 * Agent indices one at a time: next() gives the next, or -1 once there are no more. What a list
 * walks: an iterator makes a result object per index, and a generator resumes its frame, which a
 * list of 10,000 agents paid for on every item (bench/README.md, "Figures written into room made
 * once").
 */
export interface IndexCursor {
  next(): number
}

export interface Fleet {
  /** current virtual time in epoch ms */
  now(): number
  /**
   * The run the agents belong to: a reset rebuilds the fleet as a new run, whose agents take the
   * indices from 0 again, so an index kept from an earlier run names another agent (or none).
   */
  readonly run: number
  /**
   * Calls `listener` whenever a new run begins (a reset, a scenario loaded or removed), from then
   * on: the indices of the run before name other agents (or none) now, so what is kept by index
   * for those agents must go. Called synchronously inside the fleet's turn, before the new run's
   * agents are built: it must not wait for the fleet. Not called for the run the fleet is
   * created or resumed with.
   */
  onNewRun(listener: () => void): void
  /** agent slots of the run: every index an agent of it can have, added agents' too, is below it */
  readonly capacity: number
  /** number of agents that exist (deleted agents excluded) */
  size(): number
  /** whether an agent of the run has this index (false for a deleted agent, rejoining or not) */
  exists(index: number): boolean
  counts(): FleetCounts
  /** agents connected to the manager (every state but OFFLINE and UNMANAGED) */
  connectedCount(): number

  findByName(name: string): number | undefined
  /** a deleted agent that rejoins under this name (deleted without revoking its certificate) */
  findRejoining(name: string): number | undefined
  findByUuid(uuid: string): number | undefined
  /** the agent whose certificate has this fingerprint (any form normaliseFingerprint accepts) */
  findByCertFingerprint(fingerprint: string): number | undefined
  /** all existing agent indices in index order, optionally only those in the given states */
  indices(states?: ReadonlySet<AgentStateName>): Iterable<number>
  /** indices(states) one at a time, as a long list walks them (IndexCursor) */
  cursor(states?: ReadonlySet<AgentStateName>): IndexCursor

  /**
   * a torn-free snapshot of one agent at the current virtual time. `keepIdentity` false: the
   * text of its identity is not kept for the next read (shown-identities.ts), as for a list of
   * more agents than are kept, which would only push out the ones read again.
   */
  view(index: number, withModules: boolean, keepIdentity?: boolean, figures?: Float64Array): AgentView
  /**
   * What view(index, false) shows of an agent but the text of its identity, into `out` at
   * Figure's offsets (FIGURES long), from one torn-free read as view's. view() writes them too,
   * from the same read as its record, when given `figures`: so a text kept by the identity's key
   * is the one its record shows.
   */
  figures(index: number, out: Float64Array): void
  /**
   * While a reset (a scenario loaded or stopped, POST /__admin/reset) rebuilds the fleet, a
   * promise that resolves (never rejects) when it ends; else undefined. Meanwhile the fleet has
   * none, then some of its new agents: a read that waits for it sees the old fleet or the new one.
   */
  resetting(): Promise<void> | undefined
  /**
   * figures(), and the agent's modules from the same read into `modules` (MODULES_LENGTH long)
   * at Modules' offsets: what view(index, true) shows of them but their heads (moduleHead).
   */
  figures(index: number, out: Float64Array, modules: Float64Array): void
  /** The head of module `k` of module set `set`, as view() shows it: the same object for the same module while the scenario holds. */
  moduleHead(set: number, k: number): ModuleHead
  /**
   * The writers of the identity generated for agent `index` if it shows that identity (the API
   * gave it no name, UUID or configuration of its own: view(index) shows the same texts); else
   * undefined.
   */
  generatedIdentity(index: number): GeneratedIdentity | undefined
  /**
   * Stamps of what view() shows, for keeping finished answers: while revision() and
   * agentRevision(index) both stay the same, view(index) returns the same record (and names
   * find the same agents). revision() moves on with every change made on the main thread and
   * at the end of every step round, and is odd while a change is under way; agentRevision()
   * moves on with every write a step worker makes to the agent (odd during one) and with
   * every change made to it on the main thread.
   */
  revision(): number
  agentRevision(index: number): number
  /**
   * What an agent's item can be kept by (the item writer, src/http/item-writer.ts): while
   * agentRevision(index), polledAt(index) and identityRevision() all stay the same, view(index)
   * returns the same record whatever else moves. polledAt is the second of the manager's last
   * status poll of the agent (status-poll.ts); identityRevision moves on with every rename, new
   * UUID or configuration and with every new run.
   */
  polledAt(index: number): number
  identityRevision(): number
  /**
   * Every agent's revision summed: moves on with every write a step worker makes to any agent
   * (revisions only grow). undefined while one is being written. What a kept list of agents is
   * stamped with, since an agent may join the list as well as change in it.
   */
  fleetRevision(): number | undefined
  /**
   * Holds the step rounds of the clock while a list is made, so that it shows one state of the
   * fleet and may be kept (a round due waits 40 ms at most, step-driver.ts). The list is made
   * once `ready` resolves (the rounds in flight have ended); `release` once it is made or given up.
   */
  holdRounds(): RoundHold
  config(index: number): AgentConfig
  name(index: number): string
  uuid(index: number): string

  // Mutations. Each resolves once the change is visible to the next read; they are applied
  // between two steps of the fleet, so the result does not depend on thread timing.
  //
  // Those given indices act on the agents of one run: the run when the mutation is called, or
  // `run` (Fleet.run when the indices were looked up) for a caller that waited in between. A new
  // run that begins before the mutation's turn (a reset queued ahead of it) has other agents at
  // those indices: the mutation then leaves them alone, as if it had acted just before the reset,
  // which rebuilt its agents (a batch reports each agent failed, as gone).
  addAgent(agent: NewAgent): Promise<number>
  /** rename and/or reconfigure; mode Unmanaged makes the agent UNMANAGED */
  modifyAgent(index: number, name: string, config: AgentConfig): Promise<void>
  /** revokeCert false: the agent may reconnect later (it reappears after a delay) */
  deleteAgents(indices: number[], revokeCert: boolean): Promise<void>
  /** stops every module of each agent (agent goes ERROR: connected, modules not running) */
  stopAgents(indices: number[]): Promise<BatchOutcome>
  /** restarts every module; they are back RUNNING after a short virtual delay */
  startAgents(indices: number[]): Promise<BatchOutcome>
  /**
   * Sends configuration and makes each agent reload and reconnect; resolves after every agent
   * reconnected or the reconnect wait (10 virtual seconds) ran out. Agents that did not
   * reconnect are in `failed`.
   */
  reconnectAgents(indices: number[], operation?: 'assigntemplatetoagent' | 'updateandreloadagent', run?: number): Promise<BatchOutcome>
  /** marks the master template assigned to each agent (-1: none); used by scenario selectors */
  setTemplate(indices: number[], templateId: number, run?: number): Promise<void>
  /**
   * The agentmanager operation was called. After a manager restart this unlocks the
   * manager's private key, and locked-out agents reconnect (manager-facts.md).
   */
  managerLogin(): Promise<void>
}

/** Step rounds held while a list is made (Fleet.holdRounds). */
export interface RoundHold {
  /** resolves once the rounds in flight when the hold was taken have ended */
  readonly ready: Promise<void>
  /** lets rounds start again (once; later calls do nothing) */
  readonly release: () => void
}
