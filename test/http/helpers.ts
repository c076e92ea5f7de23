/** Shared set-up of the route tests: a real (paused) fleet, a CA description and the app. */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppParts, type AppSettings, type FleetsimApp } from '../../src/app.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import type { CaInfo } from '../../src/tls/ca-info.js'

export const APP_PATH = '/manager/mvc'
export const REST = `${APP_PATH}/restservice`
/** Links as the app builds them for inject's default host. */
export const LINK_REST = 'http://localhost:80/manager/mvc/mvc/restservice'
export const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'secret' }
export const JSON_HEADERS = { ...AUTH, accept: 'application/json', 'content-type': 'application/json' }
export const START = Date.parse('2026-03-01T00:00:00Z')

export const CA: CaInfo = {
  fingerprint: '0A:1B:2C:3D:4E:5F:60:71:82:93:A4:B5:C6:D7:E8:F9:0A:1B:2C:3D',
  subject: 'CN=fleetsim CA,O=fleetsim,C=DE',
  issuer: 'CN=fleetsim CA,O=fleetsim,C=DE',
  serialNumber: '01',
  notBefore: new Date('2026-01-01T00:00:00Z'),
  notAfter: new Date('2036-01-01T00:00:00Z'),
  sigAlgName: 'SHA256withRSA',
  pem: '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n'
}

export interface Harness {
  app: FastifyInstance
  fleet: FleetEngine
  /** everything buildApp assembled: the journal (`built.traffic`), faults, registry */
  built: FleetsimApp
  close(): Promise<void>
}

export async function harness(agents = 50, settings: Partial<AppSettings> = {}, parts: Partial<AppParts> = {}): Promise<Harness> {
  const fleet = await createFleet({ agents, seed: 7, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
  const built = await buildApp({ fleet, ca: CA, processMetrics: false, ...parts }, { user: 'admin', password: 'secret', ...settings })
  const app = built.app
  return {
    app,
    built,
    fleet,
    async close() {
      await app.close()
      await fleet.close()
    }
  }
}

/** JSON request with credentials; `body` objects are sent as JSON. */
export function call(app: FastifyInstance, method: InjectOptions['method'], path: string, body?: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method,
    url: `${REST}/${path}`,
    headers: { ...JSON_HEADERS, ...headers },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) })
  })
}

/**
 * Operations that wait for agents to reconnect resolve only as virtual time passes; this
 * drives the paused clock one second at a time until the request answers (no sleeping).
 */
export async function settle(fleet: FleetEngine, pending: Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  let done = false
  const result = pending.then((response) => {
    done = true
    return response
  })
  for (let i = 0; i < 120 && !done; i++) {
    await fleet.advance(1)
    await new Promise((resolve) => setImmediate(resolve))
  }
  return result
}

export function someUuids(fleet: FleetEngine, state: 'ONLINE' | 'OFFLINE', n: number): string[] {
  return [...fleet.indices(new Set([state]))].slice(0, n).map((i) => fleet.uuid(i))
}

export const agentBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  'global-config': { address: '192.0.2.1', port: 4041, 'ca-fingerprint': CA.fingerprint, ...extra }
})
