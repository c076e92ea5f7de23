/**
 * The scenario library through the admin API (listed with descriptions, read as text, started
 * by id) and the dry run of PUT /__admin/scenario, whose problems an editor marks at their line.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { libraryFiles } from '../../src/scenario/index.js'
import { admin, adminHarness, type AdminHarness } from './helpers.js'

let h: AdminHarness
beforeAll(async () => {
  h = await adminHarness({ agents: 20 })
})
afterAll(() => h.close())

const YAML = { 'content-type': 'application/yaml' }

interface Listed {
  id: string
  source: string
  valid: boolean
  name: string
  description: string
  agents: number
  timeline: string[]
  faults: string[]
}

describe('GET /__admin/scenarios', () => {
  it('lists every scenario of the library with its description and what it holds', async () => {
    const response = await admin(h.app, 'GET', '/scenarios')
    expect(response.statusCode).toBe(200)
    const { scenarios } = response.json() as { scenarios: Listed[] }
    expect(scenarios).toHaveLength((await libraryFiles()).length)
    const outage = scenarios.find((s) => s.id === 'mass-outage-recovery')
    expect(outage).toMatchObject({ source: 'scenarios/mass-outage-recovery.yaml', valid: true, name: 'mass-outage-recovery', agents: 3000 })
    expect(outage?.description).toMatch(/^3,000 agents; at 10m a network outage/)
    expect(outage?.timeline.length).toBeGreaterThan(0)
    expect(scenarios.find((s) => s.id === 'slow-failing-api')?.faults.length).toBeGreaterThan(0)
  })
})

describe('GET /__admin/scenarios/<id>', () => {
  it("answers with the file's text, to edit and send back", async () => {
    const response = await admin(h.app, 'GET', '/scenarios/steady-fleet')
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^application\/yaml/)
    expect(response.body).toBe(readFileSync('scenarios/steady-fleet.yaml', 'utf8'))
  })

  it('answers an unknown id with the nearest one and the list', async () => {
    const response = await admin(h.app, 'GET', '/scenarios/steady-flet')
    expect(response.statusCode).toBe(404)
    const [error] = response.json().errors
    expect(error.code).toBe('E_UNKNOWN_SCENARIO')
    expect(error.message).toContain('did you mean "steady-fleet"?')
    expect(error.message).toContain('"flapping-network"')
  })

  it('reads nothing outside the library', async () => {
    const response = await admin(h.app, 'GET', `/scenarios/${encodeURIComponent('../package')}`)
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_SCENARIO')
  })
})

describe('POST /__admin/scenarios/<id>/start', () => {
  it('loads the library scenario and rebuilds the fleet from it', async () => {
    const response = await admin(h.app, 'POST', '/scenarios/flapping-network/start')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ name: 'flapping-network', source: 'scenarios/flapping-network.yaml', second: 0 })
    expect(h.engine.counts().agents).toBe(2000)
    await admin(h.app, 'DELETE', '/scenario')
  })

  it('answers an unknown id with E_UNKNOWN_SCENARIO and leaves the fleet as it was', async () => {
    const response = await admin(h.app, 'POST', '/scenarios/nothing-here/start')
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_SCENARIO')
    expect(h.engine.counts().agents).toBe(20)
  })
})

describe('PUT /__admin/scenario?dryRun=true', () => {
  it('checks a valid scenario, answers what it holds, and changes nothing', async () => {
    const text = 'name: tiny\ndescription: Forty agents.\nfleet:\n  agents: 40\n  templates: { dry-run-only: 0.5 }\n'
    const response = await admin(h.app, 'PUT', '/scenario?dryRun=true', text, YAML)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ valid: true, name: 'tiny', description: 'Forty agents.', agents: 40, stages: [], timeline: [], faults: [] })
    expect(h.engine.counts().agents).toBe(20)
    expect(h.engine.scenarioInfo()).toBeUndefined()
    // A real load would create the master template; a dry run does not.
    expect(h.manager.templates.get('dry-run-only')).toBeUndefined()
  })

  it('gives each problem its line, column and the bare problem, for an editor to mark', async () => {
    const text = 'description: broken\nfleet:\n  agents: ten\n  modse: { Connect: 1 }\n'
    const response = await admin(h.app, 'PUT', '/scenario?dryRun=true&source=mine.yaml', text, YAML)
    expect(response.statusCode).toBe(400)
    expect(response.json().errors.map(({ line, column, path, problem }: Record<string, unknown>) => ({ line, column, path, problem }))).toEqual([
      { line: 3, column: 11, path: 'fleet.agents', problem: 'expected an integer from 1 to 10000000, got "ten"' },
      { line: 4, column: 3, path: 'fleet.modse', problem: 'unknown key "modse"; did you mean "modes"?' }
    ])
  })

  it('refuses a scenario the engine cannot hold, as a load would', async () => {
    h.manager.templates.add('sub', { name: 'a-sub-template', config: { verbatim: '' } })
    const text = 'description: x\nfleet:\n  agents: 5\n  templates: { a-sub-template: 0.5 }\n'
    const response = await admin(h.app, 'PUT', '/scenario?dryRun=true', text, YAML)
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0].code).toBe('E_SCENARIO_UNSUPPORTED')
  })

  it('takes dryRun=true or false only', async () => {
    const response = await admin(h.app, 'PUT', '/scenario?dryRun=yes', 'description: x\n', YAML)
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_NOT_IN_ENUM', message: 'The query parameter "dryRun" must be one of "true", "false", got "yes".' })
  })
})

describe('a path segment past the router\'s 1024 characters', () => {
  it('is answered in the admin envelope, without advice for the REST operations', async () => {
    const h = await adminHarness({ agents: 5 })
    try {
      const response = await admin(h.app, 'GET', `/scenarios/${'x'.repeat(2000)}`)
      expect(response.statusCode).toBe(400)
      expect(response.headers['content-type']).toContain('application/json')
      expect(response.json()).toEqual({
        servicename: 'admin',
        errors: [{ status: 400, code: 'E_BAD_REQUEST', message: 'The request could not be read (a path segment is longer than 1024 characters, longer than any name this server has; check the path).' }]
      })
    } finally {
      await h.close()
    }
  })
})
