/**
 * Saving and resuming a whole simulation: the fleet engine and the manager's state together,
 * through the state file. The saved scenario is compiled again against the saved template
 * ids, so a resumed run continues with the same digest as one that never stopped.
 */
import { FleetEngine, type JoinDelay } from '../fleet/fleet.js'
import { compileScenario } from '../fleet/scenario-program.js'
import type { StoredLimits } from '../manager/limits.js'
import { createManager, type Manager } from '../manager/manager.js'
import type { CaInfo } from '../tls/ca-info.js'
import { readStateFile, writeStateFile } from './state-file.js'

export async function saveSimulation(path: string, engine: FleetEngine, manager: Manager, ca: CaInfo): Promise<void> {
  // One turn of the fleet, between step rounds, for both: a reset queued behind the save would
  // otherwise begin its run (and the manager forget the old run's agents' labels and templates)
  // before the manager's snapshot, which would then not agree with the saved fleet's.
  const saved = await engine.snapshotWith(() => manager.snapshot())
  await writeStateFile(path, { savedAt: new Date().toISOString(), caFingerprint: ca.fingerprint, engine: saved.engine, manager: saved.alongside })
}

/**
 * `limits` bound what the resumed manager stores from now on; the saved data is kept whole.
 * `joinDelay` applies to agents added from now on, and `statusPoll` to what agents show from
 * now on, as the other serve flags do.
 */
export async function resumeSimulation(
  path: string,
  options: { ca: CaInfo; workers?: number; limits?: Partial<StoredLimits>; joinDelay?: JoinDelay; statusPoll?: number; maxAddedAgents?: number }
): Promise<{ engine: FleetEngine; manager: Manager }> {
  const state = await readStateFile(path, options.ca.fingerprint)
  const saved = state.engine
  const templateIds = new Map(state.manager.templates.templates.filter((t) => t.kind === 'master').map((t) => [t.name, t.id]))
  const scenario =
    saved.scenario === null
      ? undefined
      : compileScenario(saved.scenario, saved.startTime, {
          templateId: (name) => {
            const id = templateIds.get(name)
            if (id === undefined) throw new Error(`the saved scenario names template "${name}", which the saved manager does not have`)
            return id
          }
        })
  // The run goes on: --max-added-agents counts the agents it added before the save too (FleetEngine.restore).
  const headroom = options.maxAddedAgents === undefined ? {} : { headroom: options.maxAddedAgents }
  const engine = await FleetEngine.restore(saved, { workers: options.workers, caFingerprint: options.ca.fingerprint, scenario, joinDelay: options.joinDelay, statusPoll: options.statusPoll, ...headroom })
  return { engine, manager: createManager(engine, options.ca, { saved: state.manager, limits: options.limits }) }
}
