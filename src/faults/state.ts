/**
 * The live state of API fault injection: on or off, the rules in force, and what the rules have
 * used up (failFirst counts, the call sequence that keys the draws). Shared by the faults plugin
 * (which applies the rules) and the admin API (which lists, adds, removes and switches them).
 *
 * The rules come from three places, listed in this order: the running scenario's, those of
 * serve's quick fault flags (src/faults/flag-rules.ts), and those added through the admin API.
 * The flags' rules come after the scenario's, so a scenario rule that answers a call (failFirst,
 * reset, error) answers it before --error-rate can; added rules come last.
 *
 * Each listed rule has an id that names it for as long as it is listed: `scenario-<n>` (its
 * place in the scenario's `faults`), `flag-<n>` and `added-<n>` (never given twice). Its draws
 * are keyed by a number that does not change either (`key`): the scenario's rules their place in
 * the file, the flags' the places after them (as when nothing was ever removed), added rules a
 * range of their own. So removing a rule leaves the draws of the others as they were.
 *
 * The counts belong to one run of one scenario: they start again whenever the engine loads or
 * resets a scenario. The engine replaces its `stats.faultsInjected` object on every reset (see
 * FleetEngine.setup: `Object.assign(this.stats, emptyStats())`), so a new object there is the
 * signal, and no reset can be missed whoever triggered it. A scenario rule removed through the
 * admin API is back then too: the scenario runs as written again. The flags' and the added rules
 * belong to the server and stay as they are.
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

/** Where a rule comes from: the running scenario, a quick fault flag, or the admin API. */
export type FaultOrigin = 'scenario' | 'flag' | 'admin'

/** A rule in force, with what names it and keys its draws. */
export interface ListedFaultRule {
  readonly id: string
  readonly origin: FaultOrigin
  readonly rule: FaultRule
  /** the rule's number in the draw keys (src/faults/decide.ts) */
  readonly key: number
}

export interface FaultRuleStatus extends ListedFaultRule {
  /** failFirst calls still to fail (null: the rule has no failFirst) */
  failFirstLeft: number | null
}

/** Rules the admin API keeps at most: each one is checked on every call of its operations. */
export const MAX_ADDED_RULES = 100

/**
 * Draw keys of added rules start here, far above any scenario's: a scenario of at most 1 MiB
 * holds fewer than 2^20 rules, so its rules and the flags' never meet this range.
 */
const ADDED_KEYS = 2 ** 20

const EMPTY: readonly FaultRule[] = Object.freeze([])

export class FaultState {
  enabled: boolean
  private sequence = 0
  /** failFirst calls taken, by rule id, since the last load or reset */
  private readonly failFirstUsed = new Map<string, number>()
  private generation: object | undefined
  private readonly flagRules: readonly FaultRule[]
  private readonly added: ListedFaultRule[] = []
  private addedCount = 0
  /** places in the scenario's `faults` removed through the admin API, until the next load or reset */
  private readonly removedScenario = new Set<number>()
  private readonly removedFlags = new Set<number>()
  /** moved on by every change to the list; with the scenario's list, what `listed` was made from */
  private version = 0
  private listedFrom: { scenario: readonly FaultRule[]; version: number } | undefined
  private listed: { entries: readonly ListedFaultRule[]; rules: readonly FaultRule[]; keys: readonly number[] } = { entries: [], rules: EMPTY, keys: [] }

  constructor(
    readonly source: FaultSource,
    options: { enabled?: boolean; flagRules?: readonly FaultRule[] } = {}
  ) {
    this.enabled = options.enabled ?? true
    this.flagRules = Object.freeze([...(options.flagRules ?? [])])
  }

  /**
   * The rules in force, in order. Made again only when the scenario's list is another object or
   * the admin API changed the list, so the faults plugin's per-call read allocates nothing.
   */
  private current(): typeof this.listed {
    this.sync()
    const scenario = this.source.faultRules()
    if (this.listedFrom?.scenario === scenario && this.listedFrom.version === this.version) return this.listed
    const entries: ListedFaultRule[] = []
    scenario.forEach((rule, n) => {
      if (!this.removedScenario.has(n)) entries.push({ id: `scenario-${n + 1}`, origin: 'scenario', rule, key: n })
    })
    this.flagRules.forEach((rule, n) => {
      if (!this.removedFlags.has(n)) entries.push({ id: `flag-${n + 1}`, origin: 'flag', rule, key: scenario.length + n })
    })
    entries.push(...this.added)
    // The scenario's own list when nothing was added or removed: the common case costs nothing.
    const rules = this.removedScenario.size === 0 && entries.length === scenario.length ? scenario : Object.freeze(entries.map((entry) => entry.rule))
    this.listed = { entries: Object.freeze(entries), rules, keys: Object.freeze(entries.map((entry) => entry.key)) }
    this.listedFrom = { scenario, version: this.version }
    return this.listed
  }

