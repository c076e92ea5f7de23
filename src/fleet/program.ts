/**
 * The fleet program: everything the step function needs to know besides the agents
 * themselves. It is plain data (structured-cloneable), built once on the main thread from
 * the defaults or from a scenario (src/scenario/compile.ts) and handed to every worker with
 * the buffers. Text lives here as tables; agents hold small indices into them.
 */
import { cumulativeWeights } from './random.js'

export interface ModuleSpec {
  /** configured instance name, e.g. `in_syslog` */
  name: string
  /** module kind, e.g. `im_tcp` */
  kind: string
  type: 'INPUT' | 'OUTPUT'
  /** numeric module type reported as `module-type` */
  moduleType: number
  /** events per second an input receives while running: a per-agent integer in [min, max] */
  rateMin: number
  rateMax: number
}

export interface ModuleSet {
  name: string
  modules: ModuleSpec[]
}

export interface Weighted {
  names: string[]
  /** cumulative weights, as pickWeighted wants them */
  cumulative: number[]
}

export interface ChurnSettings {
  /** network disconnects per agent per hour (0: none) */
  disconnectPerHour: number
  /** outage length: minimum plus an exponential part with this mean, in seconds */
  outageMinSeconds: number
  outageMeanSeconds: number
  /** module crashes per agent per hour */
  moduleCrashPerHour: number
  /** a crashed module is back RUNNING after a uniform delay in [min, max] seconds */
  restartMinSeconds: number
  restartMaxSeconds: number
}

export interface ReconnectSettings {
  /** chance that an agent does not reconnect after an update (on top of picked agents) */
  failProbability: number
  /** successful reconnects take a uniform delay in [min, max] seconds (under the 10 s wait) */
  delayMinSeconds: number
  delayMaxSeconds: number
}

/** Action codes shared by stages, timeline events and the API. */
export const Action = {
  OFFLINE: 1,
  ERROR: 2,
  UNTRUSTED: 3,
  FORGED: 4,
  ONLINE: 5,
  CRASH_MODULE: 6,
  RESTART_MODULES: 7,
  UPGRADE: 8,
  JOIN: 9,
  LEAVE: 10,
  MANAGER_RESTART: 11
} as const
export type ActionCode = (typeof Action)[keyof typeof Action]

export interface CompiledAction {
  kind: ActionCode
  /** module slot for CRASH_MODULE (-1: a random running one), version index for UPGRADE */
  arg: number
  /** seconds the effect lasts before it reverts (0: until something else changes it) */
  forSeconds: number
}

/** The part of a selector a worker can check from shared memory. Masks of 0 match anything. */
export interface CompiledSelector {
  /** bit per AgentState code */
  states: number
  /** bit per Mode code */
  modes: number
  /** bit per OS index */
  os: number
  /** bit per version index */
  versions: number
  /** required template id; -2 matches any */
  template: number
  /** every bit here must be set in the agent's labelMask */
  labels: number
}

export interface CompiledStage {
  name: string
  selector: CompiledSelector
  /** the stage applies only to agents whose stageMask has this stage's bit (picks, name globs) */
  usesPickMask: boolean
  /** delay-based: fires `after` ± `jitter` seconds after the agent starts matching */
  afterSeconds: number
  jitterSeconds: number
  /** rate-based (when > 0): fires after an exponential wait with this mean, in seconds */
  meanWaitSeconds: number
  actions: CompiledAction[]
  cumulative: number[]
}

export interface FleetProgram {
  seed: number
  /** virtual epoch: virtual second 0 is this wall-clock instant, in epoch ms */
  epochMs: number
  os: Weighted
  /** 'windows' or 'linux' per OS entry, for sysinfo text */
  osFamily: Array<'linux' | 'windows'>
  versions: Weighted
  /** cumulative weights over Mode codes (Connect, Listen, Unmanaged) */
  modes: number[]
  moduleSets: ModuleSet[]
  moduleSetCumulative: number[]
  /** cumulative weights over initial conditions: healthy, offline, untrusted, forged, error */
  initialConditions: number[]
  /** agents join over this many seconds after the epoch (0: all present at start) */
  rampSeconds: number
  churn: ChurnSettings
  reconnect: ReconnectSettings
  stages: CompiledStage[]
  /** actions of timeline events, by index; an agent's timelineIdx points here */
  timelineActions: CompiledAction[]
}

