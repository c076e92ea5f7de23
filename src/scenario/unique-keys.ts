/**
 * Keys as the property names they become: written twice in one mapping, or written as a number
 * that names something else.
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

export interface DuplicateKey {
  readonly key: string
  /** where the second occurrence starts */
  readonly offset: number
  /** where the first one starts */
  readonly firstOffset: number
}

/** Every key that repeats an earlier key of its mapping (the caller puts them in document order). */
export function duplicateKeys(root: unknown): DuplicateKey[] {
  const found: DuplicateKey[] = []
  eachMap(root, (map) => {
    const seen = new Map<string, number>()
    for (const item of map.items) {
      if (!isScalar(item.key)) continue
      const key = String(item.key.value)
      const offset = item.key.range?.[0] ?? 0
      const first = seen.get(key)
      if (first === undefined) seen.set(key, offset)
      else found.push({ key, offset, firstOffset: first })
    }
  })
  return found
}

export interface RewrittenKey {
  /** the key as written */
  readonly written: string
  /** the property name it becomes */
  readonly read: string
  /** what the key was read as: a number, or another plain value (`~` is null) */
  readonly as: 'number' | 'value'
  readonly offset: number
}

/**
 * Keys written as a number (or another plain value) whose property name is not what was written:
 * `6.40` becomes "6.4", `0x10` "16". A mix keyed by versions (`versions: { 6.40: 1 }`) ran the
 * fleet at version "6.4" without a word, where a value written so is refused (check.ts).
 */
export function rewrittenKeys(root: unknown, text: string): RewrittenKey[] {
  const found: RewrittenKey[] = []
  eachMap(root, (map) => {
    for (const item of map.items) {
      if (!isScalar(item.key) || typeof item.key.value === 'string' || item.key.range === undefined || item.key.range === null) continue
      const [start, end] = item.key.range
      const written = text.slice(start, end)
      const read = String(item.key.value)
      // `<<`, a merge key (load.ts reads them), is no property name at all.
      if (written !== read && written !== '<<') found.push({ written, read, as: typeof item.key.value === 'number' ? 'number' : 'value', offset: start })
    }
  })
  return found
}

export interface CollectionKey {
  readonly kind: 'list' | 'mapping'
  readonly offset: number
}

/**
 * Keys written as a list or a mapping (`{[a, b]: 1}`, `? {x: 1}`): the loader made them text,
 * `[ a, b ]`, and a mix keyed by them ran the fleet at version "[ a, b ]" without a word.
 */
export function collectionKeys(root: unknown): CollectionKey[] {
  const found: CollectionKey[] = []
  eachMap(root, (map) => {
    for (const item of map.items) {
      if (isCollection(item.key)) found.push({ kind: isMap(item.key) ? 'mapping' : 'list', offset: item.key.range?.[0] ?? 0 })
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
