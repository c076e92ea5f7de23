/**
 * The fleet program: everything the step function needs to know besides the agents
 * themselves. It is plain data (structured-cloneable), built once on the main thread from
 * the defaults or from a scenario (src/scenario/compile.ts) and handed to every worker with
 * the buffers. Text lives here as tables; agents hold small indices into them.
 */
import { cumulativeWeights } from './random.js'
import type { Distribution } from '../scenario/types.js'

export type { Distribution }

/** Stages a program may hold: each has a bit in stageMask and a firing counter per agent. */
export const MAX_STAGES = 16

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
  /** how long a disconnected agent stays OFFLINE, seconds */
  outage: Distribution
  /** module crashes per agent per hour */
  moduleCrashPerHour: number
  /** how long until a crashed module runs again, seconds */
  restartDelay: Distribution
}

export interface ReconnectSettings {
  /** chance that an agent does not reconnect after an update, when no scenario rule says */
  failProbability: number
  /** time a successful reconnect takes, seconds (capped under the 10 s wait) */
  delay: Distribution
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
  /** version index for UPGRADE; unused otherwise */
  arg: number
  /**
   * CRASH_MODULE narrowed to a module name or kind: the slot to crash for each module set
   * (-1: the set has no such module, nothing crashes). null: a random running module.
   */
  moduleSlots: number[] | null
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
  /** template ids that match (-1: no template); null matches any */
  templates: number[] | null
  /** bit per scenario label; the agent matches when it carries any of them (0: any agent) */
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
  /** most firings per agent (0: unlimited; at most 255) */
  times: number
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
  /** agents with index >= rampInitial join over [rampStart, rampStart + rampSeconds) (0: no ramp) */
  rampSeconds: number
  rampStart: number
  rampInitial: number
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
    rampStart: 0,
    rampInitial: 0,
    churn: {
      disconnectPerHour: 0.02,
      outage: { kind: 'exponential', mean: 240, max: 7200 },
      moduleCrashPerHour: 0.01,
      restartDelay: { kind: 'uniform', min: 5, max: 90 }
    },
    reconnect: { failProbability: 0.001, delay: { kind: 'uniform', min: 1, max: 6 } },
    stages: [],
    timelineActions: []
  }
}

/**
 * A draw from a distribution, from two uniform draws in [0, 1). Negative values become 0 and
 * values above the distribution's cap become the cap.
 */
export function sample(d: Distribution, u1: number, u2: number): number {
  let value: number
  switch (d.kind) {
    case 'fixed':
      return d.value
    case 'uniform':
      return d.min + u1 * (d.max - d.min)
    case 'normal':
      // Box-Muller: two uniform draws make one standard normal draw.
      value = d.mean + d.sd * Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2)
      break
    case 'exponential':
      value = -Math.log(1 - u1) * d.mean
      break
  }
  if (d.max !== null && value > d.max) value = d.max
  return value < 0 ? 0 : value
}
