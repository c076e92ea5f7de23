/**
 * Actions, as written in a stage's `next` and in a timeline event: the action name, its
 * parameters as sibling keys, and an optional `for`.
 *
 * ```yaml
 * action: upgrade
 * version: "6.5.1"
 * for: 1h          # revert after an hour
 * ```
 */
import { describe, fields, isMapping, oneOf, positiveWholeDuration, text, weight, type Fields, type Path, type Read, type Sink } from './check.js'
import { normalise } from './mix.js'
import { ACTION_NAMES, type Action, type ActionName, type TimedAction, type WeightedAction } from './types.js'

export const ACTION_KEYS = ['action', 'version', 'module', 'kind', 'for'] as const

export type Place = 'stage' | 'timeline'

/** Actions that make sense only fleet-wide, in the timeline. */
const TIMELINE_ONLY: readonly ActionName[] = ['join', 'manager-restart']

const readActionName = oneOf(ACTION_NAMES, 'an action')

/** Reads `action` and its parameter keys from `f`; the caller has checked the key names. */
export function timedAction(f: Fields, place: Place): TimedAction | undefined {
  const name = f.req('action', readActionName)
  const forSeconds = f.opt('for', positiveWholeDuration, null)
  if (name === undefined) return undefined
  if (place === 'stage' && TIMELINE_ONLY.includes(name)) {
    const why =
      name === 'join'
        ? 'in a stage; join new agents from the timeline, or use "leave" with "for" to make agents return'
        : 'in a stage; a manager restart is a fleet-wide timeline event'
    f.sink.add('FSC_NOT_ALLOWED', f.at('action'), `action "${name}" is not allowed ${why}`)
    return undefined
  }
  if (name !== 'upgrade') f.forbid('version', 'unless action is "upgrade"')
  if (name !== 'crash-module') {
    f.forbid('module', 'unless action is "crash-module"')
    f.forbid('kind', 'unless action is "crash-module"')
  }
  const action = actionOf(name, f)
  if (action === undefined || forSeconds === undefined) return undefined
  return { action, for: forSeconds }
}

function actionOf(name: ActionName, f: Fields): Action | undefined {
  switch (name) {
    case 'upgrade': {
      const version = f.req('version', text, 'the version to upgrade to')
      return version === undefined ? undefined : { type: name, version }
    }
    case 'crash-module': {
      const module = f.opt('module', text, null)
      const kind = f.opt('kind', text, null)
      return module === undefined || kind === undefined ? undefined : { type: name, module, kind }
    }
    default:
      return { type: name }
  }
}

const ALTERNATIVE_KEYS = ['weight', ...ACTION_KEYS]

const alternative: Read<{ value: TimedAction; weight: number }> = (value, path, sink) => {
  const f = fields(value, path, sink, ALTERNATIVE_KEYS, 'an action mapping')
  if (f === undefined) return undefined
  const w = f.opt('weight', weight, 1)
  const timed = timedAction(f, 'stage')
  return w === undefined || timed === undefined ? undefined : { value: timed, weight: w }
}

/** A stage's `next`: an action name, one `{action, ...}` mapping, or a list of weighted ones. */
export const next: Read<WeightedAction[]> = (value: unknown, path: Path, sink: Sink) => {
  if (typeof value === 'string') {
    const one = shortAction(value, path, sink)
    return one === undefined ? undefined : [{ action: one, for: null, probability: 1 }]
  }
  if (isMapping(value)) {
    const one = alternative(value, path, sink)
    return one === undefined ? undefined : [{ ...one.value, probability: 1 }]
  }
  if (!Array.isArray(value) || value.length === 0) {
    const found = Array.isArray(value) ? 'an empty list' : describe(value)
    return sink.add('FSC_TYPE', path, `expected an action name, an {action: ...} mapping or a list of them, got ${found}`)
  }
  const items: { value: TimedAction; weight: number }[] = []
  let ok = true
  value.forEach((item, i) => {
    const got = alternative(item, [...path, i], sink)
    if (got === undefined) ok = false
    else items.push(got)
  })
  if (!ok) return undefined
  return normalise(items).map((w) => ({ ...w.value, probability: w.probability }))
}

/** `next: offline`: an action name alone, for actions without parameters. */
function shortAction(value: string, path: Path, sink: Sink): Action | undefined {
  const name = readActionName(value, path, sink)
  if (name === undefined) return undefined
  if (TIMELINE_ONLY.includes(name)) {
    return sink.add('FSC_NOT_ALLOWED', path, `action "${name}" is not allowed in a stage; it is a fleet-wide timeline event`)
  }
  if (name === 'upgrade') {
    return sink.add('FSC_MISSING', path, 'action "upgrade" needs a version: write {action: upgrade, version: "..."}')
  }
  return name === 'crash-module' ? { type: name, module: null, kind: null } : ({ type: name } as Action)
}
