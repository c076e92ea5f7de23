/**
 * The whole scenario document: top-level keys, defaults, and the rules that span sections
 * (unique names, module references). Works on plain values, so YAML and JSON share it.
 */
import { fields, listOf, text, type Path, type Sink } from './check.js'
import { DEFAULTS } from './defaults.js'
import { behaviour } from './behaviour.js'
import { faultRule } from './faults.js'
import { fleet } from './fleet.js'
import { reconnect } from './reconnect.js'
import { stage } from './stage.js'
import { suggest } from '../lib/suggest.js'
import { timelineEvent } from './timeline.js'
import type { Action, FleetSpec, Scenario } from './types.js'

export const TOP_KEYS = ['name', 'description', 'fleet', 'behaviour', 'stages', 'timeline', 'reconnect', 'faults'] as const

/** A list whose items are read with a reader made for each index. */
function indexed<T>(make: (index: number) => (value: unknown, path: Path, sink: Sink) => T | undefined) {
  return (value: unknown, path: Path, sink: Sink): T[] | undefined => {
    if (!Array.isArray(value)) return listOf(make(0))(value, path, sink)
    const out: T[] = []
    let ok = true
    value.forEach((item, i) => {
      const got = make(i)(item, [...path, i], sink)
      if (got === undefined) ok = false
      else out.push(got)
    })
    return ok ? out : undefined
  }
}

function uniqueNames(items: readonly { name: string }[], section: string, sink: Sink): void {
  const seen = new Set<string>()
  items.forEach((item, i) => {
    if (seen.has(item.name)) sink.add('FSC_DUPLICATE', [section, i, 'name'], `name "${item.name}" is used twice in ${section}`)
    seen.add(item.name)
  })
}

/** crash-module may name a module or kind: it must exist in one of the fleet's module sets. */
function checkModuleRefs(action: Action, path: Path, spec: FleetSpec, sink: Sink): void {
  if (action.type !== 'crash-module') return
  const modules = spec.moduleSets.flatMap((s) => s.value.modules)
  for (const [key, wanted, known] of [
    ['module', action.module, modules.map((m) => m.name)],
    ['kind', action.kind, modules.map((m) => m.kind)]
  ] as const) {
    if (wanted === null || known.includes(wanted)) continue
    const near = suggest(wanted, [...new Set(known)])
    const hint = near === undefined ? `; known: ${[...new Set(known)].join(', ')}` : `; did you mean "${near}"?`
    sink.add('FSC_REFERENCE', [...path, key], `no module set has a module ${key === 'module' ? 'named' : 'of kind'} "${wanted}"${hint}`)
  }
}

/** The normalised scenario, or undefined when the sink received problems. */
export function readScenario(value: unknown, defaultName: string, source: string, sink: Sink): Scenario | undefined {
  const f = fields(value, [], sink, TOP_KEYS, 'a scenario mapping at the top of the document')
  if (f === undefined) return undefined
  const name = f.opt('name', text, defaultName)
  const description = f.req('description', text, 'a sentence saying what the scenario shows')
  const fleetSpec = f.opt('fleet', fleet, DEFAULTS.fleet)
  const churn = f.opt('behaviour', behaviour, DEFAULTS.behaviour)
  const stages = f.opt('stages', indexed(stage), [])
  const timeline = f.opt('timeline', indexed(timelineEvent), [])
  const policy = f.opt('reconnect', reconnect, { delay: DEFAULTS.reconnectDelay, failures: [] })
  const faults = f.opt('faults', indexed(faultRule), [])
  if (stages !== undefined) uniqueNames(stages, 'stages', sink)
  if (timeline !== undefined) uniqueNames(timeline, 'timeline', sink)
  if (faults !== undefined) uniqueNames(faults, 'faults', sink)
  if (fleetSpec !== undefined) {
    const rawStages = f.value.stages as { next?: unknown }[] | undefined
    stages?.forEach((s, i) =>
      s.next.forEach((n, j) => {
        // `next` written as one mapping has no index in its path.
        const path = Array.isArray(rawStages?.[i]?.next) ? ['stages', i, 'next', j] : ['stages', i, 'next']
        checkModuleRefs(n.action, path, fleetSpec, sink)
      })
    )
    timeline?.forEach((e, i) => checkModuleRefs(e.action, ['timeline', i], fleetSpec, sink))
  }
  if (
    sink.problems.length > 0 ||
    name === undefined ||
    description === undefined ||
    fleetSpec === undefined ||
    churn === undefined ||
    stages === undefined ||
    timeline === undefined ||
    policy === undefined ||
    faults === undefined
  ) {
    return undefined
  }
  return { name, description, source, fleet: fleetSpec, behaviour: churn, stages, timeline, reconnect: policy, faults }
}
