/**
 * What every suite gets: the sizes of this profile, TLS material, the place to put rows, a
 * progress printer and a scratch directory. Profiles are one frozen table, so `--quick` and
 * the CI smoke run differ from a full run only in numbers.
 */
import { BENCH_CREDENTIALS, type GcMode, type TargetSpec, type TlsFiles } from './protocol.js'
import type { Target } from './target.js'
import type { ListRow, LoadRow, MemoryRow, ScaleRow } from './results.js'

export type ProfileName = 'full' | 'quick' | 'smoke'

export interface Profile {
  /** seconds per autocannon run on small answers */
  duration: number
  /** seconds of unmeasured load before each run on small answers */
  warmup: number
  connections: number
  /** alternating rounds of bare fastify and fleetsim for the JSON-over-HTTP target */
  jsonRounds: number
  /** rounds of each workload compared across servers (built): the median one is reported */
  comparisonRounds: number
  /**
   * …and of the list scope's workloads: more, as bare fastify's rate on lists has two modes on a
   * 2-core machine, round by round (bench/README.md, "Where the three workloads stand")
   */
  listRounds: number
  /** agents in the fleet behind agentinfo for one agent */
  agentinfoFleet: number
  /** fleet sizes of agentinfo by state */
  listFleets: number[]
  /**
   * a run of large answers lasts listSeconds, and goes on until this many answers came if fewer
   * did (a list of 100k agents takes about half a second to make), up to listDuration seconds
   */
  listRequests: number
  /**
   * seconds a run of large answers lasts at least. Runs bounded by answers alone were a fifth to
   * half a second long for bare fastify's 10k lists: its rate moved by more than a factor of two
   * between rounds of one run (bench/README.md, "Clients of large answers in a process of their own").
   */
  listSeconds: number
  /** seconds a run of large answers lasts at most */
  listDuration: number
  /** seconds of each run on the fleet listed at speed 1 (a list kept between its seconds) */
  polledListSeconds: number
  listConnections: number
  firstByteSamples: number
  /** clients listing the largest fleet at once, and for how long (seconds) */
  memoryClients: number
  memoryDuration: number
  /** agentUuids per request of the multi-agent operations */
  multiBatches: number[]
  multiFleet: number
  multiDuration: number
  /** most requests one multi-agent run sends */
  multiMaxRequests: number
  scaleFleets: number[]
  /** CPU window at speed 1 for the largest fleet, and for the others */
  cpuWindowLargest: number
  cpuWindow: number
  /** agentinfo load while the fleet steps flat out (seconds) */
  steppingDuration: number
  /** include the slower variants (XML with modules, plain node over HTTPS) */
  allVariants: boolean
  /** fresh bare fastify processes per GC mode, and seconds of load on each */
  gcProcesses: number
  gcDuration: number
  /** fresh fleetsim processes with V8's allocation-site pretenuring on and off each, and seconds of the built load on each */
  pretenuringProcesses: number
  pretenuringDuration: number
}

