/**
 * Shared set-up of the console tests: the whole app (buildApp, as `fleetsim serve` has it)
 * listening on 127.0.0.1 over plain HTTP, a paused fleet, and the admin credentials of
 * test/http/helpers.ts (admin / secret).
 */
import type { LightMyRequestResponse } from 'fastify'
import { adminHarness, type AdminHarness } from '../admin/helpers.js'
import type { AppSettings } from '../../src/app.js'

export { AUTH, START } from '../admin/helpers.js'

export const USER = 'admin'
export const PASSWORD = 'secret'
export const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
/** What the console's own pages send with every change. */
export const CONSOLE_HEADERS = { authorization: BASIC, 'x-fleetsim-console': '1' }

export interface ConsoleHarness extends AdminHarness {
  /** `http://127.0.0.1:<port>` */
  origin: string
}

export async function consoleHarness(options: { agents?: number; scenario?: string; settings?: Partial<AppSettings> } = {}): Promise<ConsoleHarness> {
  const harness = await adminHarness(options)
  const address = await harness.app.listen({ host: '127.0.0.1', port: 0 })
  return { ...harness, origin: address }
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
