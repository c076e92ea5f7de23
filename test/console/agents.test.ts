/**
 * The Agents page's query (GET /console/api/agents, the page itself) and an agent's details:
 * every filter agrees with reading every agent, paging walks the matches in index order, bad
 * parameters get the catalogue's messages, and the operations run through the console answer
 * exactly as the REST and admin operations do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultMasterConfig } from '../../src/admin/templates.js'
import type { AgentsAnswer } from '../../src/console/pages/agents.js'
import { admin } from '../admin/helpers.js'
import type { FleetEvent } from '../../src/console/fleet-topic.js'
import { BASIC, consoleCall, consoleHarness, fakeResponse, json, rest, type ConsoleHarness } from './helpers.js'

type Envelope = { servicename: string; errors: Array<{ status: number; code: string; message: string }> }

describe('the agents table', () => {
  let h: ConsoleHarness
  beforeAll(async () => {
    // 3,000 agents labelled site=paris or site=berlin by the scenario.
    h = await consoleHarness({ scenario: 'scenarios/mass-outage-recovery.yaml', listen: false })
    await admin(h.app, 'POST', '/clock/advance', { seconds: '12m' })
  })
  afterAll(async () => {
    await h?.close()
  })

  const find = async (query: string): Promise<AgentsAnswer> => {
    const response = await consoleCall(h.app, 'GET', `/api/agents?${query}`)
    expect(response.statusCode, response.body).toBe(200)
    return json<AgentsAnswer>(response)
  }
  /** Every existing agent's name matching `test`, in index order. */
  const everyAgent = (test: (index: number) => boolean) => [...h.engine.indices()].filter(test).map((i) => h.engine.name(i))
  /** All matches of a query, page by page. */
  const allPages = async (query: string, limit = 500): Promise<string[]> => {
    const names: string[] = []
    for (let offset = 0; ; offset += limit) {
      const page = await find(`${query}&offset=${offset}&limit=${limit}`)
      names.push(...page.agents.map((a) => a.name))
      if (offset + limit >= page.total) {
        expect(names).toHaveLength(page.total)
        return names
      }
    }
  }

  it('pages through every agent in index order', async () => {
    const first = await find('')
    expect(first).toMatchObject({ total: 3000, offset: 0, limit: 50 })
    expect(first.agents.map((a) => a.name)).toEqual(everyAgent(() => true).slice(0, 50))
    const later = await find('offset=2990&limit=20')
    expect(later.agents.map((a) => a.name)).toEqual(everyAgent(() => true).slice(2990))
    expect(await allPages('')).toEqual(everyAgent(() => true))
  })

  it('shows each agent as agentinfo does', async () => {
    const [row] = (await find('limit=1')).agents
    const info = json<{ values: Array<{ content: Record<string, unknown> }> }>(await rest(h.app, 'GET', `agentinfo?agentname=${row.name}`)).values[0].content
    expect(row).toMatchObject({ name: info.name, uuid: info.uuid, state: info.status, os: info.os, version: info.version, address: info.address })
  })

  it('finds by state, OS and label exactly the agents that have them', async () => {
    const states = json<{ byState: Record<string, number> }>(await admin(h.app, 'GET', '/fleet')).byState
    expect(states.OFFLINE).toBeGreaterThan(0)
    expect(await allPages('state=OFFLINE')).toEqual(everyAgent((i) => h.engine.view(i, false).status === 'OFFLINE'))
    expect(await allPages('state=offline,error')).toEqual(everyAgent((i) => ['OFFLINE', 'ERROR'].includes(h.engine.view(i, false).status)))
    const os = h.engine.osNames()[2]
    expect(await allPages(`os=${encodeURIComponent(os)}`)).toEqual(everyAgent((i) => h.engine.view(i, false).os === os))
    const paris = everyAgent((i) => h.engine.scenarioLabelsOf(i).some((l) => l.name === 'site' && l.value === 'paris'))
    expect(paris.length).toBeGreaterThan(100)
    expect(await allPages('label=site%3Dparis')).toEqual(paris)
    expect((await find('label=site')).total).toBe(3000)
    expect((await find('label=site%3Dlondon')).total).toBe(0)
  })

  it('finds agents by their number', async () => {
    for (const text of ['0042', '123', '002999', '3000', '0000']) {
      expect(await allPages(`name=${text}`), text).toEqual(everyAgent((i) => h.engine.name(i).includes(text)))
    }
  })

  it('finds by part of the name, in any case, renamed agents by their new name', async () => {
    const [index] = h.engine.indices()
    const config = h.engine.config(index)
    await h.engine.modifyAgent(index, 'Renamed-Gateway', config)
    for (const text of ['web', 'WEB-', '-00001', '0042', 'gateway', h.engine.name(1234).slice(2, 9)]) {
      expect(await allPages(`name=${encodeURIComponent(text)}`), text).toEqual(everyAgent((i) => h.engine.name(i).toLowerCase().includes(text.toLowerCase())))
    }
  })

  it('finds by master template and custom label, as the REST operations assigned them', async () => {
    h.manager.templates.add('master', { name: 'edge-baseline', description: '', config: defaultMasterConfig('00') })
    const picked = [...h.engine.indices()].filter((i) => i % 97 === 5)
    const uuids = picked.map((i) => h.engine.uuid(i)).join(',')
    expect((await rest(h.app, 'POST', `assigntemplatetoagent?agentUuids=${uuids}&templateName=edge-baseline`)).statusCode).toBe(200)
    expect(await allPages('template=edge-baseline')).toEqual(picked.map((i) => h.engine.name(i)))
    expect((await find('template=none')).total).toBe(3000 - picked.length)
    const labelled = picked.slice(0, 7)
    expect((await rest(h.app, 'POST', `setcustomlabel?agentUuids=${labelled.map((i) => h.engine.uuid(i)).join(',')}`, { name: 'rack', value: 'r12' })).statusCode).toBe(200)
    expect(await allPages('label=rack')).toEqual(labelled.map((i) => h.engine.name(i)))
    expect(await allPages('label=rack%3Dr12&template=edge-baseline')).toEqual(labelled.map((i) => h.engine.name(i)))
    expect((await find('label=rack%3Dr13')).total).toBe(0)
  })

  it('says which parameter is wrong and what it may be', async () => {
    const cases: Array<[string, string, string]> = [
      ['state=SLEEPING', 'E_NOT_IN_ENUM', 'The query parameter "state" must be one of "ONLINE", "OFFLINE", "ERROR", "UNMANAGED", "UNTRUSTED", "FORGED", got "SLEEPING".'],
      ['limit=0', 'E_INVALID_VALUE', 'The query parameter "limit" must be a whole number from 1 to 500, got "0".'],
      ['offset=-1', 'E_INVALID_VALUE', 'The query parameter "offset" must be a whole number from 0 to 9007199254740991, got "-1".'],
      ['template=gold', 'E_NOT_IN_ENUM', 'The query parameter "template" must be one of "none", "edge-baseline", got "gold".']
    ]
    for (const [query, code, message] of cases) {
      const response = await consoleCall(h.app, 'GET', `/api/agents?${query}`)
      expect(response.statusCode, query).toBe(400)
      expect(json<Envelope>(response).errors[0]).toEqual({ status: 400, code, message })
    }
    const page = await h.app.inject({ url: '/console/agents?state=SLEEPING', headers: { authorization: BASIC } })
    expect(page.body).toContain('must be one of')
    // The page says the request was wrong as the JSON API does: not 200.
    expect(page.statusCode).toBe(400)
  })

  it('serves the same page of agents as HTML, with links to the next page and each agent', async () => {
    const page = await h.app.inject({ url: '/console/agents?label=site%3Dberlin&limit=10&offset=10', headers: { authorization: BASIC } })
    expect(page.statusCode).toBe(200)
    const { agents, total } = await find('label=site%3Dberlin&limit=10&offset=10')
    for (const agent of agents) expect(page.body).toContain(`<a href="/console/agents/${agent.name}">${agent.name}</a>`)
    expect(page.body).toContain(`Agents 11–20 of ${total.toLocaleString('en-US')}`)
    expect(page.body).toContain('<a rel="next" href="/console/agents?label=site%3Dberlin&amp;offset=20&amp;limit=10">')
    expect(page.body).toContain('<a rel="prev" href="/console/agents?label=site%3Dberlin&amp;limit=10">')
  })
})

