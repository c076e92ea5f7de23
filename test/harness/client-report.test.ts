/**
 * Done-when check of the harness: a small client that breaks two rules and retries a partial
 * failure without backoff gets a report naming both rules and the missing backoff.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/harness/embed.js'
import type { ClientReport } from '../../src/harness/report.js'
import { renderText } from '../../src/harness/report-render.js'

describe('the client report of a careless client', () => {
  let sim: RunningFleetsim
  beforeAll(async () => {
    sim = await startFleetsim({ http: true, agents: 40, seed: 5 })
  })
  afterAll(() => sim.close())

  /** The client under test: lists online agents, then stops some, retrying until no errors. */
  async function carelessClient(): Promise<void> {
    // Rule missing-accept: no accept header and no suffix (the answer is XML).
    await fetch(`${sim.url}/agentinfo?agentstate=OFFLINE`, { headers: sim.headers })
    const online = sim.engine.uuid([...sim.engine.indices(new Set(['ONLINE']))][0])
    const offline = sim.engine.uuid([...sim.engine.indices(new Set(['OFFLINE']))][0])
    // Rule list-repeated: agentUuids repeated instead of comma-delimited.
    const url = `${sim.url}/stopagent?agentUuids=${online}&agentUuids=${offline}`
    for (let attempt = 0; attempt < 4; attempt++) {
      const answer = await fetch(url, { method: 'POST', headers: { ...sim.headers, accept: 'application/json' } })
      const body = (await answer.json()) as { errors?: unknown[] }
      if (body.errors === undefined) break
      // No backoff: the same short pause after every failure (real time, kept short).
      await sleep(15)
    }
  }

  it('names both broken rules with an example request each, and the missing backoff', async () => {
    await carelessClient()
    const response = await fetch(`${sim.origin}/__admin/report`, { headers: sim.headers })
    expect(response.status).toBe(200)
    const report = (await response.json()) as ClientReport

    expect(report.violations.map((v) => v.rule).sort()).toEqual(['list-repeated', 'missing-accept'])
    const repeated = report.violations.find((v) => v.rule === 'list-repeated')
    expect(repeated).toMatchObject({ count: 4, example: { method: 'POST', detail: '"agentUuids" given 2 times' } })

    expect(report.retries.backoff).toBe('missing')
    expect(report.retries.chains).toHaveLength(1)
    expect(report.retries.chains[0]).toMatchObject({ operation: 'stopagent', method: 'POST', backoff: 'flat', nonIdempotent: true, recovered: false })
    expect(report.partialFailures.reactions['all-again']).toBe(3)

    const ids = report.findings.map((f) => f.id)
    expect(ids).toEqual(expect.arrayContaining(['rule:list-repeated', 'rule:missing-accept', 'no-backoff', 'non-idempotent-retry', 'errors-retried-all']))
    const text = renderText(report)
    expect(text).toContain('list-repeated')
    expect(text).toContain('missing-accept')
    expect(text).toContain('No backoff')
  })

  it('serves the report as a readable HTML page', async () => {
    const response = await fetch(`${sim.origin}/__admin/report`, { headers: { ...sim.headers, accept: 'text/html' } })
    expect(response.headers.get('content-type')).toContain('text/html')
    const html = await response.text()
    expect(html).toContain('<h1>fleetsim client report</h1>')
    expect(html).toContain('list-repeated')
    expect((await fetch(`${sim.origin}/__admin/report?format=html`, { headers: sim.headers })).headers.get('content-type')).toContain('text/html')
  })
})
