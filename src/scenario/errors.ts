/**
 * The catalogue of scenario problems. Each has a stable code (match on the code, never on the
 * text) and a one-line summary; docs/scenarios.md lists the same codes, and a test keeps the
 * two in step.
 */

export const SCENARIO_ERROR_CODES = {
  FSC_READ: 'the file cannot be read',
  FSC_ENCODING: 'the file is not UTF-8 text',
  FSC_TOO_LARGE: 'the text is larger than a scenario may be',
  FSC_TOO_DEEP: 'lists and mappings nest deeper than a scenario may',
  FSC_YAML: 'the text is not valid YAML (including duplicate keys)',
  FSC_ALIAS: 'an alias has no anchor before it, is inside the value it refers to, or aliases stand for too many values',
  FSC_TYPE: 'a value has the wrong type (for example a list where a mapping belongs)',
  FSC_UNKNOWN_KEY: 'a key the schema does not know, with a suggestion when one is close',
  FSC_MISSING: 'a required key is missing',
  FSC_DURATION: 'a duration is not like "500ms", "30s", "5m", "2h", "1d" or a number of seconds',
  FSC_RATE: 'a rate is not like "3/h" or "0.5/m"',
  FSC_ENUM: 'a value is not one of the allowed names, with a suggestion when one is close',
  FSC_WEIGHT: 'a weight is not a number greater than 0',
  FSC_FRACTION: 'a fraction or probability is not between 0 and 1',
  FSC_NUMBER: 'a number is not an integer, or is out of its range',
  FSC_SUM: 'fractions that share one population add up to more than 1',
  FSC_CONFLICT: 'keys that exclude each other are given together',
  FSC_NOT_ALLOWED: 'a key or action is not allowed in this place',
  FSC_DUPLICATE: 'a name is used twice where names must be unique',
  FSC_REFERENCE: 'a name refers to something the scenario does not define',
  FSC_FORMAT: 'a string does not have the expected form (for example a label "name=value")',
  FSC_UNSUPPORTED: 'more stages, labels, operating systems or versions than the engine holds (16 stages; 31 of each of the others), or a module set of more than 6 modules',
  FSC_MORE: 'more problems than are listed: the first ones are, this one counts the rest'
} as const

export type ScenarioErrorCode = keyof typeof SCENARIO_ERROR_CODES

/** One problem found in a scenario. */
export interface ScenarioIssue {
  readonly code: ScenarioErrorCode
  /** the file or source name */
  readonly file: string
  /** path inside the document, e.g. `stages[2].next[0].action` ('' for the whole document) */
  readonly path: string
  /** 1-based; null when the position is unknown (for example JSON input) */
  readonly line: number | null
  readonly column: number | null
  /** the rule and what was found, e.g. `expected a duration like "30s", "5m" or "1h30m" (units largest first, each once), got "soon"` */
  readonly message: string
  /** FSC_MORE only: how many problems it stands for, not listed */
  readonly unlisted?: number
}

/** How many problems `issues` report: each one, and those an FSC_MORE counts. */
export function problemCount(issues: readonly ScenarioIssue[]): number {
  return issues.reduce((n, issue) => n + (issue.unlisted ?? 1), 0)
}

/** `scenarios/x.yaml:14:9 stages[2].delay.after: expected ..., got ...` */
export function formatIssue(issue: ScenarioIssue): string {
  const where = issue.line === null ? issue.file : `${issue.file}:${issue.line}:${issue.column ?? 1}`
  return issue.path === '' ? `${where} ${issue.message}` : `${where} ${issue.path}: ${issue.message}`
}

/** Thrown by the loader's throwing variant; carries every issue, not just the first. */
export class ScenarioError extends Error {
  readonly code = 'FSC_INVALID'
  constructor(readonly issues: readonly ScenarioIssue[]) {
    super(`invalid scenario:\n${issues.map(formatIssue).join('\n')}`)
    this.name = 'ScenarioError'
  }
}
