/**
 * Shared set-up of the console tests: the whole app (buildApp, as `fleetsim serve` has it) on
 * a paused fleet, optionally running a scenario, listening on 127.0.0.1 over plain HTTP, with
 * the credentials of test/http/helpers.ts (admin / secret for the REST API and the admin).
 */
import type { ServerResponse } from 'node:http'
import { PassThrough } from 'node:stream'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppSettings, type FleetsimApp } from '../../src/app.js'
import { compileForManager } from '../../src/admin/scenario-load.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { createManager, type Manager } from '../../src/manager/manager.js'
import { loadScenarioFileOrThrow } from '../../src/scenario/index.js'
import { AUTH, CA, START } from '../http/helpers.js'

export { AUTH, START } from '../http/helpers.js'

export const REST = '/manager/mvc/restservice'
export const USER = AUTH.REST_USER
export const PASSWORD = AUTH.REST_PASSWORD
export const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
/** What the console's own pages send with every change. */
export const CONSOLE_HEADERS = { authorization: BASIC, 'x-fleetsim-console': '1' }

export interface ConsoleHarness {
  app: FastifyInstance
  built: FleetsimApp
  engine: FleetEngine
  manager: Manager
  /** `http://127.0.0.1:<port>`, when listening */
  origin: string
  close(): Promise<void>
}

export async function consoleHarness(options: { agents?: number; scenario?: string; settings?: Partial<AppSettings>; listen?: boolean } = {}): Promise<ConsoleHarness> {
  // A scenario replaces the fleet at once, so the starting fleet is left empty then.
  const engine = await createFleet({ agents: options.scenario === undefined ? (options.agents ?? 50) : 0, seed: 7, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
  const manager = createManager(engine, CA)
  if (options.scenario !== undefined) await engine.reset(compileForManager(await loadScenarioFileOrThrow(options.scenario), engine, manager))
  const built = await buildApp({ fleet: engine, ca: CA, manager, processMetrics: false }, { user: USER, password: PASSWORD, ...options.settings })
  const origin = options.listen === false ? '' : await built.app.listen({ host: '127.0.0.1', port: 0 })
  return {
    app: built.app,
    built,
    engine,
    manager,
    origin,
    async close() {
      await built.app.close()
      await engine.close()
    }
  }
}

/** The body of a JSON answer. */
export function json<T = unknown>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T
}

/** The session cookie (`name=value`) a successful login sets. */
export function sessionOf(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie']
  const cookie = Array.isArray(header) ? header[0] : header
  if (cookie === undefined) throw new Error(`no session cookie (status ${response.statusCode})`)
  return cookie.split(';')[0]
}

/** A REST operation with the REST headers, answered in JSON. */
export function rest(app: FastifyInstance, method: 'GET' | 'POST', path: string, body?: unknown) {
  return app.inject({
    method,
    url: `${REST}/${path}`,
    headers: { ...AUTH, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) })
  })
}

/** A console request with HTTP Basic admin credentials and the console header; objects go as JSON. */
export function consoleCall(app: FastifyInstance, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) {
  return app.inject({
    method,
    url: `/console${path}`,
    headers: { ...CONSOLE_HEADERS, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) })
  })
}

/** A response the console's stream hub can write to (src/console/stream.ts), collecting what it is sent. */
export function fakeResponse(): ServerResponse & { text(): string } {
  const sink = new PassThrough()
  let text = ''
  sink.on('data', (chunk: Buffer) => (text += chunk.toString()))
  return Object.assign(sink, { writeHead: () => sink, text: () => text }) as unknown as ServerResponse & { text(): string }
}