describe("an agent's page", () => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await consoleHarness({ agents: 30, listen: false })
  })
  afterAll(async () => {
    await h?.close()
  })

  it('has the record and modules agentinfo gives and the certificate certificateinfo lists', async () => {
    const name = h.engine.name(3)
    const details = json<{ record: unknown; certificate: { fingerprint: string } }>(await consoleCall(h.app, 'GET', `/api/agents/${name}`))
    const info = json<{ values: Array<{ content: unknown }> }>(await rest(h.app, 'GET', `agentinfo?agentname=${name}&agentwithmodules=true`))
    expect(details.record).toEqual(info.values[0].content)
    const certificates = json<{ values: Array<{ name: string }> }>(await rest(h.app, 'GET', 'certificateinfo')).values
    expect(certificates.find((c) => c.name === name)).toEqual(details.certificate)
    const page = await h.app.inject({ url: `/console/agents/${name}`, headers: { authorization: BASIC } })
    expect(page.body).toContain(`<h1 data-agent="${name}"`)
    expect(page.body).toContain(details.certificate.fingerprint)
  })

  it("shows the agent's configuration as addagent takes it, its fingerprints as certificateinfo shows them", async () => {
    const name = h.engine.name(4)
    const details = json<{ config: Record<string, unknown>; certificate: { fingerprint: string } }>(await consoleCall(h.app, 'GET', `/api/agents/${name}`))
    const config = h.engine.config(4)
    const [ca] = json<{ values: Array<{ fingerprint: string; type: string }> }>(await rest(h.app, 'GET', 'certificateinfo')).values
    expect(ca.type).toBe('CA')
    expect(details.config).toEqual({
      address: config.address,
      port: config.port,
      'ca-fingerprint': ca.fingerprint,
      'cert-fingerprint': details.certificate.fingerprint,
      'is-log-to-file': config.isLogToFile,
      'log-level': config.logLevel,
      mode: config.mode,
      verbatim: config.verbatim
    })
    expect(details.config['cert-fingerprint']).toMatch(/^([0-9A-F]{2}:){19}[0-9A-F]{2}$/)
    const page = await h.app.inject({ url: `/console/agents/${name}`, headers: { authorization: BASIC } })
    expect(page.body).toContain('cert-fingerprint')
    expect(page.body).not.toContain('certFingerprint')
  })

  it('answers an unknown agent with the message agentinfo gives', async () => {
    const console = await consoleCall(h.app, 'GET', '/api/agents/no-such-agent')
    const direct = await rest(h.app, 'GET', 'agentinfo?agentname=no-such-agent')
    expect(console.statusCode).toBe(404)
    expect(json<Envelope>(console).errors).toEqual(json<Envelope>(direct).errors)
    const page = await h.app.inject({ url: '/console/agents/no-such-agent', headers: { authorization: BASIC } })
    expect(page.body).toContain(json<Envelope>(direct).errors[0].message.replace(/"/g, '&quot;'))
    expect(page.statusCode).toBe(404)
  })

  it('runs REST operations as they are: same status and body as the operation called directly', async () => {
    const [a, b] = [h.engine.uuid(4), h.engine.uuid(5)]
    const viaConsole = await consoleCall(h.app, 'POST', `/api/rest/stopagent?agentUuids=${a}`)
    const direct = await rest(h.app, 'POST', `stopagent?agentUuids=${b}`)
    expect(viaConsole.statusCode).toBe(direct.statusCode)
    expect(viaConsole.body.replaceAll(h.engine.name(4), 'X').replaceAll(a, 'U')).toBe(direct.body.replaceAll(h.engine.name(5), 'X').replaceAll(b, 'U'))
    expect(h.engine.view(4, false).status).toBe('ERROR')
    const unknown = '00000000-0000-4000-8000-000000000000'
    const refused = await consoleCall(h.app, 'POST', `/api/rest/startagent?agentUuids=${unknown}`)
    const refusedDirect = await rest(h.app, 'POST', `startagent?agentUuids=${unknown}`)
    expect([refused.statusCode, refused.body]).toEqual([refusedDirect.statusCode, refusedDirect.body])
  })

  it('runs admin overrides as they are, errors included', async () => {
    const name = h.engine.name(6)
    const offline = await consoleCall(h.app, 'POST', `/api/admin/agents/${name}/override`, { action: 'offline', for: '5m' })
    expect(offline.statusCode).toBe(200)
    expect(json(offline)).toEqual({ agent: name, action: 'offline', for: 300, status: 'OFFLINE' })
    const wrong = await consoleCall(h.app, 'POST', `/api/admin/agents/${name}/override`, { action: 'nap' })
    const wrongDirect = await admin(h.app, 'POST', `/agents/${name}/override`, { action: 'nap' })
    expect([wrong.statusCode, wrong.body]).toEqual([wrongDirect.statusCode, wrongDirect.body])
    const fail = await consoleCall(h.app, 'POST', `/api/admin/agents/${name}/fail-next-reconnect`)
    expect(json(fail)).toEqual({ agent: name, failNextReconnect: true })
  })
})

