/**
 * Random durations: `30s` (fixed), or a mapping naming the distribution:
 * `{dist: uniform, min: 1s, max: 4s}`, `{dist: normal, mean: 2m, sd: 30s, max: 10m}`,
 * `{dist: exponential, mean: 90s, max: 30m}`, `{dist: fixed, value: 5s}`.
 */
import { Sink, duration, fields, isMapping, oneOf, type Path, type Read } from './check.js'
import type { Distribution } from './types.js'

export const DISTRIBUTIONS = ['fixed', 'uniform', 'normal', 'exponential'] as const

const KEYS: Record<(typeof DISTRIBUTIONS)[number], readonly string[]> = {
  fixed: ['dist', 'value'],
  uniform: ['dist', 'min', 'max'],
  normal: ['dist', 'mean', 'sd', 'max'],
  exponential: ['dist', 'mean', 'max']
}

/** Milliseconds: a bare number is milliseconds, a string with units is converted. */
export const milliseconds: Read<number> = (value, path, sink) => {
  if (typeof value === 'number') return value >= 0 && Number.isFinite(value) ? value : duration(value, path, sink)
  const seconds = duration(value, path, sink)
  return seconds === undefined ? undefined : seconds * 1000
}

/** A distribution whose parameters are read with `scalar` (seconds or milliseconds). */
export function distribution(scalar: Read<number>): Read<Distribution> {
  return (value: unknown, path: Path, sink: Sink) => {
    if (!isMapping(value)) {
      const fixed = scalar(value, path, sink)
      return fixed === undefined ? undefined : { kind: 'fixed', value: fixed }
    }
    const allKeys = [...new Set(Object.values(KEYS).flat())]
    if (value.dist === undefined) {
      fields(value, path, sink, allKeys)
      return sink.add('FSC_MISSING', path, `missing required key "dist" (one of ${DISTRIBUTIONS.join(', ')})`)
    }
    const kind = oneOf(DISTRIBUTIONS, 'a distribution')(value.dist, [...path, 'dist'], sink)
    const f = fields(value, path, sink, kind === undefined ? allKeys : KEYS[kind])
    if (kind === undefined || f === undefined) return undefined
    switch (kind) {
      case 'fixed': {
        const v = f.req('value', scalar)
        return v === undefined ? undefined : { kind, value: v }
      }
      case 'uniform': {
        const min = f.req('min', scalar)
        const max = f.req('max', scalar)
        if (min === undefined || max === undefined) return undefined
        if (max < min) return sink.add('FSC_NUMBER', f.at('max'), `expected max >= min (${String(value.min)}), got ${String(value.max)}`)
        return { kind, min, max }
      }
      case 'normal': {
        const mean = f.req('mean', scalar)
        const sd = f.req('sd', scalar)
        const max = f.opt('max', scalar, null)
        if (mean === undefined || sd === undefined || max === undefined) return undefined
        return { kind, mean, sd, max }
      }
      case 'exponential': {
        const mean = f.req('mean', scalar)
        const max = f.opt('max', scalar, null)
        if (mean === undefined || max === undefined) return undefined
        return { kind, mean, max }
      }
    }
  }
}

/** The largest value a distribution can draw, Infinity when it has no cap. */
export function upperBound(d: Distribution): number {
  switch (d.kind) {
    case 'fixed':
      return d.value
    case 'uniform':
      return d.max
    case 'normal':
    case 'exponential':
      return d.max ?? Infinity
  }
}

export const seconds = distribution(duration)
export const millisecondsDistribution = distribution(milliseconds)
