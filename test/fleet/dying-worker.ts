/**
 * A worker entry for pool tests: it steps the first agents of its shard as the real worker
 * would, leaves the next one half-written (copied to the undo slot, sequence number odd, a
 * state no agent can have), and exits its thread, as a thread that crashed mid-agent would.
 * The engine's pool loads it in place of worker.ts for one task (FleetOptions.stepTask).
 */
import { workerData } from 'piscina'
import { copyAgent, viewsOf } from '../../src/fleet/layout.js'
import type { StepTally } from '../../src/fleet/lifecycle.js'
import { stepShard } from '../../src/fleet/step.js'
import type { StepTask } from '../../src/fleet/fleet-types.js'
import type { WorkerData } from '../../src/fleet/worker.js'

/** agents of the shard stepped before the worker dies */
export const AGENTS_BEFORE_DYING = 300

export default function stepAndDie(task: StepTask): StepTally {
  const data = workerData as WorkerData
  const views = viewsOf(data.buffers)
  const undo = { views: viewsOf(data.undoBuffers), agent: new Int32Array(data.undoAgent) }
  const partial = { ...task.range, end: Math.min(task.range.end, task.range.start + AGENTS_BEFORE_DYING) }
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
