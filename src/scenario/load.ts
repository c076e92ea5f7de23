/**
 * Loading a scenario: text (YAML, which includes JSON) or a file, to the normalised and frozen
 * `Scenario`, or to every problem found, each with its file, path and line:column.
 */
import { readFile } from 'node:fs/promises'
import { basename, extname } from 'node:path'
import { LineCounter, parseDocument } from 'yaml'
import { Sink, formatPath } from './check.js'
import { readScenario } from './document.js'
import { ScenarioError, type ScenarioIssue } from './errors.js'
import { deepFreeze } from './freeze.js'
import { NO_POSITIONS, yamlLocator, type Locator } from './locate.js'
import type { Scenario } from './types.js'

export type LoadResult =
  | { readonly ok: true; readonly scenario: Scenario }
  | { readonly ok: false; readonly issues: readonly ScenarioIssue[] }

/** `scenarios/steady-fleet.yaml` → `steady-fleet` */
function nameOf(sourceName: string): string {
  return basename(sourceName, extname(sourceName)) || 'scenario'
}

function finish(value: unknown, sourceName: string, locator: Locator): LoadResult {
  const sink = new Sink()
  const scenario = readScenario(value, nameOf(sourceName), sourceName, sink)
  if (scenario !== undefined && sink.problems.length === 0) return { ok: true, scenario: deepFreeze(scenario) }
  const issues = sink.problems.map((p): ScenarioIssue => {
    const at = locator.locate(p.path, p.atKey)
    return { code: p.code, file: sourceName, path: formatPath(p.path), line: at?.line ?? null, column: at?.column ?? null, message: p.message }
  })
  // Document order reads best; issues without a position keep their place at the end.
  const order = (i: ScenarioIssue) => (i.line ?? Infinity) * 1e6 + (i.column ?? 0)
  return { ok: false, issues: issues.map((issue, n) => ({ issue, n })).sort((a, b) => order(a.issue) - order(b.issue) || a.n - b.n).map((x) => x.issue) }
}

/** Parses YAML (or JSON) text; `sourceName` names it in messages and sets the default name. */
export function parseScenario(text: string, sourceName: string): LoadResult {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true })
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e): ScenarioIssue => {
      const pos = e.linePos?.[0]
      const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')
      const message = `invalid YAML: ${first}`
      return { code: 'FSC_YAML', file: sourceName, path: '', line: pos?.line ?? null, column: pos?.col ?? null, message }
    })
    return { ok: false, issues }
  }
  return finish(doc.toJS({ maxAliasCount: 1000 }), sourceName, yamlLocator(doc.contents, lines))
}

/** Checks an already parsed value (for example a JSON request body); no line numbers. */
export function checkScenarioValue(value: unknown, sourceName: string): LoadResult {
  return finish(value, sourceName, NO_POSITIONS)
}

export async function loadScenarioFile(path: string): Promise<LoadResult> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    const issue: ScenarioIssue = { code: 'FSC_READ', file: path, path: '', line: null, column: null, message: `cannot read the file (${reason})` }
    return { ok: false, issues: [issue] }
  }
  return parseScenario(text, path)
}

/** The scenario, or a thrown ScenarioError (code FSC_INVALID) listing every problem. */
export async function loadScenarioFileOrThrow(path: string): Promise<Scenario> {
  const result = await loadScenarioFile(path)
  if (!result.ok) throw new ScenarioError(result.issues)
  return result.scenario
}
