/**
 * The faults plugin names the faults a call met on the request itself, so the journal's `fault`
 * of that call is exact even when calls of one operation overlap (the recorder's fallback,
 * fault counts before and after, is not).
 */
import Fastify, { type FastifyRequest } from 'fastify'
import { describe, expect, it } from 'vitest'
import { faultsPlugin } from '../../src/faults/plugin.js'
import { FaultState, type FaultSource } from '../../src/faults/state.js'
import type { FaultRule } from '../../src/scenario/types.js'

const rule: FaultRule = {
  name: 'cold',
  operations: ['appinfo'],
  during: null,
  latencyMs: null,
  error: null,
  reset: null,
  stall: null,
  failFirst: { count: 1, status: 503, message: 'cold' },
  body: null
}

function source(rules: FaultRule[]): FaultSource {
  return { faultRules: () => rules, second: () => 0, stats: { faultsInjected: {} }, identity: { seed: 1 } }
}

describe('the fault tag of a request', () => {
  it('names the faults only the call that met them, even when calls overlap', async () => {
    const app = Fastify()
    await app.register(faultsPlugin, { state: new FaultState(source([rule])), wait: async () => undefined })
    const tags: Array<unknown> = []
    app.addHook('onResponse', async (request: FastifyRequest) => {
      tags.push((request as FastifyRequest & { faultInjected?: unknown }).faultInjected)
    })
    app.get('/appinfo', { config: { operation: 'appinfo' } }, async () => ({ ok: true }))
    const [first, second] = await Promise.all([app.inject('/appinfo'), app.inject('/appinfo')])
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 503])
    expect(tags.sort()).toEqual([['fail-first'], undefined])
    await app.close()
  })
})
