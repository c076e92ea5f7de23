/**
 * The conformance runner: runs the checks in order against one manager, each as pass, fail
 * or skip, then removes what the write checks created. A check fails by throwing; a check
 * that cannot run (nothing to look at, or an earlier check did not leave what it needs) skips.
 */
import type { Transport } from '../http-client.js'
import { CHECKS, type Check } from './checks.js'
import { CheckFailure, CheckSkipped, type Context } from './context.js'

export { CheckFailure, CheckSkipped, type Answer, type Context, type SendOptions } from './context.js'

export interface SuiteOptions {
  /** the manager's base URL: scheme, host, port and application path (`/restservice` is added) */
  target: string
  user: string
  password: string
  transport: Transport
  /** only GET operations: safe against a real manager */
  readOnly?: boolean
  /** only these check ids */
  only?: readonly string[]
}

export interface CheckResult {
  id: string
  title: string
  status: 'pass' | 'fail' | 'skip'
  message: string
  ms: number
}

/** `https://h:9443/manager/mvc/restservice/` → `https://h:9443/manager/mvc` */
export function normaliseTarget(target: string): URL {
  const url = new URL(target)
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/restservice$/, '')
  url.search = ''
  return url
}

export async function runSuite(options: SuiteOptions): Promise<CheckResult[]> {
  const base = normaliseTarget(options.target)
  const service = `${base.origin}${base.pathname}/restservice/`
  const context: Context = {
    basePath: base.pathname,
    unique: `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
    facts: new Map(),
    createdAgents: new Set(),
    async send(method, path, sendOptions = {}) {
      const headers: Record<string, string> = {}
      const accept = sendOptions.accept === undefined ? 'application/json' : sendOptions.accept
      if (accept !== null) headers.accept = accept
      if (sendOptions.auth !== false) {
        headers.REST_USER = options.user
        headers.REST_PASSWORD = sendOptions.auth === 'wrong' ? `${options.password}-wrong` : options.password
      }
      let body: string | undefined
      if (sendOptions.body !== undefined) {
        body = typeof sendOptions.body === 'string' ? sendOptions.body : JSON.stringify(sendOptions.body)
        headers['content-type'] = 'application/json'
      }
      Object.assign(headers, sendOptions.headers)
      const answer = await options.transport({ method, url: service + path, headers, ...(body === undefined ? {} : { body }) })
      let json: unknown
      try {
        json = answer.body === '' ? undefined : JSON.parse(answer.body)
      } catch {
        json = undefined
      }
      return { ...answer, json }
    }
  }

  const selected = CHECKS.filter((c: Check) => options.only === undefined || options.only.includes(c.id))
  const results: CheckResult[] = []
  for (const check of selected) {
    const started = performance.now()
    const result = (status: CheckResult['status'], message: string): CheckResult => ({
      id: check.id,
      title: check.title,
      status,
      message,
      ms: Math.round(performance.now() - started)
    })
    if (check.write && options.readOnly === true) {
      results.push(result('skip', 'writes to the manager (--read-only)'))
      continue
    }
    try {
      await check.run(context)
      results.push(result('pass', ''))
    } catch (error) {
      if (error instanceof CheckSkipped) results.push(result('skip', error.message))
      else if (error instanceof CheckFailure) results.push(result('fail', error.message))
      else results.push(result('fail', `could not run: ${(error as Error).message}`))
    }
  }
  await cleanUp(context)
  return results
}

/** Deletes the agents the write checks created and did not delete themselves. */
async function cleanUp(context: Context): Promise<void> {
  for (const uuid of context.createdAgents) {
    try {
      await context.send('DELETE', `deleteagent?agentUuids=${encodeURIComponent(uuid)}&revokeCert=true`)
    } catch {
      // Best effort: the run's results stand whether or not the clean-up reached the manager.
    }
  }
}
