/**
 * Compiles a normalised scenario (src/scenario/types.ts) into the engine's tables: the
 * FleetProgram the workers read, and the main-thread parts (timeline, reconnect failures,
 * labels, templates) that need whole-fleet views.
 *
 * Text becomes indices here once: OS and version globs become bit masks over the program's
 * tables, template names become the manager's template ids, label specs become bits.
 */
import { AGENT_STATES, MODES } from '../protocol/states.js'
import {
  Action,
  DEFAULT_MODULE_SETS,
  MAX_STAGES,
  defaultProgram,
  type ActionCode,
  type CompiledAction,
  type CompiledSelector,
  type CompiledStage,
  type FleetProgram,
  type ModuleSet
} from './program.js'
import { MAX_MODULES } from './layout.js'
import { cumulativeWeights } from './random.js'
import { globToRegExp } from '../scenario/selector.js'
import type { Action as ScenarioAction, Scenario, Selector, TimedAction } from '../scenario/types.js'
import type { ScenarioIssue } from '../scenario/errors.js'

/** OS, version and label tables hold at most 31 entries, so bit 31 is never an entry's bit. */
export const MAX_TABLE = 31
/** A mask no agent matches: only bit 31 is set. */
const NO_MATCH = 1 << 31

/** A selector for main-thread use: the masks, plus agent-name globs (names live on the main thread). */
export interface MainSelector {
  masks: CompiledSelector
  names: RegExp[] | null
}

export interface CompiledScenario {
  scenario: Scenario
  program: FleetProgram
  /** label specs by bit: `{ name, value }` of the fleet's labels */
  labels: Array<{ name: string; value: string }>
  /** which agents may carry each label (null: any), by label bit */
  labelSelectors: Array<MainSelector | null>
  /** the manager's id of each `fleet.templates` entry */
  templateIds: number[]
  stageSelectors: MainSelector[]
  timelineSelectors: MainSelector[]
  reconnectSelectors: MainSelector[]
  /** compiled action of each timeline event, by timeline index */
  timelineActions: CompiledAction[]
}

export class ScenarioCompileError extends Error {
  readonly code = 'E_SCENARIO_UNSUPPORTED'
}

const ACTION_CODES: Record<ScenarioAction['type'], ActionCode> = {
  offline: Action.OFFLINE,
  error: Action.ERROR,
  untrusted: Action.UNTRUSTED,
  forged: Action.FORGED,
  online: Action.ONLINE,
  'crash-module': Action.CRASH_MODULE,
  'restart-modules': Action.RESTART_MODULES,
  upgrade: Action.UPGRADE,
  join: Action.JOIN,
  leave: Action.LEAVE,
  'manager-restart': Action.MANAGER_RESTART
}

/** Module kinds get stable numeric `module-type` codes; known ones keep the default numbers. */
function moduleTypeOf(kind: string): number {
  for (const set of DEFAULT_MODULE_SETS) for (const m of set.modules) if (m.kind === kind) return m.moduleType
  let h = 0
  for (let k = 0; k < kind.length; k++) h = (h * 31 + kind.charCodeAt(k)) % 997
  return 100 + h
}

function maskOf(names: readonly string[], globs: readonly string[] | null): number {
  if (globs === null) return 0
  const patterns = globs.map(globToRegExp)
  let mask = 0
  names.forEach((name, k) => {
    if (patterns.some((p) => p.test(name))) mask |= 1 << k
  })
  // A selector that names nothing in the fleet must match nothing, not everything.
  return mask === 0 ? NO_MATCH : mask
}

export interface CompileContext {
  /** the manager's id of a master template, creating it when missing */
  templateId(name: string): number
}

/**
 * What the engine cannot run in a scenario of `file` the checks passed (more stages or table
 * entries than it holds), as compileScenario would refuse it, as a problem of the file
 * (FSC_UNSUPPORTED): undefined when it can. For `fleetsim scenario validate` and `fleetsim run`,
 * which said OK to a scenario that then failed to start.
 */
