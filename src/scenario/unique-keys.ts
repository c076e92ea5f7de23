/**
 * Keys as the property names they become: written twice in one mapping, written as a number
 * that names something else, or written as a list or a mapping. One walk finds all three.
 *
 * Keys written twice: the yaml package can refuse them itself (`uniqueKeys`), but
 * it compares each new key with every key before it: time quadratic in the keys of a mapping,
 * and a 1 MiB upload holds tens of thousands. Here each mapping keeps a map of the keys it has.
 *
 * Keys are compared as the property names they become (`1` and `"1"` are the same key), which
 * is what the rest of the loader reads. Recursive: called only on documents within
 * SCENARIO_LIMITS.maxDepth (limits.ts).
 */
import { isCollection, isMap, isPair, isScalar, type YAMLMap } from 'yaml'

/** A key that is not the property name it looks like, where it starts (`offset`). */
export type KeyProblem =
  /** it repeats an earlier key of its mapping, which starts at `firstOffset` */
  | { readonly kind: 'duplicate'; readonly key: string; readonly offset: number; readonly firstOffset: number }
  /**
   * written as a number (or another plain value) whose property name is not what was written:
   * `6.40` becomes "6.4", `0x10` "16". A mix keyed by versions (`versions: { 6.40: 1 }`) ran the
   * fleet at version "6.4" without a word, where a value written so is refused (check.ts)
   */
  | { readonly kind: 'rewritten'; readonly written: string; readonly read: string; readonly as: 'number' | 'value'; readonly offset: number }
  /** written as a list or a mapping (`{[a, b]: 1}`): the loader made it text, and `[ a, b ]` ran as a version */
  | { readonly kind: 'collection'; readonly shape: 'list' | 'mapping'; readonly offset: number }

/** Every key problem of the document, mapping by mapping (the caller puts them in document order). */
export function keyProblems(root: unknown, text: string): KeyProblem[] {
  const found: KeyProblem[] = []
  eachMap(root, (map) => {
    const seen = new Map<string, number>()
    for (const { key } of map.items) {
      if (isCollection(key)) {
        found.push({ kind: 'collection', shape: isMap(key) ? 'mapping' : 'list', offset: key.range?.[0] ?? 0 })
        continue
      }
      if (!isScalar(key)) continue
      const offset = key.range?.[0] ?? 0
      const name = String(key.value)
      const first = seen.get(name)
      if (first === undefined) seen.set(name, offset)
      else found.push({ kind: 'duplicate', key: name, offset, firstOffset: first })
      if (typeof key.value === 'string' || key.range === undefined || key.range === null) continue
      const written = text.slice(key.range[0], key.range[1])
      // `<<`, a merge key (load.ts reads them), is no property name at all.
      if (written !== name && written !== '<<') found.push({ kind: 'rewritten', written, read: name, as: typeof key.value === 'number' ? 'number' : 'value', offset })
    }
  })
  return found
}

/** Calls `visit` with every mapping under `root`, each before those inside it. */
function eachMap(root: unknown, visit: (map: YAMLMap) => void): void {
  const walk = (node: unknown): void => {
    if (isPair(node)) {
      walk(node.key)
      walk(node.value)
      return
    }
    if (!isCollection(node)) return
    if (isMap(node)) visit(node)
    for (const item of node.items) walk(item)
  }
  walk(root)
}
