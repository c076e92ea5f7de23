/**
 * The conformance runner: runs the checks in order against one manager, each as pass, fail
 * or skip, then removes what the write checks created. A check fails by throwing; a check
 * whose needs no earlier check found (src/conformance/facts.ts) is skipped, saying
 * which fact is missing and why.
 */
import type { Transport } from './http-client.js'
import { appPath, normaliseTarget, serviceUrl } from './base-url.js'
import { CHECKS } from './checks.js'
import { CheckFailure, type Context } from './context.js'
import { FACT_TEXT, holds, type FactName, type Facts } from './facts.js'

export { CheckFailure, type Answer, type Context, type SendOptions } from './context.js'
export { normaliseTarget } from './base-url.js'

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
  /** each check's result as it ends (a run takes a while: a CI log shows how far it got) */
  onResult?: (result: CheckResult) => void
}

export interface CheckResult {
  id: string
  title: string
  status: 'pass' | 'fail' | 'skip'
  message: string
  ms: number
}

export async function runSuite(options: SuiteOptions): Promise<CheckResult[]> {
  const base = normaliseTarget(options.target)
  const service = serviceUrl(base)
  const facts: Facts = {}
  const context: Context = {
    basePath: appPath(base),
    unique: `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
    createdAgents: new Set(),
    learn(name, value) {
      facts[name] = value
    },
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

  const selected = CHECKS.filter((c) => options.only === undefined || options.only.includes(c.id))
  const results: CheckResult[] = []
  const record = (result: CheckResult) => {
    results.push(result)
    options.onResult?.(result)
  }
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
      record(result('skip', 'writes to the manager (--read-only)'))
      continue
    }
    const needs = check.needs ?? []
    if (!holds(facts, needs)) {
      record(result('skip', whyMissing(needs, facts, results)))
      continue
    }
    try {
      const note = await check.run(context, facts)
      record(result('pass', typeof note === 'string' ? note : ''))
    } catch (error) {
      if (error instanceof CheckFailure) record(result('fail', error.message))
      else record(result('fail', `could not run: ${(error as Error).message}`))
    }
  }
  await cleanUp(context)
  return results
}

/** `needs the CA's fingerprint from certificateinfo, which failed`: the first missing fact and why. */
function whyMissing(needs: readonly FactName[], facts: Facts, results: readonly CheckResult[]): string {
  const name = needs.find((need) => facts[need] === undefined)
  if (name === undefined) return `needs ${needs.join(', ')}`
  const { what, absent } = FACT_TEXT[name]
  const provider = CHECKS.find((c) => c.provides?.includes(name) === true)
  if (provider === undefined) return `needs ${what}`
  const outcome = results.find((r) => r.id === provider.id)?.status
  const why = { pass: `: ${absent}`, fail: ', which failed', skip: ', which was skipped', none: ', which was not run (add it to --only)' }[outcome ?? 'none']
  return `needs ${what} from ${provider.id}${why}`
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
