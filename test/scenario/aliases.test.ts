/** What aliases stand for: counted before the document becomes plain values. */
import { describe, expect, it } from 'vitest'
import { parseDocument } from 'yaml'
import { aliasProblem } from '../../src/scenario/aliases.js'
import { parseScenario } from '../../src/scenario/index.js'
import { billionLaughs, valid } from './helpers.js'

const problem = (text: string, limit = 10_000) => aliasProblem(parseDocument(text).contents, limit)

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
    // &a holds a list and its 9 items: 10 values; 1,000 aliases stand for 10,000.
    const text = (uses: number) => `a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: [${Array(uses).fill('*a').join(', ')}]\n`
    expect(problem(text(1000))).toBeUndefined()
    expect(problem(text(1001))).toEqual({ kind: 'too-many', name: 'a', offset: text(1001).lastIndexOf('*a'), values: 10_010 })
  })

  it('count aliases inside anchors at their full size', () => {
    // b = [a, a, a] = 1 + 3 * 3 values; three uses of *b stand for 30 values (plus 9 inside b itself).
    const text = 'a: &a [x, y]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n'
    expect(problem(text, 38)).toEqual({ kind: 'too-many', name: 'b', offset: text.lastIndexOf('*b'), values: 39 })
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
    expect(problem(billionLaughs())).toMatchObject({ kind: 'too-many', name: 'd' })
  })

  it('are also held to the yaml package own count, whose failure is a problem too', () => {
    // 5,000 uses of *u pass this count, but the package multiplies them into each use of *t.
    const text = `description: x\nu: &u 1\nv: [${Array(5000).fill('*u').join(', ')}]\nt: &t [*u]\nw: [*t, *t]\n`
    expect(problem(text)).toBeUndefined()
    const result = parseScenario(text, 'x.yaml')
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({ code: 'FSC_ALIAS', line: null, message: 'Excessive alias count indicates a resource exhaustion attack; use fewer aliases (*name)' })
    ])
  })
})
