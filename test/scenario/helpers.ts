import { expect } from 'vitest'
import { formatIssue, parseScenario, type Scenario, type ScenarioIssue } from '../../src/scenario/index.js'

/** Parses YAML text that must be valid. */
export function valid(text: string): Scenario {
  const result = parseScenario(text, 'test.yaml')
  if (!result.ok) throw new Error(`expected a valid scenario, got:\n${result.issues.map(formatIssue).join('\n')}`)
  return result.scenario
}

/** Parses YAML text that must be invalid; returns the issues. */
export function invalid(text: string): readonly ScenarioIssue[] {
  const result = parseScenario(text, 'test.yaml')
  expect(result.ok, 'expected the scenario to be rejected').toBe(false)
  return result.ok ? [] : result.issues
}

/** The one issue of an invalid scenario. */
export function onlyIssue(text: string): ScenarioIssue {
  const issues = invalid(text)
  expect(issues.map(formatIssue)).toHaveLength(1)
  return issues[0]
}

/** A minimal scenario with extra YAML appended. */
export function doc(rest: string): string {
  return `description: test scenario\n${rest}`
}

/** Nine levels of nine aliases each: 387,420,489 "lol"s once written out. */
export function billionLaughs(): string {
  const lines = ['description: laughs', 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
  const names = 'abcdefghi'
  for (let i = 1; i < names.length; i++) lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(`*${names[i - 1]}`).join(', ')}]`)
  return `${lines.join('\n')}\n`
}
