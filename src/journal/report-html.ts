/**
 * The client report as one self-contained HTML page: the verdict at the top, the findings
 * with links to the requests that show them and those requests' bodies, the timeline of the
 * client's requests (uPlot, inlined with its styles and the page's script: the page loads
 * nothing from the network), then the report's tables. A view of the JSON report: it computes
 * nothing new.
 *
 * Everything that came from a client (paths, queries, bodies, details) is escaped; the chart's
 * numbers travel in a JSON script element with `<` escaped, so no text can close it.
 */
import { readFileSync } from 'node:fs'
import { UPLOT_FILES, webPath } from '../lib/web-assets.js'
import type { JournalEntry, KeptBody } from './journal.js'
import type { ClientReport, Finding, Outcome } from './report.js'
import type { Timeline } from './report-timeline.js'
import { maxOf } from '../lib/extremes.js'

/** Text for an HTML element or a double- or single-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
}

/** JSON for a `<script type="application/json">` element: no `<` to end it early. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c')
}

/** Script text to inline: a `</script` inside it (in a string) would end the element. */
function inlineScript(source: string): string {
  return source.replace(/<\/script/gi, '<\\/script')
}

interface Assets {
  uplotScript: string
  uplotStyle: string
  timelineScript: string
  style: string
}

let assets: Assets | undefined

/** The page's scripts and styles, read once. */
function pageAssets(): Assets {
  assets ??= {
    uplotScript: inlineScript(readFileSync(UPLOT_FILES.script, 'utf8')),
    uplotStyle: readFileSync(UPLOT_FILES.style, 'utf8'),
    timelineScript: inlineScript(readFileSync(webPath('report', 'timeline.js'), 'utf8')),
    style: readFileSync(webPath('report', 'report.css'), 'utf8')
  }
  return assets
}

const OUTCOME_WORDS: Record<Outcome, string> = { pass: 'Pass', 'pass-with-warnings': 'Pass with warnings', fail: 'Fail' }
const LEVEL_WORDS: Record<Finding['level'], string> = { problem: 'Problem', warning: 'Warning', note: 'Note' }

const counts = (record: Record<string, number>): string =>
  Object.entries(record)
    .map(([k, v]) => `${k} ×${v}`)
    .join(', ')

const plural = (count: number, word: string): string => `${count.toLocaleString('en')} ${word}${count === 1 ? '' : 's'}`

/** A table cell: text (escaped here), or HTML made of escaped parts. */
type Cell = string | { html: string }

function htmlTable(caption: string, head: string[], rows: Cell[][]): string {
  if (rows.length === 0) return '<p>none</p>'
  const th = head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')
  const body = rows.map((r) => `<tr>${r.map((cell) => `<td>${typeof cell === 'string' ? escapeHtml(cell) : cell.html}</td>`).join('')}</tr>`).join('\n')
  return `<table><caption class="visually-hidden">${escapeHtml(caption)}</caption><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`
}

/** `POST /manager/mvc/restservice/stopagent?agentUuids=a,b`, query values as the journal has them. */
export function requestLine(entry: JournalEntry): string {
  const query = Object.entries(entry.query)
    .flatMap(([key, values]) => values.map((value) => `${key}=${value}`))
    .join('&')
  return `${entry.method} ${entry.path}${query === '' ? '' : `?${query}`}`
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)

const requestLink = (id: number): string => `<a href="#request-${id}">#${id}</a>`

/** `#12`, a link where the page shows that request (the requests findings name). */
function requestRef(id: number, shown: ReadonlyMap<number, JournalEntry>): string {
  return shown.has(id) ? requestLink(id) : `#${id}`
}

/** A kept body as text to read: JSON kept whole is indented, anything else shown as kept. */
function readable(body: KeptBody): string {
  if (body.truncated) return body.text
  try {
    return JSON.stringify(JSON.parse(body.text), null, 2)
  } catch {
    return body.text
  }
}

function bodyBlock(label: string, body: KeptBody | undefined): string {
  if (body === undefined) return `<p class="body-label">${label}: <span class="cut">none</span></p>`
  const size = body.truncated
    ? `the first ${plural(Buffer.byteLength(body.text), 'byte')} of ${plural(body.bytes, 'byte')}, truncated`
    : plural(body.bytes, 'byte')
  return `<p class="body-label">${label} <span class="cut">(${escapeHtml(size)})</span></p>\n<pre tabindex="0">${escapeHtml(readable(body))}</pre>`
}

function bodies(entry: JournalEntry): string {
  return `${bodyBlock('Request body', entry.requestBody)}\n${bodyBlock('Answer body', entry.responseBody)}`
}

function verdictSection(report: ClientReport): string {
  const { outcome, reason, counts: c } = report.verdict
  return `<section class="verdict verdict-${outcome}" aria-labelledby="verdict-title">
<h2 id="verdict-title">Verdict: ${OUTCOME_WORDS[outcome]}</h2>
<p>${escapeHtml(reason)}</p>
<p>${plural(c.requests, 'request')} · ${plural(c.problems, 'problem')} · ${plural(c.warnings, 'warning')} · ${plural(c.notes, 'note')}</p>
</section>`
}

