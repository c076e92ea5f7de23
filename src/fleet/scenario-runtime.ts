/**
 * A running scenario on the main thread: what the scenario says about the starting fleet
 * beyond the workers' draws (labels, templates, which agents each stage and reconnect rule
 * picked), the timeline events, which need the whole fleet and fire between step rounds, and
 * the scenario's reconnect-failure rules. Rolling events (`spread`) only set a per-agent timer
 * here; the workers fire them.
 *
 * It remembers where the timeline is; a snapshot saves it (snapshot.ts). The reconnect-failure
 * rules keep nothing: which agents they fail is a seeded function of the fleet as each call
 * finds it (reconnectJudge).
 */
import { Action, sample } from './program.js'
import { Flag } from './layout.js'
import { advanceCounters } from './counters.js'
import { applyAction, matches } from './lifecycle.js'
import { initAgent } from './agent-init.js'
import { inFraction, pickAgents, rankOrder } from './selection.js'
import { Stream, hash32, uniform } from './random.js'
import { TimelineCursor } from './timeline.js'
import { agentName } from './reads.js'
import { applyLockout, type ReconnectFailure, type ReconnectRules } from './mutations.js'
import type { FleetCore } from './fleet-core.js'
import type { CompiledScenario, MainSelector } from './scenario-program.js'
import type { ScenarioInfo } from './fleet-types.js'
import type { FailureMode, ReconnectOperation } from '../scenario/types.js'

export class ScenarioRuntime implements ReconnectRules {
  readonly cursor: TimelineCursor
  /** per count rule of reconnect.failures: the starting fleet's agents by the rule's seeded rank, made when first needed */
  private readonly rankOrders = new Map<number, Int32Array>()

  constructor(
    readonly compiled: CompiledScenario,
    private readonly core: FleetCore
  ) {
    this.cursor = new TimelineCursor(compiled.scenario.timeline.map((event) => event.schedule))
  }

  get name(): string {
    return this.compiled.scenario.name
  }

  /**
   * Gives the starting fleet what the scenario says about it beyond the workers' draws:
   * labels, templates, which agents each stage picked. Then arms stages.
   */
  start(): void {
    const { core, compiled } = this
    const { fleet, stages } = compiled.scenario
    const { v, seed } = core
    const labelNames = [...new Set(compiled.labels.map((l) => l.name))]
    const templateCumulative: number[] = []
    fleet.templates.reduce((sum, t) => (templateCumulative.push(sum + t.fraction), sum + t.fraction), 0)
    for (let i = 0; i < core.used; i++) {
      // One draw per label name: an agent carries at most one value of each label.
      labelNames.forEach((name, n) => {
        const u = hash32(seed, i, n, Stream.LABEL) / 4294967296
        let cumulative = 0
        compiled.labels.forEach((label, bit) => {
          if (label.name !== name) return
          const low = cumulative
          cumulative += fleet.labels[bit].fraction
          const selector = compiled.labelSelectors[bit]
          if (u >= low && u < cumulative && (selector === null || this.matches(i, selector, false))) v.labelMask[i] |= 1 << bit
        })
      })
      const u = hash32(seed, i, 0, Stream.TEMPLATE) / 4294967296
      const k = templateCumulative.findIndex((c) => u < c)
      v.templateId[i] = k < 0 ? -1 : compiled.templateIds[k]
    }
    stages.forEach((stage, s) => {
      if (!compiled.program.stages[s].usesPickMask) return
      const picked = pickAgents(this.candidates(compiled.stageSelectors[s], false), stage.pick, seed, s, Stream.STAGE_PICK)
      for (const i of picked) v.stageMask[i] |= 1 << s
    })
    const ctx = core.mutationContext()
    const all: number[] = []
    for (let i = 0; i < core.used; i++) if ((v.flags[i] & Flag.EXISTS) !== 0) all.push(i)
    core.finishMutation(ctx, all)
  }

