/**
 * The fleet's dynamic state in shared memory: one SharedArrayBuffer per field, one typed
 * array element per agent (struct of arrays). This module is the only contract between the
 * main thread (the engine's parts, the HTTP facade) and the workers (worker.ts, step.ts): both build the
 * same views over the same buffers from it.
 *
 * Ownership and consistency
 * - During a step, a worker owns the agents of its shard: it alone writes their fields.
 * - Between steps, the main thread owns every agent (API operations, timeline events) while
 *   no task is in flight; the engine guarantees this by running mutations and step rounds
 *   in one queue of turns (fleet.ts, src/lib/turn-queue.ts).
 * - Readers on the main thread may read while a step runs. Every write to an agent in a
 *   worker happens inside a sequence lock on `seq[i]`: the writer makes it odd, writes, makes
 *   it even again. A reader copies the fields it needs and retries if `seq[i]` was odd or
 *   changed meanwhile (see readConsistent), so it never sees a half-stepped agent. A change
 *   the main thread makes between rounds moves `seq[i]` on by two when it ends
 *   (FleetCore.written), so `seq[i]` is the agent's revision for whatever keeps its answers.
 *
 * Times are virtual seconds since the fleet's epoch (Int32: 68 years of simulated time).
 * NEVER is the "no timer" value.
 */

export const MAX_MODULES = 6
/** must equal program.ts MAX_STAGES (layout.ts imports nothing, so it is repeated here) */
export const STAGE_SLOTS = 16
export const NEVER = 0x7fffffff

/** Agent flags (bit set in `flags`). */
export const Flag = {
  /** the agent exists in the manager (cleared by deleteagent) */
  EXISTS: 1,
  /** deleted without revoking its certificate: it connects again at `revertAt` */
  REJOINS: 2,
  /** the next reconnect after an update fails (set by admin or the reconnect policy) */
  FAIL_NEXT_RECONNECT: 4,
  /** its configuration is corrupt: the manager cannot read it back (stays ERROR) */
  CONFIG_CORRUPT: 8,
  /** the agent has not joined yet (ramp) */
  NOT_JOINED: 16
} as const

/** Why an agent is not connected (`link` field); 0 means connected. */
export const Link = {
  CONNECTED: 0,
  /** network trouble: comes back at `revertAt` */
  DOWN: 1,
  /** reconnecting after a configuration update: back at `revertAt` unless it fails */
  RECONNECTING: 2,
  /** gone for good until something reconnects it (failed reconnect, `leave`, lockout) */
  STUCK: 3
} as const

/** Certificate condition (`cert` field). */
export const Cert = { OWN: 0, NONE: 1, MISMATCH: 2 } as const

type ArrayKind = 'i32' | 'u32' | 'u8' | 'u16' | 'f64'

interface FieldSpec {
  kind: ArrayKind
  /** elements per agent */
  width: number
}

/**
 * Every per-agent field. `seq` must stay first (digest skips it: it counts writes, not state).
 */
export const FIELDS = {
  seq: { kind: 'i32', width: 1 },
  flags: { kind: 'u8', width: 1 },
  /** AgentState code, derived from the conditions below by deriveState */
  state: { kind: 'u8', width: 1 },
  mode: { kind: 'u8', width: 1 },
  link: { kind: 'u8', width: 1 },
  cert: { kind: 'u8', width: 1 },
  osIdx: { kind: 'u8', width: 1 },
  versionIdx: { kind: 'u8', width: 1 },
  moduleSetIdx: { kind: 'u8', width: 1 },
  moduleCount: { kind: 'u8', width: 1 },
  /** ModuleStatus code per module slot */
  moduleStatus: { kind: 'u8', width: MAX_MODULES },
  /** master template id, -1 when none */
  templateId: { kind: 'i32', width: 1 },
  /** bit per scenario label (label membership for selectors) */
  labelMask: { kind: 'u32', width: 1 },
  /** bit per stage the agent was picked for (fraction/count/one picks) */
  stageMask: { kind: 'u32', width: 1 },
  /** stage whose action is pending (255 none) and when it fires */
  stageIdx: { kind: 'u8', width: 1 },
  stageAt: { kind: 'i32', width: 1 },
  /** times each stage fired on this agent (saturates at 255), for a stage's `times` limit */
  stageFired: { kind: 'u8', width: STAGE_SLOTS },
  /** timeline event whose action is pending on this agent (65535 none) and when it fires */
  timelineIdx: { kind: 'u16', width: 1 },
  timelineAt: { kind: 'i32', width: 1 },
  startedAt: { kind: 'i32', width: 1 },
  lastOnlineAt: { kind: 'i32', width: 1 },
  /** next background churn event */
  churnAt: { kind: 'i32', width: 1 },
  /** end of a temporary condition (outage, reconnect, `for` duration, rejoin, join) */
  revertAt: { kind: 'i32', width: 1 },
  /** state code to restore at revertAt for a `for` duration (255: recompute) */
  revertTo: { kind: 'u8', width: 1 },
  /** modules in STARTING become RUNNING at restartAt */
  restartAt: { kind: 'i32', width: 1 },
  /** minimum of every timer above and the next midnight: the step skips agents before it */
  nextEventAt: { kind: 'i32', width: 1 },
  /** per-agent draw counter: keys the random draws of successive events */
  eventNo: { kind: 'u32', width: 1 },
  /** counters are materialised up to countAt */
  countAt: { kind: 'i32', width: 1 },
  received: { kind: 'f64', width: 1 },
  sent: { kind: 'f64', width: 1 },
  dropped: { kind: 'f64', width: 1 },
  queued: { kind: 'f64', width: 1 },
  receivedAtMidnight: { kind: 'f64', width: 1 },
  sentAtMidnight: { kind: 'f64', width: 1 },
  /** events received per input module slot (output slots: unused) */
  moduleReceived: { kind: 'f64', width: MAX_MODULES }
} as const satisfies Record<string, FieldSpec>

