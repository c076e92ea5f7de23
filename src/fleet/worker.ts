/**
 * Piscina worker entry. Receives the shared buffers and the program once (workerData), then
 * runs small stateless tasks: each names a shard and a target time. It never imports the
 * pool side; both meet in layout.ts, program.ts and this file's task types.
 */
import { workerData } from 'piscina'
import { copyAgent, viewsOf, type FleetBuffers } from './layout.js'
import type { FleetProgram } from './program.js'
import type { StepTally } from './lifecycle.js'
import { initShard, stepShard, type ShardRange } from './step.js'

export interface WorkerData {
  buffers: FleetBuffers
  undoBuffers: FleetBuffers
  undoAgent: SharedArrayBuffer
  program: FleetProgram
}

export type WorkerTask =
  | { kind: 'init'; range: ShardRange; t: number; lockout: boolean }
  | { kind: 'step'; range: ShardRange; to: number; lockout: boolean }
  /** test hook: the worker dies in the middle of this task, as a crashed thread would */
  | { kind: 'step-and-die'; range: ShardRange; to: number; lockout: boolean; afterAgents: number }

const data = workerData as WorkerData
const views = viewsOf(data.buffers)
const undo = { views: viewsOf(data.undoBuffers), agent: new Int32Array(data.undoAgent) }

export default function run(task: WorkerTask): StepTally {
  switch (task.kind) {
    case 'init':
      return initShard(data.program, views, task.range, task.t, task.lockout)
    case 'step':
      return stepShard(data.program, views, undo, task.range, task.to, task.lockout)
    case 'step-and-die': {
      // Step part of the shard, leave one agent half-written, then exit the thread.
      const partial = { ...task.range, end: Math.min(task.range.end, task.range.start + task.afterAgents) }
      stepShard(data.program, views, undo, partial, task.to, task.lockout)
      const victim = partial.end
      if (victim < task.range.end) {
        copyAgent(views, victim, undo.views, task.range.shard)
        Atomics.store(undo.agent, task.range.shard, victim)
        Atomics.add(views.seq, victim, 1)
        views.state[victim] = 255
      }
      // Ends this worker thread only (process.exit in a worker stops the thread).
      process.exit(1)
    }
  }
}