export function unsupportedBy(scenario: Scenario, file: string): ScenarioIssue | undefined {
  try {
    // Template ids are the manager's; a run of its own numbers them in the order named.
    const ids = new Map<string, number>()
    compileScenario(scenario, 0, { templateId: (name) => ids.get(name) ?? (ids.set(name, ids.size), ids.size - 1) })
    return undefined
  } catch (error) {
    if (error instanceof ScenarioCompileError) return { code: 'FSC_UNSUPPORTED', file, path: '', line: null, column: null, message: error.message }
    throw error
  }
}

export function compileScenario(scenario: Scenario, epochMs: number, context: CompileContext): CompiledScenario {
  const { fleet } = scenario
  const program = defaultProgram(fleet.seed, epochMs)

  program.os = { names: fleet.os.map((w) => w.value), cumulative: cumulativeWeights(fleet.os.map((w) => w.probability)) }
  program.osFamily = program.os.names.map((name) => (/windows/i.test(name) ? 'windows' : 'linux'))
  const versionNames = fleet.versions.map((w) => w.value)
  const versionWeights = fleet.versions.map((w) => w.probability)
  // Versions only reached by an upgrade join the table with no weight at the start.
  const upgradeTargets = [...scenario.stages.flatMap((s) => s.next.map((n) => n.action)), ...scenario.timeline.map((e) => e.action)]
  for (const action of upgradeTargets) {
    if (action.type === 'upgrade' && !versionNames.includes(action.version)) {
      versionNames.push(action.version)
      versionWeights.push(0)
    }
  }
  if (versionNames.length > MAX_TABLE || program.os.names.length > MAX_TABLE) {
    throw new ScenarioCompileError(`a scenario may name at most ${MAX_TABLE} operating systems and ${MAX_TABLE} versions (upgrade targets included), got ${program.os.names.length} and ${versionNames.length}; name fewer in fleet.os, fleet.versions and the upgrade actions`)
  }
  program.versions = { names: versionNames, cumulative: cumulativeWeights(versionWeights) }
  const modeWeights = MODES.map((mode) => fleet.modes.find((w) => w.value === mode)?.probability ?? 0)
  program.modes = cumulativeWeights(modeWeights)

  // An agent holds MAX_MODULES modules (layout.ts): more were cut off without a word, and a
  // crash-module naming one past them crashed another.
  const crowded = fleet.moduleSets.find(({ value }) => value.modules.length > MAX_MODULES)
  if (crowded !== undefined) {
    throw new ScenarioCompileError(`a module set may hold at most ${MAX_MODULES} modules, the most an agent runs, got ${crowded.value.modules.length} in "${crowded.value.name}"; move the others to another module set`)
  }
  program.moduleSets = fleet.moduleSets.map(({ value }): ModuleSet => ({
    name: value.name,
    modules: value.modules.map((m) => ({
      name: m.name,
      kind: m.kind,
      type: m.type,
      moduleType: moduleTypeOf(m.kind),
      rateMin: m.type === 'INPUT' ? 2 : 0,
      rateMax: m.type === 'INPUT' ? 50 : 0
    }))
  }))
  program.moduleSetCumulative = cumulativeWeights(fleet.moduleSets.map((w) => w.probability))

  // Initial conditions in the order the engine draws them: healthy, offline, untrusted, forged, error.
  const share = (state: string) => fleet.states.find((w) => w.value === state)?.probability ?? 0
  program.initialConditions = cumulativeWeights([share('ONLINE'), share('OFFLINE'), share('UNTRUSTED'), share('FORGED'), share('ERROR')])

  if (fleet.ramp !== null) {
    program.rampStart = fleet.ramp.start
    program.rampSeconds = fleet.ramp.over
    program.rampInitial = fleet.ramp.initial
  }

  const { disconnect, moduleCrash } = scenario.behaviour
  program.churn = {
    disconnectPerHour: disconnect.rate * 3600,
    outage: disconnect.outage,
    moduleCrashPerHour: moduleCrash.rate * 3600,
    restartDelay: moduleCrash.restartDelay
  }
  // Reconnect failures come from the scenario's rules only.
  program.reconnect = { failProbability: 0, delay: scenario.reconnect.delay }

  const labels: Array<{ name: string; value: string }> = fleet.labels.map((l) => ({ name: l.name, value: l.value }))
  if (labels.length > MAX_TABLE) throw new ScenarioCompileError(`a scenario may define at most ${MAX_TABLE} labels, got ${labels.length}; define fewer in fleet.labels`)

  const selector = (s: Selector): CompiledSelector => selectorOver(program, labels, context, s)

  const action = (timed: TimedAction): CompiledAction => {
    const a = timed.action
    let moduleSlots: number[] | null = null
    if (a.type === 'crash-module' && (a.module !== null || a.kind !== null)) {
      moduleSlots = program.moduleSets.map((set) => set.modules.findIndex((m) => (a.module === null || m.name === a.module) && (a.kind === null || m.kind === a.kind)))
    }
    return {
      kind: ACTION_CODES[a.type],
      arg: a.type === 'upgrade' ? versionNames.indexOf(a.version) : -1,
      moduleSlots,
      forSeconds: timed.for === null ? 0 : Math.max(1, Math.round(timed.for))
    }
  }

  if (scenario.stages.length > MAX_STAGES) throw new ScenarioCompileError(`a scenario may have at most ${MAX_STAGES} stages, got ${scenario.stages.length}; merge stages that select the same agents, or split the scenario in two`)
  program.stages = scenario.stages.map((stage): CompiledStage => {
    const next = stage.next
    return {
      name: stage.name,
      selector: selector(stage.select),
      usesPickMask: stage.pick.kind !== 'all' || stage.select.names !== null,
      afterSeconds: stage.trigger.kind === 'delay' ? stage.trigger.after : 0,
      jitterSeconds: stage.trigger.kind === 'delay' ? stage.trigger.jitter : 0,
      meanWaitSeconds: stage.trigger.kind === 'rate' ? 1 / stage.trigger.rate : 0,
      actions: next.map(action),
      cumulative: cumulativeWeights(next.map((n) => n.probability)),
      times: stage.times === null ? 0 : Math.min(255, stage.times)
    }
  })
  const timelineActions = scenario.timeline.map(action)
  program.timelineActions = timelineActions
  const main = (s: Selector): MainSelector => ({ masks: selector(s), names: s.names === null ? null : s.names.map(globToRegExp) })
  return {
    scenario,
    program,
    labels,
    labelSelectors: fleet.labels.map((l) => (l.select === null ? null : main(l.select))),
    templateIds: fleet.templates.map((t) => context.templateId(t.name)),
    stageSelectors: scenario.stages.map((stage) => main(stage.select)),
    timelineSelectors: scenario.timeline.map((event) => main(event.select)),
    reconnectSelectors: scenario.reconnect.failures.map((rule) => main(rule.select)),
    timelineActions
  }
}

/**
 * A selector as masks over the program's tables. Globs that name nothing in the fleet, and
 * labels the fleet never carries, give NO_MATCH: such a selector matches nobody rather than
 * everybody.
 */
export function selectorOver(
  program: FleetProgram,
  labels: ReadonlyArray<{ name: string; value: string }>,
  context: CompileContext,
  s: Selector
): CompiledSelector {
  let labelMask = 0
  for (const wanted of s.labels ?? []) {
    labels.forEach((l, bit) => {
      if (l.name === wanted.name && (wanted.value === null || wanted.value === l.value)) labelMask |= 1 << bit
    })
  }
  return {
    states: s.states === null ? 0 : s.states.reduce((m, st) => m | (1 << AGENT_STATES.indexOf(st)), 0),
    modes: s.modes === null ? 0 : s.modes.reduce((m, mode) => m | (1 << MODES.indexOf(mode)), 0),
    os: maskOf(program.os.names, s.os),
    versions: maskOf(program.versions.names, s.versions),
    templates: s.templates === null ? null : s.templates.map((name) => context.templateId(name)),
    labels: s.labels === null ? 0 : labelMask === 0 ? NO_MATCH : labelMask
  }
}