function findingsSection(report: ClientReport, byId: Map<number, JournalEntry>): string {
  if (report.findings.length === 0) return '<p>none</p>'
  const items = report.findings.map((f, k) => {
    const named = f.requests.map((id) => byId.get(id)).filter((e): e is JournalEntry => e !== undefined)
    const links = named.length === 0 ? '' : `<p>Requests: ${named.map((e) => requestLink(e.id)).join(', ')}</p>`
    const examples = named
      .map(
        (e) => `<details><summary>#${e.id} ${escapeHtml(requestLine(e))} → ${e.status}: what was sent and answered</summary>
${bodies(e)}
</details>`
      )
      .join('\n')
    return `<li class="${f.level}" id="finding-${k + 1}">
<p><span class="badge badge-${f.level}">${LEVEL_WORDS[f.level]}</span> <strong>${escapeHtml(capitalised(f.title))}</strong></p>
<p>${escapeHtml(f.text)}</p>
${links}
${examples}
</li>`
  })
  return `<ul class="findings">\n${items.join('\n')}\n</ul>`
}

function timelineSection(timeline: Timeline): string {
  if (timeline.requests === 0 || timeline.from === null) return '<p>No requests journalled yet.</p>'
  const fromMs = Date.parse(timeline.from)
  const last = maxOf(timeline.offsetsMs)
  const span = `${plural(timeline.requests, 'request')} from ${timeline.from} to ${new Date(fromMs + last).toISOString()} (wall time, UTC)`
  const sampled = timeline.sampled
    ? ` The chart shows ${plural(timeline.ids.length, 'request')} of them: every failed one up to half of those, the others evenly spread.`
    : ''
  const legend = timeline.classes.map((c) => `<li><span class="swatch swatch-${c.class}" aria-hidden="true"></span>${c.class}: ${plural(c.requests, 'request')}</li>`).join('')
  const data = { fromMs, ids: timeline.ids, offsetsMs: timeline.offsetsMs, durationsMs: timeline.durationsMs, statuses: timeline.statuses }
  return `<figure aria-labelledby="timeline-caption">
<div id="timeline-chart" role="img" aria-label="Chart of each request's latency over wall time, a point per request coloured by its status class; the table below gives the same by class."></div>
<ul class="legend">${legend}</ul>
<figcaption id="timeline-caption">${escapeHtml(span)}.${escapeHtml(sampled)}</figcaption>
</figure>
${htmlTable(
  'Requests and latency by status class',
  ['status class', 'requests', 'median latency (ms)', 'slowest (ms)'],
  timeline.classes.map((c) => [c.class, c.requests.toLocaleString('en'), String(c.medianMs), String(c.maxMs)])
)}
<script type="application/json" id="timeline-data">${scriptJson(data)}</script>`
}

