/**
 * The simulation `fleetsim serve` starts with: the fleet and the manager, resumed from
 * --state-file when that file exists (its scenario, clock and seed win over the flags), else
 * built from --scenario (with --agents and --seed in place of its own when given) or the flags.
 */
import { existsSync } from 'node:fs'
import type { Logger } from 'pino'
import { compileForManager } from './admin/scenario-load.js'
import { DEFAULT_AGENTS, DEFAULT_SEED, type ServeConfig } from './config.js'
import { createFleet, type FleetEngine } from './fleet/fleet.js'
import { createManager, type Manager } from './manager/manager.js'
import { startFleetBuildLog } from './metrics/build-log.js'
import { describeReplacement, withFleetFlags, type FleetReplacement } from './scenario/fleet-flags.js'
import { loadScenarioFileOrThrow } from './scenario/load.js'
import type { Scenario } from './scenario/types.js'
import { resumeSimulation } from './state/simulation-state.js'
import type { CaInfo } from './tls/ca-info.js'

export interface Simulation {
  fleet: FleetEngine
  manager: Manager
}

/** The scenario of --scenario, with what --agents and --seed replaced in it (see loadServeScenario). */
export interface ServeScenario {
  readonly scenario: Scenario
  readonly replaced: FleetReplacement
}

/**
 * The scenario of --scenario, loaded and checked before anything starts, so a broken one is
 * reported with every problem and nothing to clean up. --agents and --seed, when given (flag or
 * env twin), replace its fleet.agents and fleet.seed (src/scenario/fleet-flags.ts).
 */
export async function loadServeScenario(config: ServeConfig): Promise<ServeScenario | undefined> {
  if (config.scenario === undefined) return undefined
  return withFleetFlags(await loadScenarioFileOrThrow(config.scenario), { agents: config.agents, seed: config.seed, ...(config.fleetFlagsGivenAs === undefined ? {} : { givenAs: config.fleetFlagsGivenAs }) })
}

export async function startSimulation(config: ServeConfig, ca: CaInfo, logger: Logger, served: ServeScenario | undefined): Promise<Simulation> {
  const scenario = served?.scenario
  if (config.stateFile !== undefined && existsSync(config.stateFile)) {
    const resumed = await resumeSimulation(config.stateFile, {
      ca,
      workers: config.workers,
      limits: config,
      joinDelay: config.joinDelay,
      statusPoll: config.statusPoll,
      ...(config.maxAddedAgents !== undefined ? { maxAddedAgents: config.maxAddedAgents } : {})
    })
    // The saved run holds its scenario, fleet, seed and clock: flags that would shape another are said to be ignored.
    const ignored = [
      scenario === undefined ? [] : ['--scenario'],
      config.agents === undefined ? [] : ['--agents'],
      config.seed === undefined ? [] : ['--seed'],
      config.clockFlagsGiven ?? []
    ].flat()
    if (ignored.length > 0) logger.warn({ stateFile: config.stateFile, ignored }, `resuming from the state file: ${ignored.join(', ')} ignored (the saved run keeps its own; remove the state file to start anew)`)
    logger.info({ stateFile: config.stateFile, second: resumed.engine.second(), agents: resumed.engine.size() }, 'resumed the simulation from the state file')
    return { fleet: resumed.engine, manager: resumed.manager }
  }
  // A large fleet takes seconds to build: say so, and how long it took (src/metrics/build-log.ts).
  const agents = config.agents ?? DEFAULT_AGENTS
  const building = startFleetBuildLog(logger, scenario === undefined ? agents : 0)
  const fleet = await createFleet({
    agents,
    seed: config.seed ?? DEFAULT_SEED,
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
    // `agents` stays the fleet DELETE /__admin/scenario goes back to (it was 0, an empty fleet).
    ...(scenario !== undefined ? { startEmpty: true } : {})
  })
  building.done()
  const manager = createManager(fleet, ca, { limits: config })
  if (scenario !== undefined) {
    try {
      const buildingScenario = startFleetBuildLog(logger, scenario.fleet.agents)
      await fleet.reset(compileForManager(scenario, fleet, manager))
      buildingScenario.done()
    } catch (error) {
      await fleet.close()
      throw new Error(`--scenario ${config.scenario}: ${(error as Error).message}`, { cause: error })
    }
    const replaced = served === undefined ? undefined : describeReplacement(served.replaced)
    logger.info({ scenario: scenario.name, agents: fleet.size(), seed: scenario.fleet.seed }, replaced === undefined ? 'scenario loaded' : `scenario loaded; ${replaced}`)
  }
  return { fleet, manager }
}
