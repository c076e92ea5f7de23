import { describe, expect, it } from 'vitest'
import { planCall, ruleApplies } from '../../src/faults/decide.js'
import type { FaultRule } from '../../src/scenario/types.js'

const rule = (over: Partial<FaultRule>): FaultRule => ({
  name: 'r',
  operations: null,
  during: null,
  latencyMs: null,
  error: null,
  reset: null,
  stall: null,
  failFirst: null,
  body: null,
  ...over
})
const none = { left: () => false, take: () => undefined }
const key = (sequence: number) => ({ seed: 3, sequence })

describe('planning the faults of one call', () => {
  it('applies a rule to its operations inside its window only', () => {
    const r = rule({ operations: ['agentinfo'], during: { from: 60, until: 120 } })
    expect(ruleApplies(r, 'agentinfo', 59)).toBe(false)
    expect(ruleApplies(r, 'agentinfo', 60)).toBe(true)
    expect(ruleApplies(r, 'agentinfo', 120)).toBe(false)
    expect(ruleApplies(r, 'appinfo', 90)).toBe(false)
  })

  it('adds up latencies and stalls of several rules', () => {
    const rules = [rule({ latencyMs: { kind: 'fixed', value: 100 } }), rule({ latencyMs: { kind: 'fixed', value: 50 }, stall: { forMs: 1000, rate: 1 } })]
    expect(planCall(rules, 'appinfo', 0, key(0), none)).toMatchObject({ latencyMs: 150, stallMs: 1000, kinds: ['latency', 'latency', 'stall'] })
  })

  it('lets the first answering rule decide, and drops body shaping from an answered call', () => {
    const rules = [
      rule({ error: { status: 503, rate: 1, message: 'first' } }),
      rule({ error: { status: 500, rate: 1, message: 'second' }, body: { slowBytesPerSecond: 10, truncateRate: 1 } })
    ]
    const plan = planCall(rules, 'appinfo', 0, key(0), none)
    expect(plan.error).toEqual({ status: 503, message: 'first', kind: 'error' })
    expect(plan).toMatchObject({ slowBytesPerSecond: null, truncate: false, kinds: ['error'] })
  })

  it('takes a failFirst call before drawing an error', () => {
    const taken: number[] = []
    const r = rule({ failFirst: { count: 1, status: 500, message: 'cold' }, error: { status: 503, rate: 1, message: 'x' } })
    const plan = planCall([r], 'appinfo', 0, key(0), { left: () => true, take: (k) => void taken.push(k) })
    expect(plan.error?.kind).toBe('fail-first')
    expect(taken).toEqual([0])
  })

  it('draws the same faults for the same call sequence, and others for others', () => {
    const rules = [rule({ error: { status: 503, rate: 0.5, message: 'x' } })]
    const pattern = (offset: number) => Array.from({ length: 64 }, (_, n) => planCall(rules, 'appinfo', 0, key(n + offset), none).error !== null)
    expect(pattern(0)).toEqual(pattern(0))
    expect(pattern(0)).not.toEqual(pattern(64))
    const hits = pattern(0).filter(Boolean).length
    expect(hits).toBeGreaterThan(16)
    expect(hits).toBeLessThan(48)
  })
})