export const PROFILES: Readonly<Record<ProfileName, Readonly<Profile>>> = Object.freeze({
  full: Object.freeze({
    duration: 10,
    warmup: 2,
    connections: 10,
    jsonRounds: 5,
    comparisonRounds: 3,
    listRounds: 5,
    agentinfoFleet: 10_000,
    listFleets: [10_000, 100_000],
    listRequests: 30,
    listSeconds: 5,
    listDuration: 30,
    polledListSeconds: 10,
    listConnections: 2,
    firstByteSamples: 5,
    memoryClients: 8,
    memoryDuration: 60,
    multiBatches: [100, 1000, 10_000],
    multiFleet: 100_000,
    multiDuration: 5,
    multiMaxRequests: 500,
    scaleFleets: [10_000, 100_000, 1_000_000],
    cpuWindowLargest: 10,
    cpuWindow: 5,
    steppingDuration: 5,
    allVariants: true,
    gcProcesses: 5,
    gcDuration: 3,
    pretenuringProcesses: 8,
    pretenuringDuration: 4
  }),
  quick: Object.freeze({
    duration: 2,
    warmup: 1,
    connections: 10,
    jsonRounds: 2,
    comparisonRounds: 3,
    listRounds: 5,
    agentinfoFleet: 10_000,
    listFleets: [10_000, 100_000],
    listRequests: 12,
    listSeconds: 2,
    listDuration: 15,
    polledListSeconds: 4,
    listConnections: 2,
    firstByteSamples: 3,
    memoryClients: 8,
    memoryDuration: 15,
    multiBatches: [100, 10_000],
    multiFleet: 40_000,
    multiDuration: 1,
    multiMaxRequests: 200,
    scaleFleets: [10_000, 100_000],
    cpuWindowLargest: 3,
    cpuWindow: 2,
    steppingDuration: 2,
    allVariants: false,
    gcProcesses: 1,
    gcDuration: 1,
    pretenuringProcesses: 6,
    pretenuringDuration: 3
  }),
  smoke: Object.freeze({
    duration: 0.5,
    warmup: 0,
    connections: 2,
    // Two, so the smoke run also starts a fresh pair of processes for the second round.
    jsonRounds: 2,
    comparisonRounds: 1,
    listRounds: 1,
    agentinfoFleet: 300,
    listFleets: [1500],
    listRequests: 2,
    listSeconds: 0,
    listDuration: 5,
    polledListSeconds: 1,
    listConnections: 1,
    firstByteSamples: 1,
    memoryClients: 2,
    memoryDuration: 1,
    multiBatches: [10],
    multiFleet: 300,
    multiDuration: 0.5,
    multiMaxRequests: 20,
    scaleFleets: [2000],
    cpuWindowLargest: 0.5,
    cpuWindow: 0.5,
    steppingDuration: 0.5,
    allVariants: false,
    gcProcesses: 1,
    gcDuration: 0.5,
    pretenuringProcesses: 1,
    pretenuringDuration: 0.5
  })
})

/** Virtual seconds per wall second of the "lively" runs: ten virtual minutes a second. */
export const LIVELY_SPEED = 600
/** Speed of multi-agent runs "at speed": a 10-second reconnect wait takes 10 ms. */
export const RUNNING_SPEED = 1000
/** The list suite's rows of a fleet at speed 1 are named with this after the variant. */
export const AT_SPEED_1 = ', clock at speed 1'

export const LIVELY_SCENARIO = 'scenarios/flapping-network.yaml'

export interface SuiteContext {
  profileName: ProfileName
  profile: Readonly<Profile>
  tls: TlsFiles
  caFingerprint: string
  /** a directory for captured answers; removed after the run */
  scratch: string
  /** the GC mode of every target (--parallel-gc: parallel) */
  gc: GcMode
  /** starts a target with the run's settings */
  start(spec: TargetSpec): Promise<Target>
  progress(line: string): void
  rows: LoadRow[]
  lists: ListRow[]
  memory: MemoryRow[]
  scale: ScaleRow[]
  notes: string[]
}

/**
 * The fleet the agentinfo workloads (polled, built, and the gc scope's fleetsim rows) are
 * measured on: the profile's agentinfo fleet, its clock running at LIVELY_SPEED under
 * LIVELY_SCENARIO, plain HTTP unless `extra` says otherwise.
 */
export function agentinfoFleet(ctx: SuiteContext, extra: Partial<Extract<TargetSpec, { kind: 'fleetsim' }>> = {}): Extract<TargetSpec, { kind: 'fleetsim' }> {
  return { kind: 'fleetsim', agents: ctx.profile.agentinfoFleet, seed: 7, scenario: LIVELY_SCENARIO, speed: LIVELY_SPEED, paused: false, caFingerprint: ctx.caFingerprint, ...extra }
}

export const AUTH_HEADERS = Object.freeze({ REST_USER: BENCH_CREDENTIALS.user, REST_PASSWORD: BENCH_CREDENTIALS.password })
export const REST = '/manager/mvc/restservice'
