/**
 * The client report as text, for `fleetsim report` in a terminal (the HTML page is
 * report-html.ts). A view of the JSON report: it computes nothing new.
 */
import type { ClientReport, Finding, Outcome } from './report.js'
import { maxOf } from '../lib/extremes.js'


const OUTCOME_WORDS: Record<Outcome, string> = { pass: 'PASS', 'pass-with-warnings': 'PASS WITH WARNINGS', fail: 'FAIL' }
const LEVEL_MARKS: Record<Finding['level'], string> = { problem: '✗', warning: '!', note: '·' }

function table(rows: string[][]): string {
  if (rows.length === 0) return ''
  const widths = rows[0].map((_, c) => maxOf(rows.map((r) => (r[c] ?? '').length)))
  return rows.map((r) => `  ${r.map((cell, c) => (c < r.length - 1 ? cell.padEnd(widths[c]) : cell)).join('  ')}`.trimEnd()).join('\n')
}

const counts = (record: Record<string, number>): string =>
  Object.entries(record)
    .map(([k, v]) => `${k}×${v}`)
    .join(' ')

export function renderText(report: ClientReport): string {
  const out: string[] = []
  const j = report.journal
  const v = report.verdict
  out.push(`fleetsim client report (${report.generatedAt})`)
  out.push(`Verdict: ${OUTCOME_WORDS[v.outcome]}. ${v.reason}`)
  out.push(`${j.entries} requests journalled${j.dropped > 0 ? ` (${j.dropped} older ones dropped)` : ''}${j.from === null ? '' : `, ${j.from} to ${j.to}`}; strict mode ${j.strict ? 'on' : 'off'}`)
  out.push('', 'Findings')
  if (report.findings.length === 0) out.push('  none')
  for (const f of report.findings) {
    const requests = f.requests.length === 0 ? '' : ` (request${f.requests.length === 1 ? '' : 's'} ${f.requests.map((id) => `#${id}`).join(', ')})`
    out.push(`  ${LEVEL_MARKS[f.level]} ${f.text}${requests}`)
  }
  const t = report.timeline
  if (t.classes.length > 0) {
    out.push('', 'Latency by status class')
    out.push(table([['class', 'requests', 'median ms', 'slowest ms'], ...t.classes.map((c) => [c.class, String(c.requests), String(c.medianMs), String(c.maxMs)])]))
  }
  out.push('', 'Operations')
  out.push(table([['operation', 'calls', 'statuses'], ...report.operations.map((o) => [o.operation, String(o.count), counts(o.statuses)])]) || '  none')
  out.push('', 'Rule violations')
  out.push(
    report.violations.length === 0
      ? '  none'
      : table([['rule', 'count', 'example'], ...report.violations.map((v) => [v.rule, String(v.count), `#${v.example.id} ${v.example.method} ${v.example.path}: ${v.example.detail}`])])
  )
  const r = report.retries
  out.push('', 'Retries')
  if (r.chains.length === 0) out.push('  none seen: no call was repeated after a failed answer (no answer at all, a 5xx, 408 or 429, an injected fault, a multi-agent answer with errors)')
  else {
    out.push(`  ${r.chains.length} retry chains; backoff ${r.backoff}; ${r.immediate} immediate retries; ${r.nonIdempotent} non-idempotent; fastest gap ${r.fastestGapMs} ms`)
    out.push(
      table([
        ['call', 'attempts', 'statuses', 'gaps (ms)', 'backoff', 'recovered'],
        ...r.chains.slice(0, 20).map((c) => [`${c.method} ${c.operation}`, String(c.attempts.length), c.statuses.join(','), c.gapsMs.join(','), c.backoff, c.recovered ? 'yes' : 'no'])
      ])
    )
  }
  const f = report.faults
  out.push('', 'Injected faults', f.injected === 0 ? '  none' : `  ${f.injected} (${counts(f.byKind)}); retried ${f.retried}, not retried ${f.notRetried}`)
  const p = report.partialFailures
  out.push('', 'Partial failures', p.answers === 0 ? '  none' : `  ${p.answers} answers with errors; reactions: ${counts(p.reactions as unknown as Record<string, number>)}`)
  const c = report.coverage
  out.push('', 'Coverage')
  out.push(`  operations used: ${c.operations.used.join(', ') || 'none'}`)
  out.push(`  never used:      ${c.operations.unused.join(', ') || 'none'}`)
  out.push(`  formats:         json ${c.formats.json}, xml ${c.formats.xml}; chosen by suffix ${c.formats.bySuffix}, accept ${c.formats.byAccept}, Content-Type ${c.formats.byContentType}, default ${c.formats.byDefault}`)
  out.push(`  agent states:    seen ${c.agentStates.seen.join(', ') || 'none'}; unseen ${c.agentStates.unseen.join(', ') || 'none'}`)
  out.push(`  error cases:     ${counts(c.errorCodes) || 'none'}`)
  out.push(`  statuses:        ${counts(c.statuses) || 'none'}`)
  return `${out.join('\n')}\n`
}