  /** Starts the counts again when the engine has loaded or reset a scenario since the last call. */
  private sync(): void {
    if (this.generation === this.source.stats.faultsInjected) return
    this.generation = this.source.stats.faultsInjected
    this.sequence = 0
    this.failFirstUsed.clear()
    if (this.removedScenario.size > 0) {
      this.removedScenario.clear()
      this.version++
    }
  }

  rules(): readonly FaultRule[] {
    return this.current().rules
  }

  /** Each rule's number in the draw keys, in the order of `rules()`. */
  drawKeys(): readonly number[] {
    return this.current().keys
  }

  /** Whether a rule may act on some call now: switched on, and some rule is in force. */
  active(): boolean {
    return this.enabled && this.current().rules.length > 0
  }

  /** The sequence number of the next call that meets at least one rule. */
  nextSequence(): number {
    this.sync()
    return this.sequence++
  }

  failFirstLeft(k: number): boolean {
    const entry = this.current().entries[k]
    if (entry === undefined || entry.rule.failFirst === null) return false
    return (this.failFirstUsed.get(entry.id) ?? 0) < entry.rule.failFirst.count
  }

  takeFailFirst(k: number): void {
    const entry = this.current().entries[k]
    if (entry !== undefined) this.failFirstUsed.set(entry.id, (this.failFirstUsed.get(entry.id) ?? 0) + 1)
  }

  /** Counts one injected fault for the metrics (`fleetsim_api_faults_injected_total`). */
  count(kind: string, operation: string): void {
    const key = `${kind} ${operation}`
    const counts = this.source.stats.faultsInjected
    counts[key] = (counts[key] ?? 0) + 1
  }

  status(): FaultRuleStatus[] {
    return this.current().entries.map((entry) => ({
      ...entry,
      failFirstLeft: entry.rule.failFirst === null ? null : Math.max(0, entry.rule.failFirst.count - (this.failFirstUsed.get(entry.id) ?? 0))
    }))
  }

  /** The rule listed with this id. */
  find(id: string): ListedFaultRule | undefined {
    return this.current().entries.find((entry) => entry.id === id)
  }

  /** How many rules the admin API has added and not removed. */
  addedRules(): number {
    return this.added.length
  }

  /**
   * The id the next added rule will have: `added-<n>` past the last one, skipping any a rule has
   * as its name (an unnamed rule is named after its id, so a rule named `added-5` would otherwise
   * have every later unnamed one refused as a duplicate name).
   */
  nextAddedId(): string {
    return `added-${this.nextAddedNumber()}`
  }

  private nextAddedNumber(): number {
    const names = new Set(this.current().entries.map((entry) => entry.rule.name))
    let n = this.addedCount + 1
    while (names.has(`added-${n}`)) n++
    return n
  }

  /**
   * Adds a rule after the others; it acts from the next call on, its failFirst counted from
   * there. The caller checks the rule (the scenario's fault rule reader) and the limit.
   */
  add(rule: FaultRule): ListedFaultRule {
    const n = this.nextAddedNumber()
    const entry: ListedFaultRule = { id: `added-${n}`, origin: 'admin', rule, key: ADDED_KEYS + n - 1 }
    this.addedCount = n
    this.added.push(entry)
    this.version++
    return entry
  }

  /** Removes the rule listed with this id; false when none is. */
  remove(id: string): boolean {
    const entry = this.find(id)
    if (entry === undefined) return false
    if (entry.origin === 'admin') this.added.splice(this.added.indexOf(entry), 1)
    else if (entry.origin === 'scenario') this.removedScenario.add(entry.key)
    else this.removedFlags.add(entry.key - this.source.faultRules().length)
    this.failFirstUsed.delete(entry.id)
    this.version++
    return true
  }
}
