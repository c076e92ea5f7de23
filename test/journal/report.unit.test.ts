import { describe, expect, it } from 'vitest'
import type { JournalEntry } from '../../src/journal/journal.js'
import { FINDING_REQUESTS, backoffOf, buildReport, verdictOf, type Finding } from '../../src/journal/report.js'
import { buildTimeline } from '../../src/journal/report-timeline.js'

let id = 0
function entry(wallMs: number, fields: Partial<JournalEntry> = {}): JournalEntry {
  id++
  return {
    id, time: new Date(wallMs).toISOString(), wallMs, virtualTime: '', operation: 'agentinfo', method: 'GET', path: '/x', query: {},
    format: 'json', status: 200, durationMs: 0, errorCodes: [], partialErrors: [], agentStates: [], violations: [], rejected: false, callKey: 'k', ...fields
  }
}
const context = { capacity: 100, dropped: 0, strict: false }

describe('the client report', () => {
  it('sees backoff when the gaps between retries grow', () => {
    const failing = { status: 503 }
    const report = buildReport([entry(0, failing), entry(100, failing), entry(300, failing), entry(700)], context)
    expect(report.retries.chains[0]).toMatchObject({ gapsMs: [100, 200, 400], backoff: 'grows', recovered: true, nonIdempotent: false })
    expect(report.retries.backoff).toBe('present')
    expect(report.findings.map((f) => f.id)).toContain('backoff')
  })

  it('calls steady gaps no backoff, and one retry undecided', () => {
    expect(backoffOf([50, 52, 49])).toBe('flat')
    expect(backoffOf([300])).toBe('single')
    expect(backoffOf([100, 40, 400])).toBe('flat')
    expect(backoffOf([100, 90, 400])).toBe('grows')
  })

  it('does not count a call repeated after a success as a retry', () => {
    expect(buildReport([entry(0), entry(10), entry(20)], context).retries.chains).toEqual([])
  })

  it('does not count calls further apart than the retry window', () => {
    expect(buildReport([entry(0, { status: 503 }), entry(60_000)], context).retries.chains).toEqual([])
  })

  it('sees a client that retried only the failed agents of a partial failure', () => {
    const partial = entry(0, { operation: 'stopagent', method: 'POST', query: { agentUuids: ['a,b'] }, partialErrors: [{ agent: 'web-b', uuid: 'b', message: 'web-b: not connected' }], callKey: 'k1' })
    const followUp = entry(500, { operation: 'stopagent', method: 'POST', query: { agentUuids: ['b'] }, callKey: 'k2' })
    const report = buildReport([partial, followUp], context)
    expect(report.partialFailures.reactions['failed-only']).toBe(1)
    expect(report.findings.map((f) => f.id)).toContain('errors-acted-on')
  })

  it('judges the reaction to a partial failure by the agents a cut URL kept, leaving out the cut one', () => {
    const cutAt = (list: string, length: number) => ({ agentUuids: [`${list}...[truncated: ${length} bytes]`] })
    const partial = entry(0, {
      operation: 'stopagent', method: 'POST', query: cutAt('a,b,c,d', 20_000), truncated: { url: 20_000 },
      partialErrors: [{ agent: 'web-b', uuid: 'b', message: 'x' }, { agent: 'web-c', uuid: 'c', message: 'x' }], callKey: 'k1'
    })
    const followUp = entry(500, { operation: 'stopagent', method: 'POST', query: cutAt('b,c,d', 10_000), truncated: { url: 10_000 }, callKey: 'k2' })
    expect(buildReport([partial, followUp], context).partialFailures.reactions['failed-only']).toBe(1)
  })

  it('sees a client that ignored a partial failure, and warns of it with what to do', () => {
    const partial = entry(0, { operation: 'stopagent', method: 'POST', query: { agentUuids: ['a,b'] }, partialErrors: [{ agent: 'web-b', uuid: 'b', message: 'agent is not connected' }] })
    const report = buildReport([partial], context)
    expect(report.partialFailures.reactions.ignored).toBe(1)
    // Showing the errors to its user is right, and looks the same on the wire: a warning, not a failed verdict.
    expect(report.findings.find((f) => f.id === 'errors-ignored')).toMatchObject({ level: 'warning', text: expect.stringContaining('call again for those whose error may pass') })
    expect(report.verdict.outcome).toBe('pass-with-warnings')
  })

  it('sees ignoring in a next call for other agents only, and none where no failed agent could take the command later', () => {
    const stop = (wallMs: number, uuids: string, errors: JournalEntry['partialErrors'] = []) =>
      entry(wallMs, { operation: 'stopagent', method: 'POST', query: { agentUuids: [uuids] }, partialErrors: errors })
    const notConnected = [{ agent: 'web-b', uuid: 'b', message: 'agent is not connected' }]
    expect(buildReport([stop(0, 'a,b', notConnected), stop(500, 'c')], context).partialFailures.reactions.ignored).toBe(1)
    const unmanaged = [{ agent: 'web-b', uuid: 'b', message: 'agent is unmanaged and cannot be administered remotely' }]
    const report = buildReport([stop(0, 'a,b', unmanaged)], context)
    expect(report.partialFailures.reactions).toMatchObject({ ignored: 0, 'not-retryable': 1 })
    expect(report.findings.map((f) => f.id)).not.toContain('errors-ignored')
  })

  it('sees a client that retried the failed agents and then gave up, which is no ignoring', () => {
    const stop = (wallMs: number, uuids: string) =>
      entry(wallMs, { operation: 'stopagent', method: 'POST', query: { agentUuids: [uuids] }, partialErrors: [{ agent: 'web-b', uuid: 'b', message: 'agent is not connected' }] })
    const report = buildReport([stop(0, 'a,b'), stop(500, 'b'), stop(1500, 'b')], context)
    expect(report.partialFailures.reactions).toMatchObject({ 'failed-only': 2, 'gave-up': 1, ignored: 0 })
    expect(report.findings.map((f) => f.id)).not.toContain('errors-ignored')
  })

  it('warns of a request sent again unchanged after its 4xx, which no retry mends, but not of a 429 retried', () => {
    const bad = (wallMs: number) => entry(wallMs, { status: 400, errorCodes: ['E_NOT_IN_ENUM'], callKey: 'bad' })
    const report = buildReport([bad(0), bad(5), bad(10), entry(20, { callKey: 'other' }), bad(30)], context)
    expect(report.refused).toMatchObject({ requests: 4, again: 3 })
    expect(report.findings.find((f) => f.id === 'refused-again')).toMatchObject({ level: 'warning', text: expect.stringContaining('a refusal does not pass with time') })
    const limited = (wallMs: number) => entry(wallMs, { status: 429, callKey: 'limited' })
    expect(buildReport([limited(0), limited(500)], context).refused.again).toBe(0)
    // A success between two refusals of one call: the second is no repeat of a refusal.
    expect(buildReport([bad(0), entry(5, { callKey: 'bad' }), bad(10)], context).refused.again).toBe(0)
  })

  it('says the journal is off when it is, rather than that no client ran', () => {
    expect(buildReport([], { ...context, capacity: 0 }).findings.find((f) => f.id === 'no-requests')?.text).toContain('The journal is off (--journal-size 0)')
    expect(buildReport([], context).findings.find((f) => f.id === 'no-requests')?.text).toContain('run the client against fleetsim')
  })

  it('reports injected faults and whether they were retried', () => {
    const faulted = entry(0, { fault: 'error', status: 503, errorCodes: ['E_FAULT_INJECTED'] })
    const report = buildReport([faulted, entry(50)], context)
    expect(report.faults).toEqual({ injected: 1, byKind: { error: 1 }, retried: 1, notRetried: 0, requests: [faulted.id] })
  })

  it('lists coverage: operations, formats, states and error cases', () => {
    const report = buildReport(
      [entry(0, { agentStates: ['ONLINE', 'ERROR'], suffix: 'json' }), entry(1, { operation: 'appinfo', format: 'xml', status: 401, errorCodes: ['E_UNAUTHORIZED'] })],
      context
    )
    expect(report.coverage.operations.used).toEqual(['agentinfo'])
    expect(report.coverage.operations.unused).toContain('appinfo')
    expect(report.coverage.agentStates.seen).toEqual(['ONLINE', 'ERROR'])
    expect(report.coverage.formats).toMatchObject({ json: 1, xml: 1, bySuffix: 1, byDefault: 1 })
    expect(report.coverage.errorCodes).toEqual({ E_UNAUTHORIZED: 1 })
  })
})

