/**
 * The fast path answers agentinfo without fastify's hooks, doing itself what each of them does
 * (AGENTINFO_HOOKS in src/http/fast-path.ts). Here the hooks fastify really runs for the route
 * are read from fastify and held against that list: a hook added to agentinfo, or to every
 * route, fails this test until someone decides what the fast path does about it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AGENTINFO_HOOKS } from '../../src/http/fast-path.js'
import { harness, type Harness } from './helpers.js'

/** `{ phase: [hook names] }` of the first `GET` route printed right after `path`, as printRoutes shows it. */
export function routeHooks(printed: string, path: string): Record<string, string[]> {
  const lines = printed.split('\n')
  const start = lines.findIndex((line) => line.includes(`${path} (GET`))
  if (start === -1) throw new Error(`no GET route ${path} in printRoutes`)
  const hooks: Record<string, string[]> = {}
  for (const line of lines.slice(start + 1)) {
    const match = /• \((\w+)\) (\[.*\])$/.exec(line)
    if (match === null) break
    hooks[match[1]] = (JSON.parse(match[2]) as string[]).map((name) => name.replace(/\(\)$/, ''))
  }
  return hooks
}

describe('the hooks of agentinfo', () => {
  let h: Harness
  beforeAll(async () => {
    h = await harness(5)
  })
  afterAll(() => h.close())

  it('are exactly the ones the fast path says what it does about', () => {
    const printed = h.app.printRoutes({ includeHooks: true, commonPrefix: false })
    const expected = Object.fromEntries(Object.entries(AGENTINFO_HOOKS).map(([phase, hooks]) => [phase, Object.keys(hooks)]))
    for (const path of ['/manager/mvc/restservice/agentinfo', '.json', '.xml']) {
      expect(routeHooks(printed, path), `hooks of ${path}: add a new one to AGENTINFO_HOOKS in src/http/fast-path.ts, saying what the fast path does in its place`).toEqual(expected)
    }
  })

  it('are read from fastify, so one more hook is seen', async () => {
    const extra = await harness(5, {}, { extend: (app) => app.addHook('onRequest', function auditTrail(_request, _reply, done) { done() }) })
    try {
      const hooks = routeHooks(extra.app.printRoutes({ includeHooks: true, commonPrefix: false }), '/manager/mvc/restservice/agentinfo')
      expect(hooks.onRequest).toContain('auditTrail')
      expect(hooks).not.toEqual(Object.fromEntries(Object.entries(AGENTINFO_HOOKS).map(([phase, names]) => [phase, Object.keys(names)])))
    } finally {
      await extra.close()
    }
  })
})