  /** Applies the timeline events due at second t (the fleet has been stepped to t). */
  fireTimeline(t: number): void {
    const { core, compiled } = this
    for (const occurrence of this.cursor.due(t)) {
      const event = compiled.scenario.timeline[occurrence.event]
      const action = compiled.timelineActions[occurrence.event]
      core.stats.timelineFired[event.name] = (core.stats.timelineFired[event.name] ?? 0) + 1
      if (action.kind === Action.MANAGER_RESTART) {
        applyLockout(core, true)
        if (action.forSeconds > 0) core.lockoutEndsAt = t + action.forSeconds
        continue
      }
      const key = occurrence.event * 65536 + occurrence.n
      if (action.kind === Action.JOIN) {
        const count = event.pick.kind === 'count' ? event.pick.count : 0
        const joined = this.joinAgents(count, t, event.spread, key)
        if (joined < count) core.stats.notJoined[event.name] = (core.stats.notJoined[event.name] ?? 0) + count - joined
        continue
      }
      const picked = pickAgents(this.candidates(compiled.timelineSelectors[occurrence.event], true), event.pick, core.seed, key, Stream.TIMELINE_PICK)
      const ctx = core.mutationContext()
      for (const i of picked) {
        const offset = event.spread > 0 ? Math.floor((hash32(core.seed, i, key, Stream.TIMELINE_SPREAD) / 4294967296) * event.spread) : 0
        if (offset === 0) {
          advanceCounters(core.program, core.v, i, t)
          applyAction(ctx, i, t, action)
        } else {
          // A rolling event reaches this agent later; the worker applies it then.
          core.v.timelineIdx[i] = occurrence.event
          core.v.timelineAt[i] = t + offset
        }
      }
      core.finishMutation(ctx, picked)
    }
  }

  /**
   * New agents installed by a timeline `join`: generated identities at the next free slots,
   * listed OFFLINE from now and reporting in at seeded offsets within `spread` seconds. As many
   * as the fleet has room for; returns how many.
   */
  private joinAgents(count: number, t: number, spread: number, key: number): number {
    const { core } = this
    const ctx = core.mutationContext()
    const joined: number[] = []
    for (let k = 0; k < count && core.used < core.capacity; k++) {
      const i = core.used++
      const offset = Math.floor((hash32(core.seed, i, key, Stream.TIMELINE_SPREAD) / 4294967296) * spread)
      initAgent(ctx, i, { t, initial: false, joinAt: t + Math.max(1, offset) })
      core.census.added(core, i)
      joined.push(i)
    }
    core.finishMutation(ctx, joined)
    return joined.length
  }

  /**
   * Judges the reconnects of one call (reconnectAgents, mutations.ts) by the scenario's failure
   * rules, each rule's whole selector, state included, read as the fleet stands when the call
   * begins: the first rule that fails an agent decides for how long. A probability rule draws
   * per attempt. A fraction rule fails the agents of the starting fleet whose seeded draw for
   * the rule is under it, and a count rule the `count` of them with the lowest seeded rank, among
   * the agents matching its selector then: for a selector on what never changes (os, version,
   * none at all) the same agents at every call (but that a deleted agent's place in a count goes
   * to the next by rank), for one on what does (state, template, label),
   * those matching it at the call (`template: web` counts the agents the call itself gives `web`).
   * Before, fraction and count sets were fixed when the scenario started, state left out of
   * the selector: `state: ERROR` failed agents in any state, and `template:` none, as no agent
   * had the template yet.
   */
  reconnectJudge(operation: ReconnectOperation | undefined): (i: number, u: number) => ReconnectFailure {
    const { v, seed } = this.core
    const rules = this.compiled.scenario.reconnect.failures
    const ruling = rules.flatMap((rule, k) => (operation === undefined || rule.operations.includes(operation) ? [k] : []))
    const countSets = new Map(ruling.flatMap((k) => {
      const mode = rules[k].mode
      return mode.kind === 'count' ? [[k, this.failingNow(k, mode)] as const] : []
    }))
    return (i, u) => {
      for (const k of ruling) {
        const rule = rules[k]
        const selector = this.compiled.reconnectSelectors[k]
        const mode = rule.mode
        const fails =
          mode.kind === 'count'
            ? (countSets.get(k) as Set<number>).has(i)
            : mode.kind === 'fraction'
              ? i < this.core.initialAgents && this.matches(i, selector, true) && inFraction(i, mode.fraction, seed, failureKey(k), Stream.STAGE_PICK)
              : this.matches(i, selector, true) && uniform(seed, i, v.eventNo[i] * 64 + k, Stream.RECONNECT_FAIL) < mode.probability
        if (!fails) continue
        const recoverAfter =
          rule.recoverAfter === null ? 0 : Math.max(1, Math.round(sample(rule.recoverAfter, u, uniform(seed, i, v.eventNo[i], Stream.RECONNECT_DELAY))))
        return { fails: true, recoverAfter }
      }
      return { fails: false, recoverAfter: 0 }
    }
  }

