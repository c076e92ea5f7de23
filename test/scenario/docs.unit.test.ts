import { describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { parseDocument } from 'yaml'
import { SCENARIO_ERROR_CODES, formatIssue, parseScenario } from '../../src/scenario/index.js'
import { TOP_KEYS } from '../../src/scenario/document.js'

const docs = await readFile(new URL('../../docs/scenarios.md', import.meta.url), 'utf8')
const blocks = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1])

/** Examples that are whole scenarios or top-level sections of one. */
const topLevel = blocks.filter((b) => {
  const parsed = parseDocument(b)
  if (parsed.errors.length > 0) return false // e.g. the block that shows three forms of `next`
  const value: unknown = parsed.toJS()
  return typeof value === 'object' && value !== null && Object.keys(value).every((k) => (TOP_KEYS as readonly string[]).includes(k))
})

describe('docs/scenarios.md', () => {
  it('documents every error code of the catalogue, and no other', () => {
    for (const code of Object.keys(SCENARIO_ERROR_CODES)) expect(docs).toContain(`| \`${code}\` |`)
    const documented = [...docs.matchAll(/\| `(FSC_[A-Z_]+)` \|/g)].map((m) => m[1])
    expect(documented.sort()).toEqual(Object.keys(SCENARIO_ERROR_CODES).sort())
  })

  it('has top-level examples', () => {
    expect(topLevel.length).toBeGreaterThanOrEqual(3)
  })

  it.each(topLevel.map((b, i) => [i, b]))('top-level example %i is valid', (_i, block) => {
    const text = /^description:/m.test(block) ? block : `description: docs example\n${block}`
    const result = parseScenario(text, 'docs example')
    expect(result.ok ? [] : result.issues.map(formatIssue)).toEqual([])
  })
})
