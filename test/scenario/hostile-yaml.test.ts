/**
 * Regressions: scenario texts that crashed the process or escaped as exceptions from the YAML
 * parser (issue 13, finding 3) are problems like any other, found before the parser recurses.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { formatIssue, loadScenarioFile, parseScenario, type ScenarioIssue } from '../../src/scenario/index.js'
import { billionLaughs } from './helpers.js'

/** The issues of text that must be refused (an exception fails the test, as it did before). */
function refused(text: string): readonly ScenarioIssue[] {
  const result = parseScenario(text, 'hostile.yaml')
  expect(result.ok, 'expected the scenario to be refused').toBe(false)
  return result.ok ? [] : result.issues
}

const dir = await mkdtemp(join(tmpdir(), 'fleetsim-hostile-'))
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('YAML tags and merge keys', () => {
  it('refuses a tag other than the core schema\'s at its place, where it was dropped without a word or made a Date', () => {
    const issues = refused('description: !vault hello\nfleet: { agents: !ENV 10, seed: !!timestamp 2020-01-01 }\n')
    expect(issues.map((issue) => [issue.code, issue.line, formatIssue(issue).includes('is not read here')])).toEqual([
      ['FSC_YAML', 1, true],
      ['FSC_YAML', 2, true],
      ['FSC_YAML', 2, true]
    ])
    expect(formatIssue(issues[0])).toContain('the tag !vault is not read here')
    expect(formatIssue(issues[2])).toContain('the tag !!timestamp is not read here')
    // The core schema's tags say what plain YAML would.
    expect(parseScenario('description: !!str core tags\nfleet: { agents: !!int 10, seed: 1 }\n', 'tags.yaml').ok).toBe(true)
  })

  it('reads a key without a value as nothing, at its place, where the tag check threw without a line', () => {
    const flow = refused('description: x\nstages:\n  - { rate: 1/h, next }\n')
    expect(flow.map(formatIssue)).toEqual(['hostile.yaml:3:18 stages[0].next: expected an action name, an {action: ...} mapping or a list of them, got nothing'])
    const explicit = refused('description: x\n? fleet\n')
    expect(explicit.map(formatIssue)).toEqual(['hostile.yaml:2:3 fleet: expected a mapping, got nothing'])
  })

  it('refuses a key written as a number that names something else than was written (6.40 is "6.4"), and leaves the others alone', () => {
    const issues = refused('description: x\nfleet:\n  versions: { 6.40: 1, "6.5": 1, 7: 1, 0x10: 1 }\n  os: { ~: 1 }\n')
    expect(issues.map(formatIssue)).toEqual([
      'hostile.yaml:3:15 invalid YAML: the key 6.40 is read as the number 6.4, so it names "6.4", not "6.40"; quote it ("6.40") to keep it as written',
      'hostile.yaml:3:40 invalid YAML: the key 0x10 is read as the number 16, so it names "16", not "0x10"; quote it ("0x10") to keep it as written',
      'hostile.yaml:4:9 invalid YAML: the key ~ is read as the value null, so it names "null", not "~"; quote it ("~") to keep it as written'
    ])
  })

  it('refuses a key written as a list or a mapping at its place, which was made text ("[ a, b ]" ran as a version)', () => {
    const issues = refused('description: x\nfleet:\n  versions: {[a, b]: 1}\n  os: {{x: 1}: 1}\n? [top]\n: 1\n')
    expect(issues.map(formatIssue)).toEqual([
      'hostile.yaml:3:14 invalid YAML: a key here is a list, where keys are names; write the name as text',
      'hostile.yaml:4:8 invalid YAML: a key here is a mapping, where keys are names; write the name as text',
      'hostile.yaml:5:3 invalid YAML: a key here is a list, where keys are names; write the name as text'
    ])
  })

  it('says an empty mix is empty, where it was told "expected a mapping …, got a mapping"', () => {
    expect(refused('description: x\nfleet:\n  versions: {}\n').map(formatIssue)).toEqual([
      'hostile.yaml:3:13 fleet.versions: expected a mapping of names to weights, or one name, got an empty mapping; name at least one, or leave the key out for the default'
    ])
  })

  it('reads merge keys, as YAML 1.1 and most YAML users write a shared part once', () => {
    const text = 'description: merged\nfleet:\n  agents: 10\n  labels:\n    - &base { name: site, value: paris, fraction: 0.5 }\n    - <<: *base\n      value: berlin\n      fraction: 0.3\n'
    const result = parseScenario(text, 'merge.yaml')
    expect(result.ok, JSON.stringify(result)).toBe(true)
    if (result.ok) expect(result.scenario.fleet.labels.map((label) => [label.name, label.value, label.fraction])).toEqual([['site', 'paris', 0.5], ['site', 'berlin', 0.3]])
  })
})

