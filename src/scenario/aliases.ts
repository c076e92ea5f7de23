/**
 * What a document's anchors and aliases cost. An alias (`*name`) repeats the whole value anchored
 * `&name` before it, and anchors may hold aliases, so a few hundred bytes can stand for billions
 * of values (the "billion laughs"): the yaml package would hand back a graph every reader after
 * it walks in full. And the package finds each alias's anchor by scanning every anchor and alias
 * before it, so their number costs time by its square (an upload of tens of thousands kept the server
 * busy for more than a minute). Both are counted here on the parsed nodes, before they become
 * plain values, with each anchored value's size computed once: linear in the document.
 *
 * Recursive: called only on documents within SCENARIO_LIMITS.maxDepth (limits.ts).
 */
import { isAlias, isCollection, isPair, isScalar } from 'yaml'
import { SCENARIO_LIMITS } from './limits.js'

export type AliasProblem =
  /** anchors and aliases together pass `maxAnchorsAndAliases` at this one */
  | { readonly kind: 'too-many-names'; readonly name: string; readonly offset: number }
  /** the values aliases stand for pass `maxAliasedValues` at this alias */
  | { readonly kind: 'too-many-values'; readonly name: string; readonly offset: number; readonly values: number }
  /** the alias is inside the value it refers to */
  | { readonly kind: 'cycle'; readonly name: string; readonly offset: number }
  /** no anchor of that name comes before the alias */
  | { readonly kind: 'unknown'; readonly name: string; readonly offset: number }

export interface AliasLimits {
  readonly maxAnchorsAndAliases: number
  readonly maxAliasedValues: number
}

/**
 * The first anchor or alias problem in document order, or undefined. A value counts 1 (a scalar,
 * a list, a mapping; a mapping's keys count too), and an alias counts every value of what it
 * refers to.
 */
export function aliasProblem(root: unknown, limits: AliasLimits = SCENARIO_LIMITS): AliasProblem | undefined {
  /** the latest anchor of each name; `size` is unset while the walk is inside its value */
  const anchors = new Map<string, { size?: number }>()
  let names = 0
  let repeated = 0
  let problem: AliasProblem | undefined

  const walk = (node: unknown): number => {
    if (problem !== undefined) return 0
    if (isAlias(node)) {
      const name = node.source
      const offset = node.range?.[0] ?? 0
      const anchor = anchors.get(name)
      if (++names > limits.maxAnchorsAndAliases) problem = { kind: 'too-many-names', name: `*${name}`, offset }
      else if (anchor === undefined) problem = { kind: 'unknown', name, offset }
      else if (anchor.size === undefined) problem = { kind: 'cycle', name, offset }
      else if ((repeated += anchor.size) > limits.maxAliasedValues) problem = { kind: 'too-many-values', name, offset, values: repeated }
      return anchor?.size ?? 0
    }
    if (isPair(node)) return walk(node.key) + walk(node.value)
    if (!isScalar(node) && !isCollection(node)) return 0
    // An anchor is usable from its own start (yaml resolves `*a` to the latest `&a` before it),
    // so an alias inside the value finds it unfinished: a cycle.
    let anchor: { size?: number } | undefined
    if (node.anchor !== undefined) {
      if (++names > limits.maxAnchorsAndAliases) {
        problem = { kind: 'too-many-names', name: `&${node.anchor}`, offset: node.range?.[0] ?? 0 }
        return 0
      }
      anchor = {}
      anchors.set(node.anchor, anchor)
    }
    let size = 1
    if (isCollection(node)) for (const item of node.items) size += walk(item)
    if (anchor !== undefined) anchor.size = size
    return size
  }

  walk(root)
  return problem
}
