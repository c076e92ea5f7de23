/** What aliases stand for: counted before the document becomes plain values. */
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { aliasProblem } from '../../src/scenario/aliases.js'
import { parseScenario } from '../../src/scenario/index.js'
import { billionLaughs, valid } from './helpers.js'

const problem = (text: string, maxAliasedValues = 10_000, maxAnchorsAndAliases = 1000) => aliasProblem(parseDocument(text).contents, { maxAliasedValues, maxAnchorsAndAliases })

describe('aliases in a scenario', () => {
  it('may share a part between stages', () => {
    const scenario = valid(`description: shared selector
stages:
  - { name: a, select: &linux { os: Linux, state: ONLINE }, rate: 1/h, next: offline }
  - { name: b, select: *linux, rate: 2/h, next: error }
`)
    expect(scenario.stages.map((s) => s.select)).toEqual([scenario.stages[0].select, scenario.stages[0].select])
  })

  it('count every value of what they refer to, as if written out', () => {
    // &a holds a list and its 9 items: 10 values; 100 aliases stand for 1,000.
    const text = (uses: number) => `a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: [${Array(uses).fill('*a').join(', ')}]\n`
    expect(problem(text(100), 1000)).toBeUndefined()
    expect(problem(text(101), 1000)).toEqual({ kind: 'too-many-values', name: 'a', offset: text(101).lastIndexOf('*a'), values: 1010 })
  })

  it('may be 1,000 with their anchors, and no more', () => {
    // The yaml package scans every anchor and alias before an alias to resolve it.
    const text = (anchors: number, aliases: number) =>
      `${Array.from({ length: anchors }, (_, i) => `- &a${i} x`).join('\n')}\n${Array(aliases).fill(`- *a${anchors - 1}`).join('\n')}\n`
    expect(problem(text(500, 500))).toBeUndefined()
    expect(problem(text(500, 501))).toEqual({ kind: 'too-many-names', name: '*a499', offset: text(500, 501).lastIndexOf('*a499') })
    expect(problem(text(1001, 0))).toMatchObject({ kind: 'too-many-names', name: '&a1000' })
    const result = parseScenario(`description: x\nfleet:\n  labels:\n${text(1001, 0).replace(/^/gm, '    ')}`, 'x.yaml')
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({ code: 'FSC_ALIAS', line: 1004, message: '&a1000 makes more than the 1000 anchors (&name) and aliases (*name) a scenario may have; write values out, or share fewer of them' })
    ])
  })

  it('count aliases inside anchors at their full size', () => {
    // b = [a, a, a] = 1 + 3 * 3 values; three uses of *b stand for 30 values (plus 9 inside b itself).
    const text = 'a: &a [x, y]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n'
    expect(problem(text, 38)).toEqual({ kind: 'too-many-values', name: 'b', offset: text.lastIndexOf('*b'), values: 39 })
    expect(problem(text, 39)).toBeUndefined()
  })

  it('refer to the latest anchor of their name', () => {
    const text = 'a: &x [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: &x 1\nc: *x\n'
    expect(problem(text, 1)).toBeUndefined()
  })

  it('may not sit inside the value they refer to', () => {
    const text = 'description: &a [x, *a]\n'
    expect(problem(text)).toEqual({ kind: 'cycle', name: 'a', offset: text.indexOf('*a') })
    const result = parseScenario(text, 'x.yaml')
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({ code: 'FSC_ALIAS', line: 1, column: 21, message: 'alias *a is inside the value anchored &a, which would then contain itself without end; refer to a value outside it' })
    ])
  })

  it('must have an anchor before them', () => {
    expect(problem('a: *later\nb: &later 1\n')).toEqual({ kind: 'unknown', name: 'later', offset: 3 })
  })

  it('stop the billion laughs early', () => {
    expect(problem(billionLaughs())).toMatchObject({ kind: 'too-many-values', name: 'd' })
  })

  it('are also held to the yaml package own count, whose failure is a problem too', () => {
    // 541 values pass this count, but the package multiplies the 501 uses of *u into each use of *t.
    const text = `description: x\nu: &u 1\nv: [${Array(500).fill('*u').join(', ')}]\nt: &t [*u]\nw: [${Array(20).fill('*t').join(', ')}]\n`
    expect(problem(text)).toBeUndefined()
    const result = parseScenario(text, 'x.yaml')
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({ code: 'FSC_ALIAS', line: null, message: 'Excessive alias count indicates a resource exhaustion attack; use fewer aliases (*name)' })
    ])
  })
})
