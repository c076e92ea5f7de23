/**
 * serve's quick fault flags as fault rules: `--latency 200ms±50ms` and `--error-rate 5%` (both
 * limited by `--fault-operations` when given) become the rules a scenario would write as
 *
 * ```yaml
 * faults:
 *   - { name: --latency, operation: "*", latency: { dist: uniform, min: 150, max: 250 } }
 *   - { name: --error-rate, operation: "*", error: { rate: 0.05 } }
 * ```
 * so they are drawn, counted, listed and switched exactly as the scenario's own rules are.
 */
import type { SpreadMs } from '../flags/rules.js'
import { ERROR_DEFAULTS } from '../scenario/faults.js'
import { deepFreeze } from '../scenario/freeze.js'
import type { FaultRule } from '../scenario/types.js'

/** The flags' values; undefined where a flag was not given. */
export interface QuickFaults {
  readonly latency?: SpreadMs | undefined
  /** the fraction of calls answered with an error, 0 to 1 */
  readonly errorRate?: number | undefined
  /** the operations both apply to; undefined: every operation */
  readonly faultOperations?: readonly string[] | undefined
}

/** The rules' names: the flag each comes from, which no scenario rule is likely to be called. */
const QUICK_RULE_NAMES = Object.freeze({ latency: '--latency', errorRate: '--error-rate' })

/** Milliseconds to the microsecond, as the flag was read: 0.3 - 0.1 is not quite 0.2. */
const round = (ms: number) => Math.round(ms * 1e3) / 1e3

/** Every effect off; a rule turns on its own (keys in the order a scenario rule lists them). */
const NO_EFFECT = { during: null, latencyMs: null, error: null, reset: null, stall: null, failFirst: null, body: null } as const

/** The rules of the flags given, latency first, frozen as a scenario's are; a latency or rate of 0 adds none. */
export function quickFaultRules(flags: QuickFaults): readonly FaultRule[] {
  const operations = flags.faultOperations === undefined ? null : [...flags.faultOperations]
  const rules: FaultRule[] = []
  const { latency, errorRate } = flags
  if (latency !== undefined && latency.ms > 0) {
    rules.push({
      name: QUICK_RULE_NAMES.latency,
      operations,
      ...NO_EFFECT,
      latencyMs:
        latency.spreadMs === 0
          ? { kind: 'fixed', value: latency.ms }
          : { kind: 'uniform', min: round(latency.ms - latency.spreadMs), max: round(latency.ms + latency.spreadMs) }
    })
  }
  if (errorRate !== undefined && errorRate > 0) {
    const error = { status: ERROR_DEFAULTS.status, rate: errorRate, message: ERROR_DEFAULTS.message }
    rules.push({ name: QUICK_RULE_NAMES.errorRate, operations, ...NO_EFFECT, error })
  }
  return deepFreeze(rules)
}