  /**
   * The agents a fraction or count rule fails now (reconnectJudge): of the starting fleet (agents
   * added later are in none, as in a stage's count), matching the rule's whole selector.
   */
  private failingNow(k: number, mode: Exclude<FailureMode, { kind: 'probability' }>): Set<number> {
    const selector = this.compiled.reconnectSelectors[k]
    if (mode.kind === 'fraction') {
      const candidates = this.candidates(selector, true, this.core.initialAgents)
      return new Set(pickAgents(candidates, { kind: 'fraction', fraction: mode.fraction }, this.core.seed, failureKey(k), Stream.STAGE_PICK))
    }
    // The count lowest in rank of those matching: the rank order walked from its front, which for
    // a selector most agents match ends after about `count` of them, where a pick among every
    // matching agent scanned the whole fleet at each call.
    let order = this.rankOrders.get(k)
    if (order === undefined) {
      order = rankOrder(this.core.initialAgents, this.core.seed, failureKey(k), Stream.STAGE_PICK)
      this.rankOrders.set(k, order)
    }
    const found: number[] = []
    for (let n = 0; n < order.length && found.length < mode.count; n++) {
      const i = order[n]
      if ((this.core.v.flags[i] & Flag.EXISTS) !== 0 && this.matches(i, selector, true)) found.push(i)
    }
    return new Set(found.sort((a, b) => a - b))
  }

  /** The scenario and its progress. */
  info(): ScenarioInfo {
    const { core } = this
    const { scenario } = this.compiled
    const next = this.cursor.nextAt()
    return {
      name: scenario.name,
      description: scenario.description,
      source: scenario.source,
      second: core.steppedTo,
      stages: scenario.stages.map((stage) => stage.name),
      timeline: scenario.timeline.map((event, k) => {
        const notJoined = core.stats.notJoined[event.name]
        return { name: event.name, fired: this.cursor.fired()[k], ...(notJoined === undefined ? {} : { notJoined }) }
      }),
      nextTimelineAt: next === Infinity ? null : next,
      lockedOut: core.lockout,
      reconnectFailureSets: scenario.reconnect.failures.map(({ mode }, k) => (mode.kind === 'probability' ? null : [...this.failingNow(k, mode)].map((i) => agentName(core, i))))
    }
  }

  /** The API fault rules of the scenario. */
  faultRules(): CompiledScenario['scenario']['faults'] {
    return this.compiled.scenario.faults
  }

  /** Whether agent i matches a main-thread selector; `withStates` false ignores its state. */
  private matches(i: number, selector: MainSelector, withStates: boolean): boolean {
    const masks = withStates || selector.masks.states === 0 ? selector.masks : { ...selector.masks, states: 0 }
    if (!matches(this.core.v, i, masks, 0)) return false
    if (selector.names === null) return true
    const name = agentName(this.core, i)
    return selector.names.some((pattern) => pattern.test(name))
  }

  /** The agents (below index `below`) matching a selector; `withStates` false ignores their state. */
  private candidates(selector: MainSelector, withStates: boolean, below = this.core.used): number[] {
    const { v } = this.core
    const found: number[] = []
    const masks = withStates ? selector.masks : { ...selector.masks, states: 0 }
    const statics: MainSelector = { masks, names: selector.names }
    const end = Math.min(below, this.core.used)
    for (let i = 0; i < end; i++) if ((v.flags[i] & Flag.EXISTS) !== 0 && this.matches(i, statics, true)) found.push(i)
    return found
  }
}

/** The key of reconnect rule k's seeded draws and ranks, apart from the stages' (0, 1, …). */
function failureKey(k: number): number {
  return 1000 + k
}
