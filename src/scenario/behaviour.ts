/**
 * Background churn that runs alongside the stages: random disconnects and module crashes.
 *
 * ```yaml
 * behaviour:
 *   disconnect: { rate: 0.5/h, outage: { dist: exponential, mean: 2m, max: 30m } }
 *   moduleCrash: off
 * ```
 */
import { fields, rate, type Path, type Read, type Sink } from './check.js'
import { DEFAULTS } from './defaults.js'
import { seconds } from './distribution.js'
import type { Behaviour, Distribution } from './types.js'

/** `off`, or `{rate, <durationKey>}` with defaults from `fallback`. */
function churn<K extends string>(
  durationKey: K,
  fallback: { rate: number } & Record<K, Distribution>
): Read<{ rate: number } & Record<K, Distribution>> {
  return (value: unknown, path: Path, sink: Sink) => {
    if (value === 'off' || value === false) return { ...fallback, rate: 0 }
    const f = fields(value, path, sink, ['rate', durationKey], '"off" or a mapping')
    if (f === undefined) return undefined
    const r = f.opt('rate', rate, fallback.rate)
    const d = f.opt(durationKey, seconds, fallback[durationKey])
    if (r === undefined || d === undefined) return undefined
    return { rate: r, [durationKey]: d } as { rate: number } & Record<K, Distribution>
  }
}

export const behaviour: Read<Behaviour> = (value, path, sink) => {
  const d = DEFAULTS.behaviour
  if (value === 'off') return { disconnect: { ...d.disconnect, rate: 0 }, moduleCrash: { ...d.moduleCrash, rate: 0 } }
  const f = fields(value, path, sink, ['disconnect', 'moduleCrash'], '"off" or a mapping')
  if (f === undefined) return undefined
  const disconnect = f.opt('disconnect', churn('outage', d.disconnect), d.disconnect)
  const moduleCrash = f.opt('moduleCrash', churn('restartDelay', d.moduleCrash), d.moduleCrash)
  return disconnect === undefined || moduleCrash === undefined ? undefined : { disconnect, moduleCrash }
}
