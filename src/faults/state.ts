/**
 * The live state of API fault injection: on or off, and what the rules have used up (failFirst
 * counts, the call sequence that keys the draws). Shared by the faults plugin (which applies the
 * rules) and the admin API (which switches them and shows them).
 *
 * The rules are the running scenario's, then those of serve's quick fault flags
 * (src/faults/flag-rules.ts). The flags' rules come last, so the scenario's keep their numbers
 * (which key their draws) and a scenario rule that answers a call (failFirst, reset, error)
 * answers it before --error-rate can.
 *
 * The counts belong to one run of one scenario: they start again whenever the engine loads or
 * resets a scenario. The engine replaces its `stats.faultsInjected` object on every reset (see
 * FleetEngine.setup: `Object.assign(this.stats, emptyStats())`), so a new object there is the
 * signal, and no reset can be missed whoever triggered it.
 */
import type { FaultRule } from '../scenario/types.js'

/** What fault injection reads from the fleet engine. */
export interface FaultSource {
  faultRules(): readonly FaultRule[]
  /** the virtual second the fleet has been stepped to */
  second(): number
  readonly stats: { faultsInjected: Record<string, number> }
  readonly identity: { readonly seed: number }
}

export interface FaultRuleStatus {
  rule: FaultRule
  /** failFirst calls still to fail (null: the rule has no failFirst) */
  failFirstLeft: number | null
}

export class FaultState {
  enabled: boolean
  private sequence = 0
  private failFirstUsed: number[] = []
  private generation: object | undefined
  /** rules of the quick fault flags, after the scenario's */
  private readonly flagRules: readonly FaultRule[]
  /** the scenario's rules the cached `all` was made from, and `all` itself */
  private combinedFrom: readonly FaultRule[] | undefined
  private combined: readonly FaultRule[] = []

  constructor(
    readonly source: FaultSource,
    options: { enabled?: boolean; flagRules?: readonly FaultRule[] } = {}
  ) {
    this.enabled = options.enabled ?? true
    this.flagRules = Object.freeze([...(options.flagRules ?? [])])
  }

  /**
   * The scenario's rules, then the flags'. The joined list is kept while the scenario's list is
   * the same object, so the faults plugin's per-call read allocates nothing.
   */
  private all(): readonly FaultRule[] {
    const scenario = this.source.faultRules()
    if (this.flagRules.length === 0) return scenario
    if (scenario.length === 0) return this.flagRules
    if (this.combinedFrom !== scenario) {
      this.combinedFrom = scenario
      this.combined = Object.freeze([...scenario, ...this.flagRules])
    }
    return this.combined
  }

  /** Starts the counts again when the engine has loaded or reset a scenario since the last call. */
  private sync(): void {
    if (this.generation === this.source.stats.faultsInjected) return
    this.generation = this.source.stats.faultsInjected
    this.sequence = 0
    this.failFirstUsed = this.all().map(() => 0)
  }

  rules(): readonly FaultRule[] {
    this.sync()
    return this.all()
  }

  /** Whether a rule may act on some call now: switched on, and the scenario or the flags have rules. */
  active(): boolean {
    return this.enabled && (this.flagRules.length > 0 || this.source.faultRules().length > 0)
  }

  /** The sequence number of the next call that meets at least one rule. */
  nextSequence(): number {
    this.sync()
    return this.sequence++
  }

  failFirstLeft(k: number): boolean {
    const rule = this.all()[k]
    return rule?.failFirst !== null && rule !== undefined && this.failFirstUsed[k] < rule.failFirst.count
  }

  takeFailFirst(k: number): void {
    this.failFirstUsed[k]++
  }

  /** Counts one injected fault for the metrics (`fleetsim_api_faults_injected_total`). */
  count(kind: string, operation: string): void {
    const key = `${kind} ${operation}`
    const counts = this.source.stats.faultsInjected
    counts[key] = (counts[key] ?? 0) + 1
  }

  status(): FaultRuleStatus[] {
    return this.rules().map((rule, k) => ({
      rule,
      failFirstLeft: rule.failFirst === null ? null : Math.max(0, rule.failFirst.count - this.failFirstUsed[k])
    }))
  }
}