export type FieldName = keyof typeof FIELDS

type ArrayOf<K extends ArrayKind> = K extends 'i32'
  ? Int32Array
  : K extends 'u32'
    ? Uint32Array
    : K extends 'u8'
      ? Uint8Array
      : K extends 'u16'
        ? Uint16Array
        : Float64Array

export type FleetViews = { [F in FieldName]: ArrayOf<(typeof FIELDS)[F]['kind']> }
export type FleetBuffers = Record<FieldName, SharedArrayBuffer>

const BYTES: Record<ArrayKind, number> = { i32: 4, u32: 4, u8: 1, u16: 2, f64: 8 }
type ViewConstructor = new (buffer: SharedArrayBuffer) => Int32Array | Uint32Array | Uint8Array | Uint16Array | Float64Array
const CTORS = { i32: Int32Array, u32: Uint32Array, u8: Uint8Array, u16: Uint16Array, f64: Float64Array } as unknown as Record<
  ArrayKind,
  ViewConstructor
>

export function allocateBuffers(capacity: number): FleetBuffers {
  const buffers = {} as FleetBuffers
  for (const [name, spec] of Object.entries(FIELDS) as Array<[FieldName, FieldSpec]>) {
    buffers[name] = new SharedArrayBuffer(capacity * spec.width * BYTES[spec.kind])
  }
  return buffers
}

export function viewsOf(buffers: FleetBuffers): FleetViews {
  const views = {} as Record<FieldName, unknown>
  for (const [name, spec] of Object.entries(FIELDS) as Array<[FieldName, FieldSpec]>) {
    views[name] = new CTORS[spec.kind](buffers[name])
  }
  return views as FleetViews
}

/** Bytes field `name` takes for `agents` agents; undefined for a name that is no field. */
export function fieldBytes(name: string, agents: number): number | undefined {
  // Own keys only: `__proto__` and the like are no field.
  if (!Object.hasOwn(FIELDS, name)) return undefined
  const spec = (FIELDS as Record<string, FieldSpec>)[name]
  return agents * spec.width * BYTES[spec.kind]
}

export function bytesPerAgent(): number {
  let total = 0
  for (const spec of Object.values(FIELDS) as FieldSpec[]) total += spec.width * BYTES[spec.kind]
  return total
}

/** Opens the sequence lock of agent i for writing (worker side). */
export function beginWrite(v: FleetViews, i: number): void {
  // Odd means "being written": readers that see it retry.
  Atomics.add(v.seq, i, 1)
}

export function endWrite(v: FleetViews, i: number): void {
  // Back to even, and different from the value a reader saw before the write began.
  Atomics.add(v.seq, i, 1)
}

/**
 * Runs `read` until it has seen agent i between two writes. The read callback must only copy
 * values out; it may run more than once.
 */
export function readConsistent<T>(v: FleetViews, i: number, read: () => T): T {
  for (;;) {
    const before = Atomics.load(v.seq, i)
    if ((before & 1) === 0) {
      const value = read()
      // Atomics.load is sequentially consistent: the plain reads above cannot move past it.
      if (Atomics.load(v.seq, i) === before) return value
    }
  }
}

/**
 * copyAgent's body, written out field by field from FIELDS (seq excepted) when the module
 * loads: `dst.flags[to] = src.flags[from]` and so on. It runs for every agent a step writes
 * (the undo copy, step.ts). A loop over the fields read each view by a name that changes every
 * turn and wrote arrays of five element types through one line, so V8 could only use its
 * slowest, megamorphic access there: in a profile of the server answering agentinfo at speed
 * 600 that loop was the largest part of the step worker's CPU, and it took about four times
 * as long an agent as this body (a scratch measurement). Written out, each line sees one view
 * of one type. The names are FIELDS' own keys, checked to be plain identifiers.
 */
function copyAgentBody(): string {
  const lines: string[] = []
  for (const [name, spec] of Object.entries(FIELDS) as Array<[FieldName, FieldSpec]>) {
    if (name === 'seq') continue
    if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new Error(`FIELDS key ${JSON.stringify(name)} is not a plain identifier`)
    if (spec.width === 1) lines.push(`dst.${name}[to] = src.${name}[from]`)
    else lines.push(`for (let k = 0; k < ${spec.width}; k++) dst.${name}[to * ${spec.width} + k] = src.${name}[from * ${spec.width} + k]`)
  }
  return lines.join('\n')
}

/** Copies every field of agent `from` in `src` to agent `to` in `dst` (seq excepted). */
export const copyAgent = new Function('src', 'from', 'dst', 'to', copyAgentBody()) as (src: FleetViews, from: number, dst: FleetViews, to: number) => void