const finding = (level: Finding['level'], title: string): Finding => ({ level, id: title, title, text: `${title}.`, requests: [] })

describe('the verdict of the client report', () => {
  it('fails on any problem, naming the problems and counting everything', () => {
    const verdict = verdictOf([finding('problem', 'rule list-repeated broken twice'), finding('warning', '1 request refused'), finding('problem', 'retries without backoff'), finding('note', 'backoff seen')], 12)
    expect(verdict).toEqual({
      outcome: 'fail',
      reason: '2 problems in 12 requests: rule list-repeated broken twice; retries without backoff.',
      counts: { requests: 12, problems: 2, warnings: 1, notes: 1 }
    })
  })

  it('passes with warnings when there are warnings and no problems, naming the warnings', () => {
    const verdict = verdictOf([finding('warning', '3 requests refused'), finding('note', 'operations never used')], 1)
    expect(verdict).toMatchObject({ outcome: 'pass-with-warnings', reason: 'No problems in 1 request; 1 warning: 3 requests refused.' })
  })

  it('passes when there are only notes', () => {
    expect(verdictOf([finding('note', 'backoff seen')], 5)).toMatchObject({ outcome: 'pass', reason: 'No problems or warnings in 5 requests.' })
  })

  it('warns that an empty journal has nothing to judge', () => {
    const report = buildReport([], context)
    expect(report.verdict.outcome).toBe('pass-with-warnings')
    expect(report.findings.map((f) => f.id)).toEqual(['no-requests'])
  })

  it('warns when the journal dropped requests: the report judges only the newest', () => {
    const report = buildReport([entry(0)], { ...context, dropped: 40 })
    expect(report.findings.find((f) => f.id === 'journal-dropped')).toMatchObject({ level: 'warning', text: expect.stringContaining('dropped 40 older requests') })
  })

  it('warns of requests refused with a 4xx no rule names, and does not count them as rule findings', () => {
    const refused = entry(0, { status: 401, errorCodes: ['E_UNAUTHORIZED'] })
    const broken = entry(10, { status: 404, errorCodes: ['E_UNKNOWN_OPERATION'], violations: [{ rule: 'unknown-operation', detail: 'x' }] })
    const report = buildReport([refused, broken], context)
    expect(report.refused).toEqual({ requests: 1, byCode: { E_UNAUTHORIZED: 1 }, examples: [refused.id], again: 0, againExamples: [] })
    expect(report.findings.find((f) => f.id === 'refused')).toMatchObject({ level: 'warning', requests: [refused.id] })
    expect(report.verdict.outcome).toBe('fail')
  })
})

