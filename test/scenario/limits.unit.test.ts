/** The checks on a scenario's text before the YAML parser builds anything: nesting and size. */
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { libraryFiles } from '../../src/scenario/index.js'
import { SCENARIO_LIMITS, checkText, nesting } from '../../src/scenario/limits.js'

describe('the nesting depth of a scenario text', () => {
  it.each([
    ['a scalar', 'just text', 0],
    ['a mapping', 'a: 1\nb: 2\n', 1],
    ['flow lists', '[[[x]]]', 3],
    ['flow mappings', '{a: {b: {c: x}}}', 3],
    ['block lists on one line', '- - - x\n', 3],
    ['indented block mappings', 'a:\n  b:\n    c: x\n', 3],
    ['a list under a key at the same indentation', 'a:\n- b:\n  - c\n', 4],
    ['flow inside block', 'a: [ {b: [x]} ]\n', 4]
  ])('counts %s', (_what, text, depth) => {
    expect(nesting(text).depth).toBe(depth)
  })

  it.each([
    ['double-quoted strings', 'a: "[[[[ {{{{ ]]"\n'],
    ['single-quoted strings', "a: '[[[[ it''s {{{{'\n"],
    ['plain scalars', 'a: x [[[[ {{{{\n'],
    ['comments', 'a: 1 # [[[[ {{{{\n'],
    ['block scalars', 'a: |\n  [[[[ {{{{\n  "\nb: 2\n']
  ])('does not count brackets in %s', (_what, text) => {
    expect(nesting(text).depth).toBe(1)
  })

  it('is not fooled by a quote inside a plain scalar that hides real brackets in a naive scan', () => {
    // A scan that took the first ' for the start of a quoted string would skip the list.
    expect(nesting("a: don't\nb: [[[[x]]]]\nc: '\n").depth).toBe(5)
  })

  it('stops at the first level past the limit and says where it opened', () => {
    expect(nesting(`${'['.repeat(10_000)}${']'.repeat(10_000)}`, 64)).toEqual({ depth: 65, offset: 64 })
  })

  it('lets the library scenarios through with room to spare', async () => {
    for (const file of await libraryFiles()) expect(nesting(await readFile(file, 'utf8')).depth, file).toBeLessThan(10)
  })
})

describe('checking a scenario text before parsing', () => {
  const nested = (levels: number) => `description: x\nname: ${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}\n`

  it('lets 64 levels through, the top mapping being the first', () => {
    expect(checkText(nested(64), 'x.yaml')).toBeUndefined()
  })

  it('refuses 65 levels at the line and column of the 65th', () => {
    expect(checkText(nested(65), 'x.yaml')).toEqual({
      code: 'FSC_TOO_DEEP',
      file: 'x.yaml',
      path: '',
      line: 2,
      column: 70,
      message: 'lists and mappings nest more than 64 levels deep here (a scenario needs only a few); flatten the structure, or close a "[" or "{" left open before this point'
    })
  })

  it('lets a text of exactly 1 MiB through and refuses one byte more', () => {
    const at = (bytes: number) => `description: x\n#${'x'.repeat(bytes - 16)}`
    expect(Buffer.byteLength(at(SCENARIO_LIMITS.maxBytes))).toBe(SCENARIO_LIMITS.maxBytes)
    expect(checkText(at(SCENARIO_LIMITS.maxBytes), 'x.yaml')).toBeUndefined()
    expect(checkText(at(SCENARIO_LIMITS.maxBytes + 1), 'x.yaml')).toMatchObject({ code: 'FSC_TOO_LARGE', message: expect.stringMatching(/^the scenario is 1048577 bytes, more than the 1048576 bytes/) })
  })

  it('counts the size in bytes of UTF-8, not in characters', () => {
    const text = `description: x\n#${'é'.repeat(SCENARIO_LIMITS.maxBytes / 2)}`
    expect(text.length).toBeLessThan(SCENARIO_LIMITS.maxBytes)
    expect(checkText(text, 'x.yaml')?.code).toBe('FSC_TOO_LARGE')
  })

  it('are the limits docs/limits.md lists', async () => {
    const docs = await readFile(new URL('../../docs/limits.md', import.meta.url), 'utf8')
    const row = (what: string) => docs.split('\n').find((line) => line.startsWith(`| ${what}`)) ?? ''
    expect(row('scenario text')).toContain(`| ${SCENARIO_LIMITS.maxBytes} bytes (1 MiB)`)
    expect(row('scenario nesting')).toContain(`| ${SCENARIO_LIMITS.maxDepth} levels |`)
    expect(row('scenario anchors')).toContain(`| ${SCENARIO_LIMITS.maxAnchorsAndAliases} |`)
    expect(row('scenario aliases')).toContain(`| ${SCENARIO_LIMITS.maxAliasedValues} values |`)
    expect(row('scenario problems listed')).toContain(`| ${SCENARIO_LIMITS.maxListedProblems} |`)
  })
})
