/**
 * The client report as text (for `fleetsim report` in a terminal) and as an HTML page (for a
 * browser). Both are views of the JSON report; neither computes anything new.
 */
import type { ClientReport } from './report.js'

function table(rows: string[][]): string {
  if (rows.length === 0) return ''
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)))
  return rows.map((r) => `  ${r.map((cell, c) => (c < r.length - 1 ? cell.padEnd(widths[c]) : cell)).join('  ')}`.trimEnd()).join('\n')
}

const counts = (record: Record<string, number>): string =>
  Object.entries(record)
    .map(([k, v]) => `${k}×${v}`)
    .join(' ')

export function renderText(report: ClientReport): string {
  const out: string[] = []
  const j = report.journal
  out.push(`fleetsim client report (${report.generatedAt})`)
  out.push(`${j.entries} requests journalled${j.dropped > 0 ? ` (${j.dropped} older ones dropped)` : ''}${j.from === null ? '' : `, ${j.from} to ${j.to}`}; strict mode ${j.strict ? 'on' : 'off'}`)
  out.push('', 'Findings')
  if (report.findings.length === 0) out.push('  none')
  for (const f of report.findings) out.push(`  ${f.level === 'problem' ? '✗' : '·'} ${f.text}`)
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
  out.push(`  ${r.chains.length} retry chains; backoff ${r.backoff}; ${r.immediate} immediate retries; ${r.nonIdempotent} non-idempotent; fastest gap ${r.fastestGapMs ?? '-'} ms`)
  if (r.chains.length > 0) {
    out.push(
      table([
        ['call', 'attempts', 'statuses', 'gaps (ms)', 'backoff', 'recovered'],
        ...r.chains.slice(0, 20).map((c) => [`${c.method} ${c.operation}`, String(c.attempts.length), c.statuses.join(','), c.gapsMs.join(','), c.backoff, c.recovered ? 'yes' : 'no'])
      ])
    )
  }
  const f = report.faults
  out.push('', 'Injected faults', `  ${f.injected} (${counts(f.byKind) || 'none'}); retried ${f.retried}, not retried ${f.notRetried}`)
  const p = report.partialFailures
  out.push('', 'Partial failures', `  ${p.answers} answers with errors; reactions: ${counts(p.reactions as unknown as Record<string, number>)}`)
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

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

function htmlTable(head: string[], rows: string[][]): string {
  if (rows.length === 0) return '<p>none</p>'
  const th = head.map((h) => `<th>${escape(h)}</th>`).join('')
  const body = rows.map((r) => `<tr>${r.map((cell) => `<td>${escape(cell)}</td>`).join('')}</tr>`).join('\n')
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`
}

export function renderHtml(report: ClientReport): string {
  const j = report.journal
  const c = report.coverage
  const r = report.retries
  const p = report.partialFailures
  const findings = report.findings.length === 0
    ? '<p>none</p>'
    : `<ul>${report.findings.map((f) => `<li class="${f.level}">${escape(f.text)}</li>`).join('\n')}</ul>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fleetsim client report</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; padding: 0 1rem; color: #222 }
table { border-collapse: collapse; margin: .5rem 0 1rem } th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top }
th { background: #f3f3f3 } li.problem { color: #a40000 } li.note { color: #555 } code { background: #f3f3f3; padding: 0 .2rem }
</style></head><body>
<h1>fleetsim client report</h1>
<p>Generated ${escape(report.generatedAt)} from ${j.entries} journalled requests${j.dropped > 0 ? ` (${j.dropped} older ones dropped)` : ''}; strict mode ${j.strict ? 'on' : 'off'}.</p>
<h2>Findings</h2>
${findings}
<h2>Operations</h2>
${htmlTable(['operation', 'calls', 'statuses'], report.operations.map((o) => [o.operation, String(o.count), counts(o.statuses)]))}
<h2>Rule violations</h2>
${htmlTable(['rule', 'count', 'rule text', 'example'], report.violations.map((v) => [v.rule, String(v.count), v.sentence, `#${v.example.id} ${v.example.method} ${v.example.path}: ${v.example.detail}`]))}
<h2>Retries</h2>
<p>Backoff: <b>${escape(r.backoff)}</b>; ${r.immediate} immediate retries; ${r.nonIdempotent} non-idempotent retry chains; fastest gap ${r.fastestGapMs ?? '-'} ms.</p>
${htmlTable(['call', 'attempts', 'statuses', 'gaps (ms)', 'backoff', 'recovered'], r.chains.map((ch) => [`${ch.method} ${ch.operation}`, String(ch.attempts.length), ch.statuses.join(', '), ch.gapsMs.join(', '), ch.backoff, ch.recovered ? 'yes' : 'no']))}
<h2>Injected faults</h2>
<p>${report.faults.injected} injected (${escape(counts(report.faults.byKind) || 'none')}); retried ${report.faults.retried}, not retried ${report.faults.notRetried}.</p>
<h2>Partial failures</h2>
<p>${p.answers} answers with <code>errors</code>.</p>
${htmlTable(['request', 'operation', 'failed agents', 'reaction', 'follow-up'], p.examples.map((e) => [`#${e.id}`, e.operation, e.failed.join(', '), e.reaction, e.followUp === null ? '-' : `#${e.followUp}`]))}
<h2>Coverage</h2>
${htmlTable(['what', 'seen', 'not seen'], [
    ['operations', c.operations.used.join(', '), c.operations.unused.join(', ')],
    ['agent states', c.agentStates.seen.join(', '), c.agentStates.unseen.join(', ')],
    ['formats', `json ${c.formats.json}, xml ${c.formats.xml}; suffix ${c.formats.bySuffix}, accept ${c.formats.byAccept}, Content-Type ${c.formats.byContentType}, default ${c.formats.byDefault}`, ''],
    ['error cases', counts(c.errorCodes), ''],
    ['statuses', counts(c.statuses), '']
  ])}
</body></html>
`
}