describe('the requests a finding names', () => {
  it('names the requests that broke a rule, at most FINDING_REQUESTS, and carries their entries', () => {
    const broken = Array.from({ length: 8 }, (_, k) => entry(k * 10, { violations: [{ rule: 'list-repeated', detail: 'd' }], requestBody: { text: `{"k":${k}}`, bytes: 7, truncated: false } }))
    const report = buildReport([entry(-5), ...broken], context)
    const found = report.findings.find((f) => f.id === 'rule:list-repeated')
    expect(found?.requests).toEqual(broken.slice(0, FINDING_REQUESTS).map((e) => e.id))
    expect(report.violations[0].requests).toEqual(found?.requests)
    // The report carries the entries it names, bodies included, and no others.
    expect(report.requests.map((e) => e.id)).toEqual(found?.requests)
    expect(report.requests[0].requestBody?.text).toBe('{"k":0}')
  })

  it('names the attempts of a retry chain without backoff, and the retries that came too soon', () => {
    const failing = { status: 503 }
    const attempts = [entry(0, failing), entry(50, failing), entry(100, failing)]
    const report = buildReport(attempts, context)
    const ids = attempts.map((e) => e.id)
    expect(report.findings.find((f) => f.id === 'no-backoff')?.requests).toEqual(ids)
    expect(report.findings.find((f) => f.id === 'immediate-retry')?.requests).toEqual(ids.slice(1))
  })

  it('names a partial failure and the call that followed it', () => {
    const partial = entry(0, { operation: 'stopagent', method: 'POST', query: { agentUuids: ['a,b'] }, partialErrors: [{ agent: 'web-b', uuid: 'b', message: 'x' }], callKey: 'p1' })
    const again = entry(500, { operation: 'stopagent', method: 'POST', query: { agentUuids: ['a,b'] }, callKey: 'p2' })
    const report = buildReport([partial, again], context)
    expect(report.findings.find((f) => f.id === 'errors-retried-all')?.requests).toEqual([partial.id, again.id])
  })
})

describe('the timeline of the client report', () => {
  it('has each request as a row of columns, times from the first arrival', () => {
    const a = entry(1_000, { durationMs: 3 })
    const b = entry(1_250, { status: 503, durationMs: 40 })
    const timeline = buildTimeline([a, b])
    expect(timeline).toMatchObject({ from: a.time, requests: 2, sampled: false, ids: [a.id, b.id], offsetsMs: [0, 250], durationsMs: [3, 40], statuses: [200, 503] })
    expect(timeline.classes).toEqual([
      { class: '2xx', requests: 1, medianMs: 3, maxMs: 3 },
      { class: '5xx', requests: 1, medianMs: 40, maxMs: 40 }
    ])
  })

  it('samples a long journal: every failure up to half the points, the rest evenly, oldest first', () => {
    const entries = Array.from({ length: 1000 }, (_, k) => entry(k, k % 100 === 0 ? { status: 500 } : {}))
    const timeline = buildTimeline(entries, 100)
    expect(timeline.sampled).toBe(true)
    expect(timeline.ids).toHaveLength(100)
    expect(timeline.statuses.filter((s) => s === 500)).toHaveLength(10)
    expect([...timeline.ids].sort((x, y) => x - y)).toEqual(timeline.ids)
    expect(timeline.ids[0]).toBe(entries[0].id)
    expect(timeline.ids.at(-1)).toBe(entries.at(-1)?.id)
    // The summary by class counts every request, not only those shown.
    expect(timeline.classes.map((c) => c.requests)).toEqual([990, 10])
  })
})
