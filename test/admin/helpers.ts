/**
 * Shared set-up of the admin and fault tests: the facade, a paused fleet, the manager, and the
 * admin and faults plugins wired as the server wires them, over one FaultState.
 */
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp, createManager, type Manager } from '../../src/app.js'
import { adminPlugin } from '../../src/admin/plugin.js'
import { compileForManager } from '../../src/admin/scenario-load.js'
import { faultsPlugin } from '../../src/faults/plugin.js'
import { FaultState } from '../../src/faults/state.js'
import type { Wait } from '../../src/faults/body.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
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

export async function adminHarness(options: { agents?: number; scenario?: string; wait?: Wait; workers?: number; bodyLimit?: number } = {}): Promise<AdminHarness> {
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
    await engine.reset(compileForManager(scenario, START, manager))
  }
  const waits: number[] = []
  const wait: Wait =
    options.wait ??
    (async (ms) => {
      waits.push(ms)
    })
  const faults = new FaultState(engine)
  const app = await buildApp({ fleet: engine, ca: CA, auth: { user: AUTH.REST_USER, password: AUTH.REST_PASSWORD }, manager, ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }) })
  await app.register(faultsPlugin, { state: faults, wait })
  await app.register(adminPlugin, { engine, manager, auth: { user: AUTH.REST_USER, password: AUTH.REST_PASSWORD }, faults })
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