export const INITIAL_CONDITIONS = ['healthy', 'offline', 'untrusted', 'forged', 'error'] as const

/** Queued events an agent holds while its output cannot deliver; beyond it they are dropped. */
export const QUEUE_CAPACITY = 100_000

function weighted(entries: Array<[string, number]>): Weighted {
  return { names: entries.map((e) => e[0]), cumulative: cumulativeWeights(entries.map((e) => e[1])) }
}

const LINUX_INPUTS: ModuleSpec[] = [
  { name: 'in_syslog', kind: 'im_udp', type: 'INPUT', moduleType: 1, rateMin: 5, rateMax: 60 },
  { name: 'in_files', kind: 'im_file', type: 'INPUT', moduleType: 2, rateMin: 1, rateMax: 20 },
  { name: 'in_journal', kind: 'im_systemd', type: 'INPUT', moduleType: 3, rateMin: 2, rateMax: 30 }
]
const WINDOWS_INPUTS: ModuleSpec[] = [
  { name: 'in_eventlog', kind: 'im_msvistalog', type: 'INPUT', moduleType: 4, rateMin: 5, rateMax: 80 },
  { name: 'in_etw', kind: 'im_etw', type: 'INPUT', moduleType: 5, rateMin: 1, rateMax: 25 }
]
const OUT_TCP: ModuleSpec = { name: 'out_siem', kind: 'om_tcp', type: 'OUTPUT', moduleType: 10, rateMin: 0, rateMax: 0 }
const OUT_HTTP: ModuleSpec = { name: 'out_http', kind: 'om_http', type: 'OUTPUT', moduleType: 11, rateMin: 0, rateMax: 0 }

export const DEFAULT_MODULE_SETS: ModuleSet[] = [
  { name: 'linux-syslog', modules: [LINUX_INPUTS[0], OUT_TCP] },
  { name: 'linux-full', modules: [LINUX_INPUTS[0], LINUX_INPUTS[1], LINUX_INPUTS[2], OUT_TCP] },
  { name: 'windows-eventlog', modules: [WINDOWS_INPUTS[0], OUT_TCP] },
  { name: 'windows-full', modules: [WINDOWS_INPUTS[0], WINDOWS_INPUTS[1], OUT_HTTP] }
]

/** The fleet a user gets with no scenario: mostly healthy, with occasional realistic churn. */
export function defaultProgram(seed: number, epochMs: number): FleetProgram {
  const os = weighted([
    ['Ubuntu 22.04', 24],
    ['Ubuntu 24.04', 14],
    ['Red Hat Enterprise Linux 9', 14],
    ['Red Hat Enterprise Linux 8', 8],
    ['Debian 12', 10],
    ['SUSE Linux Enterprise Server 15', 4],
    ['Windows Server 2022', 14],
    ['Windows Server 2019', 9],
    ['Windows 11', 3]
  ])
  return {
    seed,
    epochMs,
    os,
    osFamily: os.names.map((name) => (name.startsWith('Windows') ? 'windows' : 'linux')),
    versions: weighted([
      ['6.4.9991', 46],
      ['6.3.9425', 28],
      ['6.2.9328', 12],
      ['5.11.9135', 9],
      ['6.5.10115', 5]
    ]),
    modes: cumulativeWeights([90, 9, 1]),
    moduleSets: DEFAULT_MODULE_SETS,
    moduleSetCumulative: cumulativeWeights([40, 20, 30, 10]),
    initialConditions: cumulativeWeights([96.5, 2, 0.8, 0.2, 0.5]),
    rampSeconds: 0,
    churn: {
      disconnectPerHour: 0.02,
      outageMinSeconds: 20,
      outageMeanSeconds: 240,
      moduleCrashPerHour: 0.01,
      restartMinSeconds: 5,
      restartMaxSeconds: 90
    },
    reconnect: { failProbability: 0.001, delayMinSeconds: 1, delayMaxSeconds: 6 },
    stages: [],
    timelineActions: []
  }
}

/** Module sets fit the OS family: Windows agents get Windows inputs. */
export function moduleSetsFor(program: FleetProgram, family: 'linux' | 'windows'): number[] {
  const wanted = family === 'windows' ? 'windows' : 'linux'
  return program.moduleSets.map((set, index) => (set.name.startsWith(wanted) ? index : -1)).filter((i) => i >= 0)
}
