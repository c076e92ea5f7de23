/**
 * Start-up progress for large fleets. Building a million agents takes seconds (ten million,
 * several more), and without a word the terminal looks hung until the "listening" line:
 *
 *   {"agents":1000000,"msg":"building the fleet"}
 *   {"agents":1000000,"seconds":2.1,"msg":"built the fleet"}
 *
 * Written at info, so `--log-level silent` (and startFleetsim, which is silent) stays quiet.
 */
import type { Logger } from 'pino'

/** Fleets from this size on take long enough to build that start-up says so. */
export const LARGE_FLEET_AGENTS = 100_000

/** The messages (src/metrics/terminal-log.ts turns them into a short line on a terminal). */
export const FLEET_BUILDING = 'building the fleet'
export const FLEET_BUILT = 'built the fleet'

export interface FleetBuildLogOptions {
  /** fleets of fewer agents build silently (default LARGE_FLEET_AGENTS) */
  from?: number
  /** wall clock in ms (tests pass their own) */
  wallNow?: () => number
}

export interface FleetBuildLog {
  /** the fleet is built: logs the time it took (nothing for a small fleet) */
  done(): void
}

/** Call before building a fleet of `agents`, and `done()` after: a large one gets a line at each end. */
export function startFleetBuildLog(log: Pick<Logger, 'info'>, agents: number, options: FleetBuildLogOptions = {}): FleetBuildLog {
  if (agents < (options.from ?? LARGE_FLEET_AGENTS)) return { done: () => undefined }
  const wallNow = options.wallNow ?? (() => performance.now())
  const began = wallNow()
  log.info({ agents }, FLEET_BUILDING)
  return { done: () => log.info({ agents, seconds: Math.round(wallNow() - began) / 1000 }, FLEET_BUILT) }
}
