/**
 * Stepping a shard: the pure core of the simulation. Given the shared views, the program and
 * a range of agents, bring every agent of the range to virtual second `to`. No threads here:
 * the worker (worker.ts) and the tests call these functions directly.
 *
 * Crash safety: before an agent is written, it is copied to the shard's undo slot and the
 * slot is marked with its index. If the worker dies mid-agent, the main thread finds the
 * agent's sequence number odd, copies the slot back (recoverShard) and runs the task again;
 * agents already stepped have no timer due any more, so the rerun skips them.
 */
import { Flag, beginWrite, copyAgent, endWrite, type FleetViews } from './layout.js'
import type { FleetProgram } from './program.js'
import { armStage, newTally, scheduleNext, stepAgent, type LifeContext, type StepTally } from './lifecycle.js'
import { initAgent } from './agent-init.js'

export interface ShardRange {
  /** shard number: selects the undo slot */
  shard: number
  start: number
  end: number
}

export interface UndoArea {
  views: FleetViews
  /** agent index held in each shard's undo slot, -1 when none */
  agent: Int32Array
}

export function stepShard(
  program: FleetProgram,
  v: FleetViews,
  undo: UndoArea,
  range: ShardRange,
  to: number,
  lockout: boolean
): StepTally {
  const ctx: LifeContext = { program, v, lockout, tally: newTally() }
  const next = v.nextEventAt
  for (let i = range.start; i < range.end; i++) {
    if (next[i] > to) continue
    copyAgent(v, i, undo.views, range.shard)
    Atomics.store(undo.agent, range.shard, i)
    beginWrite(v, i)
    stepAgent(ctx, i, to)
    endWrite(v, i)
    Atomics.store(undo.agent, range.shard, -1)
  }
  return ctx.tally
}

/** Brings agents [start, end) of the starting fleet to life at virtual second t. */
export function initShard(program: FleetProgram, v: FleetViews, range: ShardRange, t: number, lockout: boolean): StepTally {
  const ctx: LifeContext = { program, v, lockout, tally: newTally() }
  for (let i = range.start; i < range.end; i++) {
    beginWrite(v, i)
    initAgent(ctx, i, { t, initial: true })
    armStage(ctx, i, t)
    scheduleNext(ctx, i, t)
    endWrite(v, i)
  }
  return ctx.tally
}

/**
 * After a worker died while stepping `range`: puts back the agent it was writing, if any.
 * Returns the index restored, or -1.
 */
export function recoverShard(v: FleetViews, undo: UndoArea, range: ShardRange): number {
  const i = Atomics.load(undo.agent, range.shard)
  if (i < 0) return -1
  if ((Atomics.load(v.seq, i) & 1) === 1) {
    copyAgent(undo.views, range.shard, v, i)
    Atomics.add(v.seq, i, 1)
  }
  Atomics.store(undo.agent, range.shard, -1)
  return i
}

/** Whether agent i is part of the fleet the manager knows. */
export function exists(v: FleetViews, i: number): boolean {
  return (v.flags[i] & Flag.EXISTS) !== 0
}
