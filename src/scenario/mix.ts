/**
 * Weighted mixes (`os`, `versions`, `modes`, `moduleSets`) and fraction tables (`states`,
 * `templates`). A mix is a mapping of name to positive weight, or a single name (weight 1);
 * weights are normalised to probabilities. A fraction table maps names to fractions of the fleet
 * that add up to at most 1.
 */
import { describe, fraction, isMapping, text, weight, type Path, type Read, type Sink } from './check.js'
import type { Weighted } from './types.js'

/**
 * Weights to probabilities. Weights near the largest number (`1e308`) sum to Infinity, which made
 * every probability 0: those are taken over the largest weight first. Other weights are divided by
 * their sum as they always were, so that a seed draws what it drew before.
 */
export function normalise<T>(items: readonly { value: T; weight: number }[]): Weighted<T>[] {
  const sum = items.reduce((total, item) => total + item.weight, 0)
  const scale = Number.isFinite(sum) ? 1 : items.reduce((most, item) => Math.max(most, item.weight), 0)
  const total = scale === 1 ? sum : items.reduce((t, item) => t + item.weight / scale, 0)
  return items.map((item) => ({ value: item.value, probability: item.weight / scale / total }))
}

/** `{ "Ubuntu 22.04": 3, "RHEL 9": 1 }` or `"Ubuntu 22.04"`; `name` checks each key. */
export function mix<T extends string>(name: Read<T> = text as Read<T>): Read<Weighted<T>[]> {
  return (value, path, sink) => {
    if (typeof value === 'string') {
      const one = name(value, path, sink)
      return one === undefined ? undefined : [{ value: one, probability: 1 }]
    }
    if (!isMapping(value) || Object.keys(value).length === 0) {
      // An empty mapping is a mapping: said as what it lacks, not as its type.
      const got = isMapping(value) ? 'an empty mapping; name at least one, or leave the key out for the default' : describe(value)
      return sink.add('FSC_TYPE', path, `expected a mapping of names to weights, or one name, got ${got}`)
    }
    const items: { value: T; weight: number }[] = []
    let ok = true
    for (const [key, w] of Object.entries(value)) {
      const n = name(key, [...path, key], sink)
      const got = weight(w, [...path, key], sink)
      if (n === undefined || got === undefined) ok = false
      else items.push({ value: n, weight: got })
    }
    return ok ? normalise(items) : undefined
  }
}

/** A mapping of names to fractions adding up to at most 1. */
export function fractions<T extends string>(
  name: Read<T>,
  what: string
): (value: unknown, path: Path, sink: Sink) => { value: T; fraction: number }[] | undefined {
  return (value, path, sink) => {
    if (!isMapping(value)) {
      return sink.add('FSC_TYPE', path, `expected a mapping of ${what} to fractions, got ${describe(value)}`)
    }
    const out: { value: T; fraction: number }[] = []
    let ok = true
    for (const [key, f] of Object.entries(value)) {
      const n = name(key, [...path, key], sink)
      const got = fraction(f, [...path, key], sink)
      if (n === undefined || got === undefined) ok = false
      else out.push({ value: n, fraction: got })
    }
    if (!ok) return undefined
    const sum = out.reduce((s, x) => s + x.fraction, 0)
    if (sum > 1 + 1e-9) {
      return sink.add('FSC_SUM', path, `expected fractions adding up to at most 1, got ${Number(sum.toFixed(6))}`)
    }
    return out
  }
}