describe('scenario text the YAML parser cannot safely read', () => {
  it('refuses 10,000 nested flow lists every time, where the second parse used to end the process', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`
    for (let i = 0; i < 3; i++) {
      const issues = refused(deep)
      expect(issues).toHaveLength(1)
      expect(issues[0]).toMatchObject({ code: 'FSC_TOO_DEEP', line: 1, column: 65 })
      expect(formatIssue(issues[0])).toMatch(/^hostile\.yaml:1:65 lists and mappings nest more than 64 levels deep here .*flatten the structure/)
    }
  })

  it('keeps the process alive when `scenario validate` reads a 10,000-deep file three times, where it aborted at the second', async () => {
    // In its own process: the old failure was V8 aborting, which no test can catch in-process.
    const file = join(dir, 'deep-flow.yaml')
    await writeFile(file, `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`)
    const failure = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'scenario', 'validate', file, file, file]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error
    )
    expect(failure.code).toBe(1)
    expect(failure.stderr.split('\n').filter((line) => line.startsWith(`FAIL ${file}: 1 problem`))).toHaveLength(3)
    expect(failure.stderr).toContain(`${file}:1:65 lists and mappings nest more than 64 levels deep here`)
  })

  it('refuses 10,000 nested flow mappings', () => {
    expect(refused(`${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}`)[0].code).toBe('FSC_TOO_DEEP')
  })

  it('refuses 10,000 block lists on one line', () => {
    for (let i = 0; i < 3; i++) expect(refused(`${'- '.repeat(10_000)}x\n`)[0]).toMatchObject({ code: 'FSC_TOO_DEEP', line: 1, column: 129 })
  })

  it('refuses block mappings indented 1,000 levels deep', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')
    for (let i = 0; i < 3; i++) expect(refused(`${text} x\n`)[0]).toMatchObject({ code: 'FSC_TOO_DEEP', line: 65 })
  })

  it('refuses an alias bomb at the alias where the repeated values pass the limit, where it threw', () => {
    const issues = refused(billionLaughs())
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({ code: 'FSC_ALIAS', line: 6 })
    expect(issues[0].message).toMatch(/^with alias \*d, aliases stand for \d+ values, more than the 10000 a scenario may repeat .*use fewer aliases/)
  })

  it('refuses an alias with no anchor, where it threw', () => {
    const issues = refused('description: x\nfleet: *nowhere\n')
    expect(issues).toEqual([
      expect.objectContaining({ code: 'FSC_ALIAS', line: 2, column: 8, message: 'alias *nowhere has no anchor &nowhere before it; put the anchor on an earlier value (an alias only refers back)' })
    ])
  })

  it('refuses a text larger than 1 MiB before parsing it', () => {
    const text = `description: big\n# ${'x'.repeat(1024 * 1024)}\n`
    const issues = refused(text)
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({ code: 'FSC_TOO_LARGE', line: null })
    expect(issues[0].message).toBe(
      `the scenario is ${text.length} bytes, more than the 1048576 bytes (1 MiB) a scenario may have; shorten it: repeated stages or timeline events can usually be one entry with a pick or an "every" schedule`
    )
  })

  it('refuses a file larger than 1 MiB, and a deep one, with the file name', async () => {
    const big = join(dir, 'big.yaml')
    await writeFile(big, `description: big\n# ${'x'.repeat(2 * 1024 * 1024)}\n`)
    const bigResult = await loadScenarioFile(big)
    expect(bigResult.ok ? [] : bigResult.issues).toEqual([expect.objectContaining({ code: 'FSC_TOO_LARGE', file: big })])
    const deep = join(dir, 'deep.yaml')
    await writeFile(deep, `description: deep\nfleet: ${'['.repeat(10_000)}\n`)
    const deepResult = await loadScenarioFile(deep)
    expect(deepResult.ok ? [] : deepResult.issues.map(formatIssue)).toEqual([expect.stringMatching(new RegExp(`^${deep}:2:71 lists and mappings nest more than 64 levels`))])
  })

  it.skipIf(!existsSync('/dev/zero'))('reads an endless file only one byte past the limit', async () => {
    const result = await loadScenarioFile('/dev/zero')
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({ code: 'FSC_TOO_LARGE', file: '/dev/zero', message: expect.stringMatching(/^the scenario is more than the 1048576 bytes \(1 MiB\)/) })
    ])
  })

  it('lists the first 100 problems and counts the rest, where 1 MiB of unknown keys listed every one', () => {
    const text = `description: x\n${Array.from({ length: 150 }, (_, i) => `k${i}: 1`).join('\n')}\n`
    const issues = refused(text)
    expect(issues).toHaveLength(101)
    expect(issues[99]).toMatchObject({ code: 'FSC_UNKNOWN_KEY', path: 'k99', line: 101 })
    expect(issues[100]).toEqual({ code: 'FSC_MORE', file: 'hostile.yaml', path: '', line: null, column: null, message: 'and 50 more problems, not listed; fix the ones above and check the scenario again', unlisted: 50 })
  })

  it('treats keys that become the same property name as duplicates, which the last one silently won', () => {
    const issues = refused('description: x\nfleet:\n  templates: { 10: 0.5, "10": 0.25 }\n')
    expect(issues).toEqual([
      expect.objectContaining({ code: 'FSC_YAML', line: 3, column: 25, message: 'invalid YAML: the key "10" is already in this mapping at line 3; keep one of the two' })
    ])
  })
})
