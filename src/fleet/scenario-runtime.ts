/**
 * What a running scenario needs to remember on the main thread: where the timeline is, and
 * the fixed sets of agents that reconnect-failure rules picked when the scenario started.
 */
import type { CompiledScenario } from './scenario-program.js'
import { TimelineCursor } from './timeline.js'

export class ScenarioRuntime {
  readonly cursor: TimelineCursor
  /** per reconnect rule: the agents that always fail (fraction and count rules), else null */
  readonly failureSets: Array<Set<number> | null>

  constructor(readonly compiled: CompiledScenario) {
    this.cursor = new TimelineCursor(compiled.scenario.timeline.map((event) => event.schedule))
    this.failureSets = compiled.scenario.reconnect.failures.map(() => null)
  }

  get name(): string {
    return this.compiled.scenario.name
  }
}
