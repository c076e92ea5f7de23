/**
 * Done-when check of the harness: a small client that breaks two rules and retries a partial
 * failure without backoff gets a report naming both rules and the missing backoff.
 *
 * The report judges backoff by the wall times the journal recorded (report.ts reads no clock),
 * and the recorder reads them from Date. The tests fake Date alone and move it between
 * attempts, so the clients "wait" exactly as long as they mean to, without sleeping; timers
 * and the requests themselves stay real.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import type { ClientReport } from '../../src/journal/report.js'
import { renderText } from '../../src/journal/report-render.js'

describe('the client report of a client under test', () => {
  let sim: RunningFleetsim
  beforeAll(async () => {
    sim = await startFleetsim({ http: true, agents: 40, seed: 5 })
  })
  afterAll(() => sim.close())
  beforeEach(() => {
    sim.clearJournal()
    vi.useFakeTimers({ toFake: ['Date'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  /**
   * Stops an online and an offline agent (the offline one always fails), retrying the whole
   * call until no errors come back, at most 4 attempts, waiting `waitsMs[k]` of wall time
   * after the k-th failure.
   */
  async function stopUntilNoErrors(url: string, waitsMs: readonly number[]): Promise<void> {
    for (let attempt = 0; attempt < 4; attempt++) {
      const answer = await fetch(url, { method: 'POST', headers: { ...sim.headers, accept: 'application/json' } })
      const body = (await answer.json()) as { errors?: unknown[] }
      if (body.errors === undefined) break
      vi.advanceTimersByTime(waitsMs[attempt] ?? 0)
    }
  }

  function someAgents(): [online: string, offline: string] {
    const online = sim.engine.uuid([...sim.engine.indices(new Set(['ONLINE']))][0])
    const offline = sim.engine.uuid([...sim.engine.indices(new Set(['OFFLINE']))][0])
    return [online, offline]
  }

  /** The client under test: lists offline agents, then stops two, retrying at a steady pace. */
  async function carelessClient(): Promise<void> {
    // Rule missing-accept: no accept header and no suffix (the answer is XML).
    await fetch(`${sim.url}/agentinfo?agentstate=OFFLINE`, { headers: sim.headers })
    const [online, offline] = someAgents()
    // Rule list-repeated: agentUuids repeated instead of comma-delimited. No backoff: the
    // same pause after every failure.
    await stopUntilNoErrors(`${sim.url}/stopagent?agentUuids=${online}&agentUuids=${offline}`, [1000, 1000, 1000])
  }

  async function reportNow(): Promise<ClientReport> {
    const response = await fetch(`${sim.origin}/__admin/report`, { headers: sim.headers })
    expect(response.status).toBe(200)
    return (await response.json()) as ClientReport
  }

  it('names both broken rules with an example request each, and the missing backoff', async () => {
    await carelessClient()
    const report = await reportNow()

    expect(report.violations.map((v) => v.rule).sort()).toEqual(['list-repeated', 'missing-accept'])
    const repeated = report.violations.find((v) => v.rule === 'list-repeated')
    expect(repeated).toMatchObject({ count: 4, example: { method: 'POST', detail: '"agentUuids" given 2 times' } })

    expect(report.retries.backoff).toBe('missing')
    expect(report.retries.chains).toHaveLength(1)
    expect(report.retries.chains[0]).toMatchObject({ operation: 'stopagent', method: 'POST', backoff: 'flat', nonIdempotent: true, recovered: false })
    // The gaps are the 1,000 ms waited, less the time each answer took (real, a few ms).
    for (const gap of report.retries.chains[0].gapsMs) expect(gap).toBeGreaterThan(500)
    for (const gap of report.retries.chains[0].gapsMs) expect(gap).toBeLessThanOrEqual(1000)
    expect(report.partialFailures.reactions['all-again']).toBe(3)

    const ids = report.findings.map((f) => f.id)
    expect(ids).toEqual(expect.arrayContaining(['rule:list-repeated', 'rule:missing-accept', 'no-backoff', 'non-idempotent-retry', 'errors-retried-all']))
    const text = renderText(report)
    expect(text).toContain('list-repeated')
    expect(text).toContain('missing-accept')
    expect(text).toContain('No backoff')
  })

  it('sees backoff in a client whose waits between retries grow', async () => {
    const [online, offline] = someAgents()
    await stopUntilNoErrors(`${sim.url}/stopagent?agentUuids=${online},${offline}`, [200, 400, 800])
    const report = await reportNow()
    expect(report.violations).toEqual([])
    expect(report.retries.backoff).toBe('present')
    expect(report.retries.chains[0]).toMatchObject({ operation: 'stopagent', backoff: 'grows' })
    const ids = report.findings.map((f) => f.id)
    expect(ids).toContain('backoff')
    expect(ids).not.toContain('no-backoff')
  })

  it('gives a verdict at the top: fail, naming the problems', async () => {
    await carelessClient()
    const report = await reportNow()
    expect(report.verdict.outcome).toBe('fail')
    expect(report.verdict.reason).toMatch(/^\d+ problems in 5 requests: rule list-repeated broken 4 times; /)
    expect(report.verdict.counts).toMatchObject({ requests: 5, problems: report.findings.filter((f) => f.level === 'problem').length })
    expect(renderText(report).split('\n')[1]).toBe(`Verdict: FAIL. ${report.verdict.reason}`)
  })

  it('links a finding to the requests that show it, with what they sent and got, in JSON and HTML', async () => {
    await carelessClient()
    const report = await reportNow()
    const rule = report.findings.find((f) => f.id === 'rule:list-repeated')
    const [first] = rule?.requests ?? []
    const entry = report.requests.find((e) => e.id === first)
    expect(entry).toMatchObject({ operation: 'stopagent', method: 'POST' })
    expect(entry?.responseBody?.text).toContain('"errors"')

    const html = await (await fetch(`${sim.origin}/__admin/report?format=html`, { headers: sim.headers })).text()
    expect(html).toContain(`<a href="#request-${first}">#${first}</a>`)
    const article = html.slice(html.indexOf(`<article class="request" id="request-${first}"`))
    expect(article.slice(0, article.indexOf('</article>'))).toContain('&quot;errors&quot;')
  })

  it('escapes what a client sent: a script in a URL and a body is shown as text', async () => {
    const script = '<script>window.pwned=1</script>'
    await fetch(`${sim.url}/agentinfo.json?agentname=${encodeURIComponent(script)}`, { headers: sim.headers })
    await fetch(`${sim.url}/addagent`, { method: 'POST', headers: { ...sim.headers, accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify({ name: script }) })
    const report = await reportNow()
    expect(report.requests).toHaveLength(2)
    const html = await (await fetch(`${sim.origin}/__admin/report?format=html`, { headers: sim.headers })).text()
    expect(html).not.toContain(script)
    expect(html).toContain('&lt;script&gt;window.pwned=1&lt;/script&gt;')
    // The page's own scripts only: uPlot, the timeline's numbers and its script.
    expect(html.match(/<script/g)).toHaveLength(3)
  })

  it('serves the report as a readable HTML page', async () => {
    await carelessClient()
    const response = await fetch(`${sim.origin}/__admin/report`, { headers: { ...sim.headers, accept: 'text/html' } })
    expect(response.headers.get('content-type')).toContain('text/html')
    const html = await response.text()
    expect(html).toContain('<h1>fleetsim client report</h1>')
    expect(html).toContain('list-repeated')
    expect((await fetch(`${sim.origin}/__admin/report?format=html`, { headers: sim.headers })).headers.get('content-type')).toContain('text/html')
  })
})
