/** The conformance results as a terminal table and as JUnit XML (for CI test reports). */
import type { CheckResult } from './suite.js'

const MARK = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const

/** The width of the id column for checks of these ids (all known before any runs). */
export function idWidth(ids: readonly string[]): number {
  return Math.max(...ids.map((id) => id.length), 5)
}

/** One check's line (and its message under it), as the table has it: printed as the check ends. */
export function formatLine(r: CheckResult, width: number): string {
  const line = `${MARK[r.status]}  ${r.id.padEnd(width)}  ${r.title} (${r.ms} ms)`
  return r.message === '' ? line : `${line}\n${' '.repeat(width + 8)}${r.message}`
}

/** The line that ends the table: how many passed, failed and were skipped. */
export function formatSummary(results: readonly CheckResult[]): string {
  const count = (status: CheckResult['status']) => results.filter((r) => r.status === status).length
  return `${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`
}

export function formatTable(results: readonly CheckResult[]): string {
  const width = idWidth(results.map((r) => r.id))
  return `${results.map((r) => formatLine(r, width)).join('\n')}\n\n${formatSummary(results)}\n`
}

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export function formatJunit(results: readonly CheckResult[], target: string): string {
  const failures = results.filter((r) => r.status === 'fail').length
  const skipped = results.filter((r) => r.status === 'skip').length
  const seconds = (ms: number) => (ms / 1000).toFixed(3)
  const total = results.reduce((sum, r) => sum + r.ms, 0)
  const cases = results.map((r) => {
    const open = `    <testcase classname="fleetsim.conformance" name="${escape(r.id)}: ${escape(r.title)}" time="${seconds(r.ms)}"`
    if (r.status === 'pass') return `${open}/>`
    const inner = r.status === 'fail' ? `<failure message="${escape(r.message)}"/>` : `<skipped message="${escape(r.message)}"/>`
    return `${open}>${inner}</testcase>`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${seconds(total)}">
  <testsuite name="fleetsim conformance (${escape(target)})" tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${seconds(total)}">
${cases.join('\n')}
  </testsuite>
</testsuites>
`
}
