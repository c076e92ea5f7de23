/**
 * Shared set-up of the admin and fault tests: a paused fleet, its manager and the whole app
 * (buildApp: facade, faults, admin API, metrics), with fault waits recorded instead of slept.
 */
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp, type AppSettings } from '../../src/app.js'
import { compileForManager } from '../../src/admin/scenario-load.js'
import type { Wait } from '../../src/faults/body.js'
import type { FaultState } from '../../src/faults/state.js'
import { createFleet, type FleetEngine, type StepTaskRunner } from '../../src/fleet/fleet.js'
import { createManager, type Manager } from '../../src/manager/manager.js'
import { loadScenarioFileOrThrow } from '../../src/scenario/index.js'
import { AUTH, CA, START } from '../http/helpers.js'

export { AUTH, CA, START, REST } from '../http/helpers.js'

export interface AdminHarness {
  app: FastifyInstance
  engine: FleetEngine
  manager: Manager
  faults: FaultState
  /** wall waits the faults plugin asked for, in ms (the tests never really wait) */
  waits: number[]
  close(): Promise<void>
}

export async function adminHarness(
  options: { agents?: number; scenario?: string; wait?: Wait; workers?: number; bodyLimit?: number; settings?: Partial<AppSettings> } = {}
): Promise<AdminHarness> {
  // A scenario replaces the fleet at once, so the starting fleet is left empty then.
  const engine = await createFleet({
    agents: options.scenario === undefined ? (options.agents ?? 50) : 0,
    seed: 7,
    workers: options.workers ?? 1,
    paused: true,
    startTime: START,
    caFingerprint: CA.fingerprint
  })
  const manager = createManager(engine, CA)
  if (options.scenario !== undefined) {
    const scenario = await loadScenarioFileOrThrow(options.scenario)
    await engine.reset(compileForManager(scenario, engine, manager))
  }
  const waits: number[] = []
  const wait: Wait =
    options.wait ??
    (async (ms) => {
      waits.push(ms)
    })
  const { app, faults } = await buildApp(
    { fleet: engine, ca: CA, manager, faultWait: wait, processMetrics: false },
    { user: AUTH.REST_USER, password: AUTH.REST_PASSWORD, ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }), ...options.settings }
  )
  return {
    app,
    engine,
    manager,
    faults,
    waits,
    async close() {
      await app.close()
      await engine.close()
    }
  }
}

/** An admin request with credentials; objects are sent as JSON. */
export function admin(app: FastifyInstance, method: InjectOptions['method'], path: string, body?: unknown, headers: Record<string, string> = {}) {
  const json = body !== undefined && typeof body !== 'string'
  return app.inject({
    method,
    url: `/__admin${path}`,
    headers: { ...AUTH, ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body === undefined ? {} : { payload: json ? JSON.stringify(body) : (body as string) })
  })
}

/**
 * A fleet's step tasks (FleetOptions.stepTask) that pass until hold(), which resolves once a round
 * has reached its worker; that round and the ones after wait until release(), so that calls
 * queue behind the one in flight.
 */
export function heldRounds() {
  let release: () => void = () => undefined
  let held: Promise<void> = Promise.resolve()
  let reached: () => void = () => undefined
  let inFlight = new Promise<void>((resolve) => (reached = resolve))
  const stepTask: StepTaskRunner = async (task, run) => {
    reached()
    await held
    return run(task)
  }
  return {
    stepTask,
    hold(): Promise<void> {
      held = new Promise<void>((resolve) => (release = resolve))
      inFlight = new Promise<void>((resolve) => (reached = resolve))
      return inFlight
    },
    release: () => release()
  }
}