describe('advancing from the Fleet page', () => {
  it('leaves the fleet where one admin advance would, with the chart sampled along the way', async () => {
    const [viaConsole, direct] = await Promise.all([
      consoleHarness({ scenario: 'scenarios/mass-outage-recovery.yaml', listen: false }),
      consoleHarness({ scenario: 'scenarios/mass-outage-recovery.yaml', listen: false })
    ])
    try {
      const stepped = await consoleCall(viaConsole.app, 'POST', '/api/fleet/advance', { seconds: '1h' })
      const once = await admin(direct.app, 'POST', '/clock/advance', { seconds: '1h' })
      expect([stepped.statusCode, stepped.body]).toEqual([once.statusCode, once.body])
      expect(json<{ digest: string }>(await admin(viaConsole.app, 'GET', '/fleet')).digest).toBe(json<{ digest: string }>(await admin(direct.app, 'GET', '/fleet')).digest)
      // The chart's history, as a page opening now gets it: a sample at least every 60 virtual seconds.
      const page = fakeResponse()
      viaConsole.built.streams.attach(page, ['fleet'])
      const first = JSON.parse(/^data: (.*)$/m.exec(page.text())?.[1] ?? 'null') as FleetEvent
      const seconds = first.series?.seconds ?? []
      expect(seconds.at(-1)).toBe(3600)
      expect(seconds.length).toBeGreaterThanOrEqual(60)
      for (let k = 1; k < seconds.length; k++) expect(seconds[k] - seconds[k - 1]).toBeLessThanOrEqual(60)
    } finally {
      await Promise.all([viaConsole.close(), direct.close()])
    }
  })

  it("answers a value the admin API refuses with the admin API's error", async () => {
    const h = await consoleHarness({ agents: 10, listen: false })
    try {
      for (const seconds of ['soon', -5, '31d', 1.5]) {
        const viaConsole = await consoleCall(h.app, 'POST', '/api/fleet/advance', { seconds })
        const direct = await admin(h.app, 'POST', '/clock/advance', { seconds })
        expect([viaConsole.statusCode, viaConsole.body], String(seconds)).toEqual([direct.statusCode, direct.body])
        expect(viaConsole.statusCode).toBe(400)
      }
    } finally {
      await h.close()
    }
  })
})
