/**
 * Piscina worker entry. Receives the shared buffers and the program once (workerData), then
 * runs small stateless tasks: each names a shard and a target time. It never imports the
 * pool side; both meet in layout.ts, program.ts and this file's task types.
 */
import { workerData } from 'piscina'
import { viewsOf, type FleetBuffers } from './layout.js'
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

const data = workerData as WorkerData
const views = viewsOf(data.buffers)
const undo = { views: viewsOf(data.undoBuffers), agent: new Int32Array(data.undoAgent) }

export default function run(task: WorkerTask): StepTally {
  switch (task.kind) {
    case 'init':
      return initShard(data.program, views, task.range, task.t, task.lockout)
    case 'step':
      return stepShard(data.program, views, undo, task.range, task.to, task.lockout)
  }
}
