/**
 * The simulation `fleetsim serve` starts with: the fleet and the manager, resumed from
 * --state-file when that file exists (its scenario, clock and seed win over the flags), else
 * built from --scenario or the flags.
 */
import { existsSync } from 'node:fs'
import type { Logger } from 'pino'
import { compileForManager } from './admin/scenario-load.js'
import type { ServeConfig } from './config.js'
import { createFleet, type FleetEngine } from './fleet/fleet.js'
import { createManager, type Manager } from './manager/manager.js'
import { startFleetBuildLog } from './metrics/build-log.js'
import { loadScenarioFileOrThrow } from './scenario/load.js'
import type { Scenario } from './scenario/types.js'
import { resumeSimulation } from './state/simulation-state.js'
import type { CaInfo } from './tls/ca-info.js'

export interface Simulation {
  fleet: FleetEngine
  manager: Manager
}

/**
 * The scenario of --scenario, loaded and checked before anything starts, so a broken one is
 * reported with every problem and nothing to clean up.
 */
export async function loadServeScenario(config: ServeConfig): Promise<Scenario | undefined> {
  if (config.scenario === undefined) return undefined
  return loadScenarioFileOrThrow(config.scenario)
}

export async function startSimulation(config: ServeConfig, ca: CaInfo, logger: Logger, scenario: Scenario | undefined): Promise<Simulation> {
  if (config.stateFile !== undefined && existsSync(config.stateFile)) {
    const resumed = await resumeSimulation(config.stateFile, {
      ca,
      workers: config.workers,
      limits: config,
      joinDelay: config.joinDelay,
      statusPoll: config.statusPoll,
      ...(config.maxAddedAgents !== undefined ? { maxAddedAgents: config.maxAddedAgents } : {})
    })
    if (scenario !== undefined) logger.warn({ stateFile: config.stateFile, scenario: scenario.name }, 'resuming from the state file: --scenario is ignored')
    logger.info({ stateFile: config.stateFile, second: resumed.engine.second(), agents: resumed.engine.size() }, 'resumed the simulation from the state file')
    return { fleet: resumed.engine, manager: resumed.manager }
  }
  // A large fleet takes seconds to build: say so, and how long it took (src/metrics/build-log.ts).
  const building = startFleetBuildLog(logger, scenario === undefined ? config.agents : 0)
  const fleet = await createFleet({
    agents: config.agents,
    seed: config.seed,
    workers: config.workers,
    speed: config.speed,
    startTime: config.startTime,
    paused: config.paused,
    joinDelay: config.joinDelay,
    statusPoll: config.statusPoll,
    ...(config.maxAddedAgents !== undefined ? { headroom: config.maxAddedAgents } : {}),
    caFingerprint: ca.fingerprint,
    // With a scenario the fleet starts empty and is rebuilt from it below, once the manager
    // exists to own the scenario's templates: building --agents first would be wasted work.
    ...(scenario !== undefined ? { agents: 0 } : {})
  })
  building.done()
  const manager = createManager(fleet, ca, { limits: config })
  if (scenario !== undefined) {
    try {
      const buildingScenario = startFleetBuildLog(logger, scenario.fleet.agents)
      await fleet.reset(compileForManager(scenario, fleet.clock.epochMs, manager))
      buildingScenario.done()
    } catch (error) {
      await fleet.close()
      throw new Error(`--scenario ${config.scenario}: ${(error as Error).message}`, { cause: error })
    }
    logger.info({ scenario: scenario.name, agents: fleet.size() }, 'scenario loaded')
  }
  return { fleet, manager }
}
