/**
 * Keys written twice in one mapping. The yaml package can refuse them itself (`uniqueKeys`), but
 * it compares each new key with every key before it: time quadratic in the keys of a mapping,
 * and a 1 MiB upload holds tens of thousands. Here each mapping keeps a map of the keys it has.
 *
 * Keys are compared as the property names they become (`1` and `"1"` are the same key), which
 * is what the rest of the loader reads. Recursive: called only on documents within
 * SCENARIO_LIMITS.maxDepth (limits.ts).
 */
import { isCollection, isMap, isPair, isScalar } from 'yaml'

export interface DuplicateKey {
  readonly key: string
  /** where the second occurrence starts */
  readonly offset: number
  /** where the first one starts */
  readonly firstOffset: number
}

/** Every key that repeats an earlier key of its mapping, in document order. */
export function duplicateKeys(root: unknown): DuplicateKey[] {
  const found: DuplicateKey[] = []
  const walk = (node: unknown): void => {
    if (isPair(node)) {
      walk(node.key)
      walk(node.value)
      return
    }
    if (!isCollection(node)) return
    const seen = isMap(node) ? new Map<string, number>() : undefined
    for (const item of node.items) {
      if (seen !== undefined && isPair(item) && isScalar(item.key)) {
        const key = String(item.key.value)
        const offset = item.key.range?.[0] ?? 0
        const first = seen.get(key)
        if (first === undefined) seen.set(key, offset)
        else found.push({ key, offset, firstOffset: first })
      }
      walk(item)
    }
  }
  walk(root)
  return found
}
