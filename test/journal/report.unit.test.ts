import { describe, expect, it } from 'vitest'
import type { JournalEntry } from '../../src/journal/journal.js'
import { backoffOf, buildReport } from '../../src/journal/report.js'

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

  it('sees a client that ignored a partial failure', () => {
    const partial = entry(0, { operation: 'stopagent', method: 'POST', query: { agentUuids: ['a,b'] }, partialErrors: [{ agent: 'web-b', uuid: 'b', message: 'x' }] })
    expect(buildReport([partial], context).partialFailures.reactions.ignored).toBe(1)
  })

  it('reports injected faults and whether they were retried', () => {
    const report = buildReport([entry(0, { fault: 'error', status: 503, errorCodes: ['E_FAULT_INJECTED'] }), entry(50)], context)
    expect(report.faults).toEqual({ injected: 1, byKind: { error: 1 }, retried: 1, notRetried: 0 })
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
