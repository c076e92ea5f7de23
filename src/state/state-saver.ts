/**
 * Saving to --state-file while serving: on a timer (--snapshot-interval), on
 * `POST /__admin/snapshot` and at exit. One save runs at a time (they share a temporary file).
 * Created at start-up, it first removes the temporary files killed saves left behind.
 *
 * A failed save rejects with a StateSaveError naming the file and the cause, and is counted
 * (`totals`, the fleetsim_state_save_failures_total metric); the caller logs it (the timer and
 * the exit save as "could not save the simulation", the admin API as a failed request), so
 * every failure is logged once, at error level.
 */
import type { Logger } from 'pino'
import { TurnQueue } from '../lib/turn-queue.js'
import type { FleetEngine } from '../fleet/fleet.js'
import type { Manager } from '../manager/manager.js'
import type { CaInfo } from '../tls/ca-info.js'
import { saveSimulation } from './simulation-state.js'
import { removeStaleTemporaries } from './state-file.js'

export interface SaveResult {
  path: string
  /** wall clock, ISO */
  savedAt: string
}

/** Running totals since start, for the metrics (src/metrics/state-metrics.ts). */
export interface SaveTotals {
  saves: number
  failures: number
}

export class StateSaveError extends Error {
  /** what went wrong, e.g. the file system's message */
  readonly reason: string

  constructor(
    readonly path: string,
    cause: unknown
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    super(`could not save the simulation to ${path}: ${reason}`, { cause })
    this.name = 'StateSaveError'
    this.reason = reason
  }
}

/** Saves now (after any save in progress); the function also carries its file and totals. */
export type StateSaver = (() => Promise<SaveResult>) & { readonly path: string; readonly totals: Readonly<SaveTotals> }

/** The saver of --state-file; undefined without one. */
export function stateSaver(
  config: { readonly stateFile: string | undefined },
  fleet: FleetEngine,
  manager: Manager,
  ca: CaInfo,
  logger: Logger
): StateSaver | undefined {
  const path = config.stateFile
  if (path === undefined) return undefined
  try {
    const removed = removeStaleTemporaries(path)
    if (removed.length > 0) logger.info({ files: removed }, 'removed temporary state files of interrupted saves')
  } catch (error) {
    // Only disk space is at stake: saving works all the same.
    logger.warn({ err: error, stateFile: path }, 'could not look for temporary state files of interrupted saves')
  }
  const totals: SaveTotals = { saves: 0, failures: 0 }
  // One save at a time: they share the temporary file.
  const turns = new TurnQueue()
  const save = (): Promise<SaveResult> =>
    turns.run(async () => {
      try {
        await saveSimulation(path, fleet, manager, ca)
      } catch (error) {
        totals.failures++
        throw new StateSaveError(path, error)
      }
      totals.saves++
      logger.info({ stateFile: path, second: fleet.second() }, 'saved the simulation')
      return { path, savedAt: new Date().toISOString() }
    })
  return Object.assign(save, { path, totals: totals as Readonly<SaveTotals> })
}

/**
 * Saves every `intervalMs` (--snapshot-interval), each that long after the last one ended. A
 * timer firing every interval queued a save behind the one in progress whenever saving took
 * longer than the interval: with saves of 2.5 s every second, ten were waiting at SIGTERM, and
 * the exit took 32 s instead of the grace period and one save. `onError` gets a failed save's
 * error; the saves go on. `stop()` ends them (a save in progress finishes).
 */
export function savePeriodically(save: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void): { stop(): void } {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const next = () => {
    if (!stopped) timer = setTimeout(tick, intervalMs).unref()
  }
  const tick = () => {
    save().catch(onError).finally(next)
  }
  next()
  return {
    stop: () => {
      stopped = true
      clearTimeout(timer)
    }
  }
}
