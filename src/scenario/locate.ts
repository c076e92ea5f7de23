/**
 * Positions of YAML nodes by document path, so problems found on the plain value can name
 * the line and column they come from.
 */
import { isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml'
import { formatPath, type Path } from './check.js'

export interface Position {
  readonly line: number
  readonly column: number
}

export interface Locator {
  /** the value at `path`, or its key when `atKey`; falls back to the nearest ancestor */
  locate(path: Path, atKey: boolean): Position | null
}

export function yamlLocator(root: Node | null, lines: LineCounter): Locator {
  const values = new Map<string, number>()
  const keys = new Map<string, number>()
  const walk = (node: unknown, path: Path): void => {
    if (node === null || typeof node !== 'object') return
    const range = (node as Node).range
    if (range) values.set(formatPath(path), range[0])
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key)
        const child = [...path, key]
        const keyRange = (pair.key as Node | null)?.range
        if (keyRange) keys.set(formatPath(child), keyRange[0])
        walk(pair.value, child)
        // A key with no value (`stages:`) has no range of its own: point at the key.
        if (!values.has(formatPath(child)) && keyRange) values.set(formatPath(child), keyRange[0])
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...path, i]))
    }
  }
  walk(root, [])
  const position = (offset: number): Position => {
    const { line, col } = lines.linePos(offset)
    return { line, column: col }
  }
  return {
    locate(path, atKey) {
      for (let n = path.length; n >= 0; n--) {
        const p = formatPath(path.slice(0, n))
        const offset = (n === path.length && atKey ? keys.get(p) : undefined) ?? values.get(p)
        if (offset !== undefined) return position(offset)
      }
      return null
    }
  }
}

export const NO_POSITIONS: Locator = { locate: () => null }
