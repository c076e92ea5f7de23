/**
 * The client report's HTML page (src/journal/report-html.ts) from a report of made-up
 * entries: the verdict first, request ids as links to the requests shown, what a client sent
 * escaped, no placeholder dashes, and a page that needs nothing from the network.
 */
import { describe, expect, it } from 'vitest'
import type { JournalEntry } from '../../src/journal/journal.js'
import { renderHtml } from '../../src/journal/report-html.js'
import { renderText } from '../../src/journal/report-render.js'
import { buildReport } from '../../src/journal/report.js'

let id = 0
function entry(wallMs: number, fields: Partial<JournalEntry> = {}): JournalEntry {
  id++
  return {
    id, time: new Date(wallMs).toISOString(), wallMs, virtualTime: new Date(0).toISOString(), operation: 'agentinfo', method: 'GET', path: '/manager/mvc/restservice/agentinfo', query: {},
    format: 'json', status: 200, durationMs: 2, errorCodes: [], partialErrors: [], agentStates: [], violations: [], rejected: false, callKey: `k${id}`, ...fields
  }
}
const context = { capacity: 100, dropped: 0, strict: false, now: new Date('2026-03-01T00:00:00Z') }

const SCRIPT = '<script>alert(1)</script>'

describe('the client report as an HTML page', () => {
  it('puts the verdict first and links each finding to the requests it names, showing their bodies', () => {
    const failing = { status: 503, callKey: 'same', requestBody: { text: '{"a":1}', bytes: 7, truncated: false }, responseBody: { text: '{"errors":[]}', bytes: 13, truncated: false } }
    const attempts = [entry(0, failing), entry(10, failing), entry(20, failing)]
    const html = renderHtml(buildReport(attempts, context))
    expect(html.indexOf('Verdict: Fail')).toBeLessThan(html.indexOf('id="timeline"'))
    expect(html.indexOf('id="timeline"')).toBeLessThan(html.indexOf('id="findings"'))
    for (const attempt of attempts) {
      expect(html).toContain(`<a href="#request-${attempt.id}">#${attempt.id}</a>`)
      expect(html).toContain(`<article class="request" id="request-${attempt.id}"`)
    }
    // The retry chain's attempts are links too, and the bodies are shown, JSON indented.
    expect(html).toMatch(/<td><a href="#request-\d+">#\d+<\/a>, <a href="#request-\d+">/)
    expect(html).toContain('{\n  &quot;a&quot;: 1\n}')
  })

  it('escapes everything a client sent: path, query, details and bodies', () => {
    const sent = entry(0, {
      status: 400,
      path: `/manager/mvc/restservice/${SCRIPT}`,
      query: { [SCRIPT]: [SCRIPT] },
      errorCodes: ['E_INVALID_VALUE'],
      violations: [{ rule: 'unknown-parameter', detail: `query parameter "${SCRIPT}"` }],
      requestBody: { text: SCRIPT, bytes: SCRIPT.length, truncated: false },
      responseBody: { text: `{"message":"${SCRIPT}"}`, bytes: 40, truncated: true }
    })
    const html = renderHtml(buildReport([sent], context))
    expect(html).not.toContain(SCRIPT)
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html.match(/<script/g)).toHaveLength(3)
    expect(html).toContain('(the first 39 bytes of 40 bytes, truncated)')
  })

  it('says so where there is nothing to show, with no dash placeholders', () => {
    const html = renderHtml(buildReport([], context))
    expect(html).toContain('Verdict: Pass with warnings')
    expect(html).toContain('No requests journalled yet.')
    expect(html).not.toContain('id="timeline-chart"')
    expect(html).toContain('No retries seen')
    expect(html).not.toMatch(/>\s*-\s*</)
    const text = renderText(buildReport([entry(0)], context))
    expect(text).not.toMatch(/ - ms|\(-\)|: -$/m)
    expect(text).toContain('Retries\n  none seen')
  })

  it('loads nothing: uPlot, its styles and the page script are inlined, the icon is empty', () => {
    const html = renderHtml(buildReport([entry(0)], context))
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|(?:src|href)\s*=\s*["']?(?:https?:)?\/\//)
    expect(html).toContain('<link rel="icon" href="data:,">')
    expect(html).toContain('uPlot')
    expect(html).toContain('<script type="application/json" id="timeline-data">')
  })
})