function requestArticle(entry: JournalEntry, namedBy: Array<{ finding: Finding; index: number }>): string {
  const facts: Array<[string, string]> = [
    ['arrived', `${entry.time} (virtual ${entry.virtualTime})`],
    ['operation', entry.operation === '' ? 'none (no operation at this path)' : entry.operation],
    ['status', `${entry.status}${entry.errorCodes.length === 0 ? '' : ` (${entry.errorCodes.join(', ')})`}`],
    ['latency', `${entry.durationMs} ms`],
    ['format', `${entry.format}${entry.accept === undefined ? '' : `; accept: ${entry.accept}`}${entry.contentType === undefined ? '' : `; content-type: ${entry.contentType}`}`]
  ]
  if (entry.violations.length > 0) facts.push(['rules broken', entry.violations.map((v) => `${v.rule}: ${v.detail}`).join('; ')])
  if (entry.partialErrors.length > 0) facts.push(['failed agents', entry.partialErrors.map((p) => p.message).join('; ')])
  if (entry.fault !== undefined) facts.push(['injected fault', entry.fault])
  const list = facts.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`).join('')
  const findingLinks = namedBy.map(({ finding, index }) => `<a href="#finding-${index + 1}">${escapeHtml(finding.title)}</a>`).join(', ')
  return `<article class="request" id="request-${entry.id}" aria-labelledby="request-${entry.id}-title">
<h3 id="request-${entry.id}-title">#${entry.id} ${escapeHtml(requestLine(entry))} → ${entry.status}</h3>
<dl>${list}<dt>named by</dt><dd>${findingLinks}</dd></dl>
${bodies(entry)}
</article>`
}

function requestsSection(report: ClientReport): string {
  if (report.requests.length === 0) return '<p>No finding names a request.</p>'
  return report.requests
    .map((entry) => {
      const namedBy = report.findings.flatMap((finding, index) => (finding.requests.includes(entry.id) ? [{ finding, index }] : []))
      return requestArticle(entry, namedBy)
    })
    .join('\n')
}

export function renderHtml(report: ClientReport): string {
  const { uplotScript, uplotStyle, timelineScript, style } = pageAssets()
  const j = report.journal
  const c = report.coverage
  const r = report.retries
  const p = report.partialFailures
  const byId = new Map(report.requests.map((e) => [e.id, e]))
  const retries =
    r.chains.length === 0
      ? '<p>No retries seen: no call was repeated after a failed answer (no answer at all, a 5xx, 408 or 429, an injected fault, a multi-agent answer with errors).</p>'
      : `<p>Backoff: <b>${escapeHtml(r.backoff)}</b>; ${r.immediate} immediate ${r.immediate === 1 ? 'retry' : 'retries'}; ${plural(r.nonIdempotent, 'non-idempotent retry chain')}${r.fastestGapMs === null ? '' : `; fastest gap ${r.fastestGapMs} ms`}.</p>
${htmlTable(
  'Retry chains',
  ['call', 'attempts', 'statuses', 'gaps (ms)', 'backoff', 'recovered'],
  r.chains.map((ch) => [
    `${ch.method} ${ch.operation}`,
    { html: ch.attempts.map((id) => requestRef(id, byId)).join(', ') },
    ch.statuses.join(', '),
    ch.gapsMs.join(', '),
    ch.backoff,
    ch.recovered ? 'yes' : 'no'
  ])
)}`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>fleetsim client report: ${OUTCOME_WORDS[report.verdict.outcome]}</title>
<style>${uplotStyle}</style>
<style>${style}</style>
</head><body>
<header>
<h1>fleetsim client report</h1>
<p>Generated ${escapeHtml(report.generatedAt)} from ${plural(j.entries, 'journalled request')}${j.dropped > 0 ? ` (${plural(j.dropped, 'older one')} dropped)` : ''}; strict mode ${j.strict ? 'on' : 'off'}.</p>
<nav aria-label="Sections"><ul>
<li><a href="#timeline">Timeline</a></li><li><a href="#findings">Findings</a></li><li><a href="#requests">Requests</a></li>
<li><a href="#operations">Operations</a></li><li><a href="#violations">Rule violations</a></li><li><a href="#retries">Retries</a></li>
<li><a href="#faults">Injected faults</a></li><li><a href="#partial">Partial failures</a></li><li><a href="#coverage">Coverage</a></li>
</ul></nav>
</header>
<main>
${verdictSection(report)}
<h2 id="timeline">Timeline</h2>
${timelineSection(report.timeline)}
<h2 id="findings">Findings</h2>
${findingsSection(report, byId)}
<h2 id="requests">Requests named in findings</h2>
${requestsSection(report)}
<h2 id="operations">Operations</h2>
${htmlTable('Calls per operation', ['operation', 'calls', 'statuses'], report.operations.map((o) => [o.operation, String(o.count), counts(o.statuses)]))}
<h2 id="violations">Rule violations</h2>
${htmlTable(
  'Rules broken',
  ['rule', 'count', 'rule text', 'example'],
  report.violations.map((v) => [v.rule, String(v.count), v.sentence, { html: `${requestRef(v.example.id, byId)} ${escapeHtml(`${v.example.method} ${v.example.path}: ${v.example.detail}`)}` }])
)}
<h2 id="retries">Retries</h2>
${retries}
<h2 id="faults">Injected faults</h2>
<p>${report.faults.injected === 0 ? 'No fault was injected.' : `${plural(report.faults.injected, 'injected fault')} (${escapeHtml(counts(report.faults.byKind))}); retried ${report.faults.retried}, not retried ${report.faults.notRetried}.`}</p>
<h2 id="partial">Partial failures</h2>
<p>${p.answers === 0 ? 'No multi-agent answer had <code>errors</code>.' : `${plural(p.answers, 'answer')} with <code>errors</code>.`}</p>
${htmlTable(
  'Partial failures and the reaction to them',
  ['request', 'operation', 'failed agents', 'reaction', 'follow-up'],
  p.examples.map((e) => [{ html: requestRef(e.id, byId) }, e.operation, e.failed.join(', '), e.reaction, e.followUp === null ? 'none' : { html: requestRef(e.followUp, byId) }])
)}
<h2 id="coverage">Coverage</h2>
${htmlTable('What the client used and saw', ['what', 'seen', 'not seen'], [
  ['operations', c.operations.used.join(', ') || 'none', c.operations.unused.join(', ') || 'none'],
  ['agent states', c.agentStates.seen.join(', ') || 'none', c.agentStates.unseen.join(', ') || 'none'],
  ['formats', `json ${c.formats.json}, xml ${c.formats.xml}; suffix ${c.formats.bySuffix}, accept ${c.formats.byAccept}, Content-Type ${c.formats.byContentType}, default ${c.formats.byDefault}`, ''],
  ['error cases', counts(c.errorCodes) || 'none', ''],
  ['statuses', counts(c.statuses) || 'none', '']
])}
</main>
<script>${uplotScript}</script>
<script>${timelineScript}</script>
</body></html>
`
}
