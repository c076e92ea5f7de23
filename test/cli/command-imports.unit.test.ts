import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const DIR = 'src/commands'

/** The modules of src/commands each one imports, statically, as a type or dynamically. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(DIR, file), 'utf8')
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'\.\/([\w-]+)\.js'/g)].map((match) => `${match[1]}.ts`)
  return [...new Set(found)]
}

/** One cycle as a path `a.ts → b.ts → a.ts`, or undefined. */
function findCycle(graph: Map<string, string[]>): string | undefined {
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (node: string): string | undefined => {
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node].join(' → ')
    if (state.get(node) === 'done') return undefined
    state.set(node, 'open')
    path.push(node)
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next)
      if (cycle !== undefined) return cycle
    }
    path.pop()
    state.set(node, 'done')
    return undefined
  }
  for (const node of graph.keys()) {
    const cycle = visit(node)
    if (cycle !== undefined) return cycle
  }
  return undefined
}

describe('the modules of src/commands', () => {
  it('import one another without a cycle, counting type-only and dynamic imports', () => {
    const files = readdirSync(DIR).filter((file) => file.endsWith('.ts'))
    const graph = new Map(files.map((file) => [file, importsOf(file)]))
    expect(graph.get('table.ts')).toContain('serve.ts')
    expect(findCycle(graph)).toBeUndefined()
  })
})
