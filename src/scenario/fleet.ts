/**
 * The fleet section: size, seed and composition at the start.
 *
 * ```yaml
 * fleet:
 *   agents: 5000
 *   seed: 42
 *   os: { "Ubuntu 22.04": 3, "Windows Server 2022": 2 }
 *   states: { UNTRUSTED: 0.02 }
 *   ramp: { over: 10m }
 * ```
 */
import { AGENT_STATES, MODES, type AgentStateName } from '../protocol/states.js'
import { fields, fraction, integer, listOf, oneOf, positiveWholeDuration, text, weight, type Path, type Read, type Sink } from './check.js'
import { DEFAULTS } from './defaults.js'
import { fractions, mix, normalise } from './mix.js'
import { IDENTITY_KEYS, selector } from './selector.js'
import type { FleetSpec, LabelSpec, ModuleSet, ModuleSpec, Ramp, Weighted } from './types.js'

export const FLEET_KEYS = ['agents', 'seed', 'os', 'versions', 'modes', 'moduleSets', 'labels', 'templates', 'ramp', 'states'] as const

const MAX_AGENTS = 10_000_000

const module: Read<ModuleSpec> = (value, path, sink) => {
  const f = fields(value, path, sink, ['name', 'kind', 'type'], 'a module mapping {name, kind, type}')
  if (f === undefined) return undefined
  const name = f.req('name', text)
  const kind = f.req('kind', text, 'the module kind, e.g. im_udp')
  // nxlog naming: im_* modules are inputs and om_* outputs, so their type may be left out.
  const implied = kind?.startsWith('im_') ? 'INPUT' : kind?.startsWith('om_') ? 'OUTPUT' : undefined
  const type = implied === undefined || f.has('type') ? f.req('type', oneOf(['INPUT', 'OUTPUT'] as const, 'a module type')) : implied
  return name === undefined || kind === undefined || type === undefined ? undefined : { name, kind, type }
}

const moduleSet: Read<{ value: ModuleSet; weight: number }> = (value, path, sink) => {
  const f = fields(value, path, sink, ['name', 'weight', 'modules'], 'a module set mapping {name, weight, modules}')
  if (f === undefined) return undefined
  const name = f.req('name', text)
  const w = f.opt('weight', weight, 1)
  const modules = f.req('modules', listOf(module))
  if (modules !== undefined) {
    const seen = new Set<string>()
    modules.forEach((m, i) => {
      if (seen.has(m.name)) sink.add('FSC_DUPLICATE', [...f.at('modules'), i, 'name'], `module name "${m.name}" is used twice in this set`)
      seen.add(m.name)
    })
  }
  if (name === undefined || w === undefined || modules === undefined) return undefined
  return { value: { name, modules }, weight: w }
}

const moduleSets: Read<Weighted<ModuleSet>[]> = (value, path, sink) => {
  const sets = listOf(moduleSet)(value, path, sink)
  if (sets === undefined) return undefined
  if (sets.length === 0) return sink.add('FSC_TYPE', path, 'expected at least one module set, got an empty list')
  const seen = new Set<string>()
  let ok = true
  sets.forEach((s, i) => {
    if (seen.has(s.value.name)) {
      ok = false
      sink.add('FSC_DUPLICATE', [...path, i, 'name'], `module set name "${s.value.name}" is used twice`)
    }
    seen.add(s.value.name)
  })
  return ok ? normalise(sets) : undefined
}

const label: Read<LabelSpec> = (value, path, sink) => {
  const f = fields(value, path, sink, ['name', 'value', 'fraction', 'select'], 'a label mapping {name, value, fraction}')
  if (f === undefined) return undefined
  const name = f.req('name', text)
  const val = f.req('value', text)
  const share = f.opt('fraction', fraction, 1)
  const select = f.opt('select', selector(IDENTITY_KEYS), null)
  if (name === undefined || val === undefined || share === undefined || select === undefined) return undefined
  // A stage selects a label as `name=value`, cut at the first "=": a name holding one could never be selected.
  if (name.includes('=')) {
    return sink.add('FSC_FORMAT', [...path, 'name'], `expected a label name without "=" (a stage selects a label as "name=value"), got ${JSON.stringify(name)}`)
  }
  return { name, value: val, fraction: share, select }
}

