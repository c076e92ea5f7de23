import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { admin, adminHarness, type AdminHarness } from './helpers.js'

let h: AdminHarness
beforeEach(async () => {
  h = await adminHarness({ agents: 20 })
})
afterEach(() => h.close())

const YAML = { 'content-type': 'application/yaml' }
const small = `name: tiny
description: Forty agents, two templates.
fleet:
  agents: 40
  seed: 9
  templates: { linux-baseline: 0.5 }
timeline:
  - { name: blip, at: 10m, pick: { count: 5 }, action: offline, for: 1m }
faults:
  - { name: slow, operation: agentinfo, latency: 200 }
`

describe('loading a scenario through the admin API', () => {
  it('loads YAML, rebuilds the fleet from it and answers with its progress', async () => {
    const response = await admin(h.app, 'PUT', '/scenario', small, YAML)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ name: 'tiny', description: 'Forty agents, two templates.', second: 0, timeline: [{ name: 'blip', fired: 0 }], nextTimelineAt: 600 })
    expect(h.engine.counts().agents).toBe(40)
  })

  it('creates the master templates the scenario names in the manager', async () => {
    await admin(h.app, 'PUT', '/scenario', small, YAML)
    const template = h.manager.templates.get('linux-baseline')
    expect(template?.kind).toBe('master')
  })

  it('refused for a template name an agent has, leaves no template behind, and a dry run refuses it as the load does', async () => {
    const taken = h.engine.name(3)
    const twoTemplates = small.replace('templates: { linux-baseline: 0.5 }', `templates: { linux-baseline: 0.5, ${taken}: 0.5 }`)
    for (const query of ['?dryRun=true', '']) {
      const response = await admin(h.app, 'PUT', `/scenario${query}`, twoTemplates, YAML)
      expect(response.statusCode, query).toBe(409)
      expect(response.json().errors[0]).toMatchObject({ code: 'E_DUPLICATE_NAME', message: expect.stringContaining(`The scenario's master template "${taken}" cannot be created`) })
      // linux-baseline, created first on the load, was taken back.
      expect(h.manager.templates.get('linux-baseline'), query).toBeUndefined()
      expect(h.engine.counts().agents).toBe(20)
    }
  })

  it('refused for a template name past --max-name-bytes, by the dry run too, saying it is the scenario\'s template', async () => {
    const long = small.replace('linux-baseline', 'x'.repeat(5000))
    for (const query of ['?dryRun=true', '']) {
      const response = await admin(h.app, 'PUT', `/scenario${query}`, long, YAML)
      expect(response.statusCode, query).toBe(400)
      expect(response.json().errors[0].message, query).toContain('The scenario\'s master template "xxx')
    }
  })

  it('reuses a master template the manager already has', async () => {
    const existing = h.manager.templates.add('master', {
      name: 'linux-baseline',
      config: { address: 'a', port: 1, caFingerprint: 'x', isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' }
    })
    await admin(h.app, 'PUT', '/scenario', small, YAML)
    expect(h.manager.templates.get('linux-baseline')).toBe(existing)
  })

  it('accepts JSON', async () => {
    const body = { description: 'json scenario', fleet: { agents: 12, seed: 3 } }
    const response = await admin(h.app, 'PUT', '/scenario?source=from-json', body)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ name: 'from-json', source: 'from-json' })
    expect(h.engine.counts().agents).toBe(12)
  })

  it('lists every problem with its path, line and scenario code', async () => {
    const bad = 'description: broken\nfleet:\n  agents: ten\n  modse: { Connect: 1 }\n'
    const response = await admin(h.app, 'PUT', '/scenario', bad, YAML)
    expect(response.statusCode).toBe(400)
    const { servicename, errors } = response.json()
    expect(servicename).toBe('admin')
    expect(errors).toHaveLength(2)
    expect(errors[0]).toMatchObject({ status: 400, code: 'E_INVALID_SCENARIO', path: 'fleet.agents', line: 3, issue: 'FSC_NUMBER' })
    expect(errors[0].message).toContain('admin-upload:3:11 fleet.agents:')
    expect(errors[1]).toMatchObject({ code: 'E_INVALID_SCENARIO', path: 'fleet.modse', issue: 'FSC_UNKNOWN_KEY' })
    expect(errors[1].message).toContain('did you mean "modes"?')
  })

  it('reports YAML syntax errors with their line', async () => {
    const response = await admin(h.app, 'PUT', '/scenario', 'description: [unclosed\n', YAML)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_INVALID_SCENARIO', issue: 'FSC_YAML' })
  })

  it('keeps the running fleet when the scenario is invalid', async () => {
    await admin(h.app, 'PUT', '/scenario', 'fleet: 3\n', YAML)
    expect(h.engine.counts().agents).toBe(20)
  })

  it('refuses other content types with E_SCENARIO_MEDIA_TYPE, at the path with a trailing slash and a query too', async () => {
    for (const path of ['/scenario', '/scenario/', '/scenario?dryRun=true']) {
      const response = await admin(h.app, 'PUT', path, small, { 'content-type': 'text/plain' })
      expect(response.statusCode, path).toBe(415)
      expect(response.json().errors[0].code, path).toBe('E_SCENARIO_MEDIA_TYPE')
      expect(response.json().errors[0].message, path).toContain('application/yaml')
    }
    const rule = await admin(h.app, 'POST', '/faults/', 'name: x', { 'content-type': 'text/plain' })
    expect(rule.json().errors[0]).toMatchObject({ code: 'E_SCENARIO_MEDIA_TYPE', message: expect.stringContaining('fault rule') })
  })

  it('refuses a type it does not read with E_SCENARIO_MEDIA_TYPE whatever its charset (not the REST API\'s charset error for XML)', async () => {
    const response = await admin(h.app, 'PUT', '/scenario', small, { 'content-type': 'application/xml; charset=utf-16' })
    expect(response.statusCode).toBe(415)
    expect(response.json().errors[0].code).toBe('E_SCENARIO_MEDIA_TYPE')
  })

  it('refuses a scenario in a charset it does not read with E_UNSUPPORTED_CHARSET, and keeps the fleet', async () => {
    const response = await admin(h.app, 'PUT', '/scenario', small, { 'content-type': 'application/yaml; charset=utf-16' })
    expect(response.statusCode).toBe(415)
    expect(response.json()).toMatchObject({ servicename: 'admin', errors: [{ code: 'E_UNSUPPORTED_CHARSET' }] })
    expect(h.engine.counts().agents).toBe(20)
  })

  it('refuses an empty body with E_MISSING_BODY saying what to send and as what', async () => {
    const response = await admin(h.app, 'PUT', '/scenario', ' ', YAML)
    expect(response.json().errors[0]).toMatchObject({
      code: 'E_MISSING_BODY',
      message: 'Operation "PUT /__admin/scenario" needs a request body: the scenario, as YAML (application/yaml) or JSON (application/json).'
    })
  })

  it('answers GET without a scenario with E_NO_SCENARIO', async () => {
    const response = await admin(h.app, 'GET', '/scenario')
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].code).toBe('E_NO_SCENARIO')
  })

  it('shows the progress of the running scenario', async () => {
    await admin(h.app, 'PUT', '/scenario', small, YAML)
    await admin(h.app, 'POST', '/clock/advance', { seconds: 900 })
    const response = await admin(h.app, 'GET', '/scenario')
    expect(response.json()).toMatchObject({ name: 'tiny', second: 900, timeline: [{ name: 'blip', fired: 1 }], nextTimelineAt: null })
  })

  it('goes back to the default fleet on DELETE', async () => {
    await admin(h.app, 'PUT', '/scenario', small, YAML)
    const response = await admin(h.app, 'DELETE', '/scenario')
    expect(response.json()).toMatchObject({ scenario: null, agents: 20 })
    expect(h.engine.scenarioInfo()).toBeUndefined()
  })

  it('loads a library file unchanged', async () => {
    const text = readFileSync('scenarios/mass-outage-recovery.yaml', 'utf8')
    const response = await admin(h.app, 'PUT', '/scenario?source=scenarios/mass-outage-recovery.yaml', text, { 'content-type': 'text/yaml' })
    expect(response.json().name).toBe('mass-outage-recovery')
  })
})

describe('resetting the fleet', () => {
  it('starts the scenario again from its start, with the same digest after the same time', async () => {
    await admin(h.app, 'PUT', '/scenario', small, YAML)
    await admin(h.app, 'POST', '/clock/advance', { seconds: 700 })
    const first = (await admin(h.app, 'GET', '/fleet')).json()
    const reset = await admin(h.app, 'POST', '/reset')
    expect(reset.json()).toMatchObject({ scenario: 'tiny', second: 0, agents: 40 })
    await admin(h.app, 'POST', '/clock/advance', { seconds: 700 })
    expect((await admin(h.app, 'GET', '/fleet')).json()).toEqual(first)
  })

  it('reports the fleet as agents, counts by state and a digest', async () => {
    const body = (await admin(h.app, 'GET', '/fleet')).json()
    expect(body.agents).toBe(20)
    expect(Object.values(body.byState as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(20)
    expect(body.digest).toMatch(/^[0-9a-f]{64}$/)
  })
})
