/**
 * The contract between the bench driver (run.ts, the suites) and the server it loads
 * (target-child.ts, a separate process so the load generator and the server do not share an
 * event loop). The two meet only here: what to start, the commands the driver may send over
 * IPC, and what comes back.
 */

/** Credentials of every fleetsim target (REST_USER / REST_PASSWORD). */
export const BENCH_CREDENTIALS = Object.freeze({ user: 'bench', password: 'bench-secret' })

/** A fixed answer for a bare baseline server: the bytes fleetsim gave for the same request. */
export interface BareRoute {
  method: 'GET' | 'POST' | 'DELETE'
  /** path without the query string; the query is ignored */
  path: string
  status: number
  contentType: string
  /** file holding the exact body bytes */
  bodyFile: string
}

/**
 * Many fixed answers under one path: what fleetsim answered for each request of a workload
 * (2,000 agents asked for in turn, in JSON and XML, over HTTP and HTTPS: the links in an
 * answer name the scheme), so a baseline sends the same bytes for the same requests. The file
 * is JSON: `{ "<scheme> <accept> <path and query>": { "contentType": "…", "body": "…" } }`.
 */
export interface BareAnswers {
  method: 'GET'
  path: string
  answersFile: string
}

/** The key of one answer in a BareAnswers file. */
export const answerKey = (scheme: 'http' | 'https', accept: string, url: string): string => `${scheme} ${accept} ${url}`

/** What a bare baseline answers: fixed routes, and workloads' recorded answers. */
export interface BareSpec {
  routes: BareRoute[]
  answers?: BareAnswers[]
  /**
   * bare node:http only: µs of busy work before each answer (busyFor), so that a server whose
   * answers cost that much more CPU can be set beside fleetsim (bench:built-load --busy)
   */
  busyMicroseconds?: number
}

/**
 * Keeps the thread busy for `microseconds` of wall time, as an answer that costs that much CPU to
 * make would: a loop on the clock, with nothing for the JIT to take away.
 */
export function busyFor(microseconds: number): void {
  const until = performance.now() + microseconds / 1000
  while (performance.now() < until);
}

export interface TlsFiles {
  keyFile: string
  certFile: string
}

/**
 * How the target's V8 collects garbage: `single` (--single-threaded-gc, the bench's default)
 * or `parallel` (node's default). See startTarget (target.ts) for why.
 */
export type GcMode = 'single' | 'parallel'

export type TargetSpec = (
  | {
      kind: 'fleetsim'
      agents: number
      seed: number
      /** scenario file compiled into the fleet program (its fleet size is replaced by `agents`) */
      scenario?: string
      speed: number
      paused: boolean
      workers?: number
      caFingerprint: string
      /** also listen with HTTPS on a second port */
      tls?: TlsFiles
      /** `fleetsim serve` flags after the bench's own (e.g. `--journal-size 0`) */
      serveFlags?: string[]
      /** write the log to /dev/null, not stdout (runs that log every request at info) */
      discardLogs?: boolean
      /** leave V8's allocation-site pretenuring on, as node has it (`fleetsim serve` turns it off: src/lib/serving-heap.ts) */
      pretenuring?: boolean
      /**
       * Answers sent as recorded, as a bare baseline sends them, before the app sees the request:
       * the fleetsim process (its fleet stepping, its app holding what it holds) answering
       * without building (`npm run bench:built-load`). Every other request goes to the app.
       */
      recorded?: BareAnswers[]
    }
  | ({ kind: 'fastify' | 'node'; tls?: TlsFiles } & BareSpec)
) & { gc?: GcMode }

/** Sent once the server listens. RSS figures are bytes; times are wall milliseconds. */
export interface Ready {
  type: 'ready'
  port: number
  /** the HTTPS port, when the spec has TLS files */
  tlsPort: number | null
  rssBeforeBuild: number
  rssAfterBuild: number
  /** createFleet's wall time (0 for bare servers) */
  buildMs: number
}

export type Command =
  | { op: 'uuids'; state?: string; offset?: number; count: number }
  | { op: 'names'; state?: string; count: number }
  | { op: 'clock'; speed?: number; paused?: boolean }
  /** steps the paused fleet by `seconds` in chunks of `chunk` (1: one round per virtual second) */
  | { op: 'advance'; seconds: number; chunk: number }
  | { op: 'sample-start'; everyMs: number }
  | { op: 'sample-stop' }
  /** process CPU (all threads) over a window of wall seconds, with the clock running at `speed` */
  | { op: 'cpu'; seconds: number; speed: number }
  | { op: 'stats' }
  /** marks the process CPU counters; `cpu-stop` answers the CPU used since (all threads) */
  | { op: 'cpu-start' }
  | { op: 'cpu-stop' }

export interface RssSample {
  samples: number
  /** RSS when sampling started */
  first: number
  min: number
  max: number
  mean: number
}

export interface FleetStatsReply {
  agents: number
  byState: Record<string, number>
  second: number
  stepRounds: number
  lagSeconds: number
}

export interface CommandResults {
  uuids: string[]
  names: string[]
  clock: { speed: number; paused: boolean }
  advance: { wallMs: number; rounds: number }
  'sample-start': null
  'sample-stop': RssSample
  cpu: { cores: number; userMs: number; systemMs: number; wallMs: number; virtualSeconds: number }
  stats: FleetStatsReply
  'cpu-start': null
  /** gcMs: the GC pauses among cpuMs (PerformanceObserver 'gc' entries) */
  /**
   * A fleetsim target's answers meanwhile: keptAnswers sent from its kept answers
   * (AnswerCache.hits), joinedAnswers given a list another request was making (AnswerCache.joins)
   */
  /** mainThreadMs: the server's main thread busy (its event loop not waiting), where the target reports it */
  'cpu-stop': { cpuMs: number; wallMs: number; gcMs: number; mainThreadMs?: number; keptAnswers?: number; joinedAnswers?: number }
}

export interface Request {
  id: number
  command: Command
}

export type Reply = { type: 'reply'; id: number; value: unknown } | { type: 'reply'; id: number; error: string }

export type ChildMessage = Ready | Reply | { type: 'failed'; error: string }