const labels: Read<LabelSpec[]> = (value, path, sink) => {
  const list = listOf(label)(value, path, sink)
  if (list === undefined) return undefined
  // One draw per agent and label name: the values of one name share the fleet.
  const sums = new Map<string, number>()
  for (const l of list) sums.set(l.name, (sums.get(l.name) ?? 0) + l.fraction)
  let ok = true
  for (const [name, sum] of sums) {
    if (sum > 1 + 1e-9) {
      ok = false
      sink.add('FSC_SUM', path, `expected the fractions of label "${name}" to add up to at most 1, got ${Number(sum.toFixed(6))}`)
    }
  }
  return ok ? list : undefined
}

function ramp(agents: number | undefined): Read<Ramp> {
  return (value: unknown, path: Path, sink: Sink) => {
    const f = fields(value, path, sink, ['over', 'start', 'initial'])
    if (f === undefined) return undefined
    const over = f.req('over', positiveWholeDuration, 'how long the agents take to join')
    const start = f.opt('start', positiveDurationOrZero, 0)
    const initial = f.opt('initial', integer(0), 0)
    if (over === undefined || start === undefined || initial === undefined) return undefined
    if (agents !== undefined && initial > agents) {
      return sink.add('FSC_NUMBER', f.at('initial'), `expected at most fleet.agents (${agents}), got ${initial}`)
    }
    return { over, start, initial }
  }
}

const positiveDurationOrZero: Read<number> = (value, path, sink) =>
  value === 0 ? 0 : positiveWholeDuration(value, path, sink)

const stateName = oneOf(AGENT_STATES.filter((s) => s !== 'UNMANAGED'), 'an initial agent state')

const states: Read<Weighted<AgentStateName>[]> = (value, path, sink) => {
  const given = fractions(stateName, 'agent states')(value, path, sink)
  if (given === undefined) return undefined
  const others = given.filter((s) => s.value !== 'ONLINE' && s.fraction > 0)
  const online = 1 - others.reduce((sum, s) => sum + s.fraction, 0)
  const out: Weighted<AgentStateName>[] = online > 1e-12 ? [{ value: 'ONLINE', probability: online }] : []
  return [...out, ...others.map((s) => ({ value: s.value, probability: s.fraction }))]
}

const templates: Read<FleetSpec['templates']> = (value, path, sink) => {
  const given = fractions(text, 'master template names')(value, path, sink)
  return given?.map((t) => ({ name: t.value, fraction: t.fraction }))
}

export const fleet: Read<FleetSpec> = (value, path, sink) => {
  const f = fields(value, path, sink, FLEET_KEYS)
  if (f === undefined) return undefined
  const d = DEFAULTS.fleet
  const agents = f.opt('agents', integer(1, MAX_AGENTS), d.agents)
  const seed = f.opt('seed', integer(0, 0xffffffff), d.seed)
  const os = f.opt('os', mix(), d.os)
  const versions = f.opt('versions', mix(), d.versions)
  const modes = f.opt('modes', mix(oneOf(MODES, 'a mode')), d.modes)
  const sets = f.opt('moduleSets', moduleSets, d.moduleSets)
  const labelList = f.opt('labels', labels, d.labels)
  const templateList = f.opt('templates', templates, d.templates)
  const rampSpec = f.opt('ramp', ramp(agents), d.ramp)
  const initial = f.opt('states', states, d.states)
  if (
    agents === undefined ||
    seed === undefined ||
    os === undefined ||
    versions === undefined ||
    modes === undefined ||
    sets === undefined ||
    labelList === undefined ||
    templateList === undefined ||
    rampSpec === undefined ||
    initial === undefined
  ) {
    return undefined
  }
  return {
    agents,
    seed,
    os,
    versions,
    modes,
    moduleSets: sets,
    labels: labelList,
    templates: templateList,
    ramp: rampSpec,
    states: initial
  }
}
