/**
 * What the scenario's API fault rules do to one call: a pure function of the rules, the
 * operation, the virtual second, the call's sequence number and the seed. Every draw is
 * counter-based (src/fleet/random.ts) and keyed by (seed, call sequence, rule, kind), so the
 * same calls in the same order meet the same faults, whatever the wall clock did meanwhile.
 */
import { sample } from '../fleet/program.js'
import { uniform } from '../fleet/random.js'
import type { FaultRule } from '../scenario/types.js'

/** Fault kinds, as counted in `engine.stats.faultsInjected["<kind> <operation>"]`. */
export const FAULT_KINDS = ['latency', 'error', 'reset', 'stall', 'fail-first', 'slow-body', 'truncate'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

/**
 * Streams of the fault draws. They live apart from the fleet's streams (which are keyed by
 * agent, not by call) and start high so a new fleet stream can never collide with them.
 */
const FaultStream = { LATENCY: 101, LATENCY_2: 102, ERROR: 103, RESET: 104, STALL: 105, TRUNCATE: 106 } as const

/** The answer an injected error or failFirst gives instead of the operation's own. */
export interface InjectedError {
  status: number
  message: string
  kind: 'error' | 'fail-first'
}

/** Everything that happens to one call; `kinds` lists each fault once per rule that caused it. */
export interface FaultPlan {
  /** wall ms to wait before the operation runs */
  latencyMs: number
  /** destroy the connection without an answer */
  reset: boolean
  /** answer with this error instead of running the operation */
  error: InjectedError | null
  /** wall ms to hold the finished answer */
  stallMs: number
  /** send the body at this many bytes per second (null: full speed) */
  slowBytesPerSecond: number | null
  /** cut the body short and close the connection */
  truncate: boolean
  kinds: FaultKind[]
}

export function emptyPlan(): FaultPlan {
  return { latencyMs: 0, reset: false, error: null, stallMs: 0, slowBytesPerSecond: null, truncate: false, kinds: [] }
}

/** Whether rule applies to this operation at this virtual second. */
export function ruleApplies(rule: FaultRule, operation: string, second: number): boolean {
  if (rule.operations !== null && !rule.operations.includes(operation)) return false
  if (rule.during === null) return true
  return second >= rule.during.from && (rule.during.until === null || second < rule.during.until)
}

export interface CallKey {
  seed: number
  /** matching calls since the scenario was loaded or reset, from 0 */
  sequence: number
  /** each rule's number in the draw keys (FaultState.drawKeys); default its index */
  ruleKeys?: readonly number[]
}

/**
 * Combines the rules that apply to a call, in file order. Several rules add up: latencies and
 * stalls sum, the slowest body rate wins, and the first rule that answers (failFirst, then
 * reset, then error) decides the answer; later rules still add latency. `failFirst.left(k)`
 * says whether rule k still has calls to fail; `failFirst.take(k)` takes one.
 */
export function planCall(
  rules: readonly FaultRule[],
  operation: string,
  second: number,
  key: CallKey,
  failFirst: { left(k: number): boolean; take(k: number): void }
): FaultPlan {
  const plan = emptyPlan()
  const ruleKeys = key.ruleKeys
  const draw = (k: number, stream: number) => uniform(key.seed, key.sequence, ruleKeys === undefined ? k : ruleKeys[k], stream)
  rules.forEach((rule, k) => {
    if (!ruleApplies(rule, operation, second)) return
    if (rule.latencyMs !== null) {
      plan.latencyMs += sample(rule.latencyMs, draw(k, FaultStream.LATENCY), draw(k, FaultStream.LATENCY_2))
      plan.kinds.push('latency')
    }
    const answered = plan.reset || plan.error !== null
    if (!answered && rule.failFirst !== null && failFirst.left(k)) {
      failFirst.take(k)
      plan.error = { status: rule.failFirst.status, message: rule.failFirst.message, kind: 'fail-first' }
      plan.kinds.push('fail-first')
    } else if (!answered && rule.reset !== null && draw(k, FaultStream.RESET) < rule.reset.rate) {
      plan.reset = true
      plan.kinds.push('reset')
    } else if (!answered && rule.error !== null && draw(k, FaultStream.ERROR) < rule.error.rate) {
      plan.error = { status: rule.error.status, message: rule.error.message, kind: 'error' }
      plan.kinds.push('error')
    }
    if (rule.stall !== null && draw(k, FaultStream.STALL) < rule.stall.rate) {
      plan.stallMs += rule.stall.forMs
      plan.kinds.push('stall')
    }
    if (rule.body !== null) {
      const slow = rule.body.slowBytesPerSecond
      if (slow !== null) {
        plan.slowBytesPerSecond = plan.slowBytesPerSecond === null ? slow : Math.min(plan.slowBytesPerSecond, slow)
        plan.kinds.push('slow-body')
      }
      if (rule.body.truncateRate > 0 && draw(k, FaultStream.TRUNCATE) < rule.body.truncateRate) {
        plan.truncate = true
        plan.kinds.push('truncate')
      }
    }
  })
  // A call that is reset or answered with an error has no body of its own to hold or shape.
  if (plan.reset || plan.error !== null) {
    plan.kinds = plan.kinds.filter((kind) => kind !== 'stall' && kind !== 'slow-body' && kind !== 'truncate')
    plan.stallMs = 0
    plan.slowBytesPerSecond = null
    plan.truncate = false
  }
  return plan
}
