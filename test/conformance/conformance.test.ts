import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import { CHECKS } from '../../src/conformance/checks.js'
import { formatJunit, formatTable } from '../../src/conformance/output.js'
import { runSuite } from '../../src/conformance/suite.js'
import { httpTransport } from '../../src/conformance/http-client.js'

describe('the conformance suite against fleetsim over HTTPS', () => {
  let sim: RunningFleetsim
  beforeAll(async () => {
    sim = await startFleetsim({ agents: 30, seed: 3 })
  })
  afterAll(() => sim.close())

  it('passes every check, trusting only the generated CA', async () => {
    const results = await runSuite({ target: sim.baseUrl, ...sim.credentials, transport: httpTransport({ ca: sim.ca }) })
    expect(results.map((r) => r.id)).toEqual(CHECKS.map((c) => c.id))
    expect(results.filter((r) => r.status !== 'pass'), formatTable(results)).toEqual([])
  })

  it('calls only GET operations with --read-only, skipping the write checks', async () => {
    sim.clearJournal()
    const results = await runSuite({ target: `${sim.url}/`, ...sim.credentials, transport: httpTransport({ ca: sim.ca }), readOnly: true })
    expect(results.filter((r) => r.status === 'fail')).toEqual([])
    expect(results.filter((r) => r.status === 'skip').map((r) => r.id)).toEqual(CHECKS.filter((c) => c.write).map((c) => c.id))
    expect(new Set(sim.journal().map((e) => e.method))).toEqual(new Set(['GET']))
  })

  it('cleans up the agents it created', async () => {
    const before = sim.engine.size()
    await runSuite({ target: sim.baseUrl, ...sim.credentials, transport: httpTransport({ ca: sim.ca }) })
    expect(sim.engine.size()).toBe(before)
  })

  it('writes JUnit XML with one test case per check', async () => {
    const results = await runSuite({ target: sim.baseUrl, ...sim.credentials, transport: httpTransport({ ca: sim.ca }), only: ['auth-rejected', 'xml-root'] })
    const xml = formatJunit(results, sim.baseUrl)
    expect(xml).toContain('<testsuites tests="2" failures="0" skipped="0"')
    expect(xml.match(/<testcase /g)).toHaveLength(2)
  })
})
