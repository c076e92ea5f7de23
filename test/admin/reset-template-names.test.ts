import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Identity } from '../../src/fleet/identity.js'
import { CA, call, harness, type Harness } from '../http/helpers.js'
import { admin } from './helpers.js'

// Names are unique across agents and templates, and templates outlive runs. A template made
// while its name was free (its agent deleted, or in another scenario's fleet) must not come to
// share it with an agent of a new run: the reset, load or unload is refused, and nothing changes.
let h: Harness
beforeEach(async () => {
  h = await harness(20)
})
afterEach(() => h.close())

const YAML = { 'content-type': 'application/yaml' }
const SEED = 99
const scenario = (templates = '') => `name: other-fleet
description: 20 agents of another seed.
fleet:
  agents: 20
  seed: ${SEED}
${templates}`
const master = (name: string) => ({ name, 'global-config': { address: '10.0.0.1', port: 4041, 'ca-fingerprint': CA.fingerprint } })

async function ok(response: Promise<{ statusCode: number; body: string }>): Promise<void> {
  const { statusCode, body } = await response
  expect(statusCode, body).toBe(200)
}

/** `doing` for a kept template (renamed through REST, then the action again); undefined for the scenario's own (renamed in it). */
function expectRefused(response: { statusCode: number; json(): unknown }, names: string[], doing: string | undefined): void {
  expect(response.statusCode).toBe(409)
  const error = (response.json() as { errors: Array<{ code: string; message: string }> }).errors[0]
  expect(error.code).toBe('E_TEMPLATE_NAMES_AGENT')
  for (const name of names) expect(error.message).toContain(`"${name}"`)
  if (doing === undefined) expect(error.message).toMatch(/^The scenario's master template .* rename it in the scenario\.$/)
  else expect(error.message).toContain(`(modifymastertemplate, modifysubtemplate), then ${doing} again`)
}

/** Deletes generated agent `index` for good (its certificate revoked, so its name is free) and makes a master template of its name. */
async function templateNamedAsDeleted(index: number): Promise<string> {
  const name = h.fleet.name(index)
  expect((await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.fleet.uuid(index)}&revokeCert=true`)).statusCode).toBe(204)
  await ok(call(h.app, 'POST', 'addmastertemplate', master(name)))
  return name
}

describe('a template named as an agent of the new run', () => {
  it('refuses a reset, changing nothing, until the template is renamed', async () => {
    const name = await templateNamedAsDeleted(3)
    expectRefused(await admin(h.app, 'POST', '/reset'), [name], 'reset')
    expect(h.fleet.findByName(name)).toBeUndefined()
    expect(h.fleet.size()).toBe(19)
    await ok(call(h.app, 'PUT', `modifymastertemplate?masterTemplateName=${name}`, master('renamed')))
    await ok(admin(h.app, 'POST', '/reset'))
    expect(h.fleet.findByName(name)).toBe(3)
  })

  it('refuses a scenario whose fleet starts with an agent of a template’s name, in a dry run too', async () => {
    const taken = new Identity(SEED).name(5)
    await ok(call(h.app, 'POST', 'addsubtemplate', { name: taken }))
    const before = h.fleet.name(0)
    expectRefused(await admin(h.app, 'PUT', '/scenario?dryRun=true', scenario(), YAML), [taken], 'load the scenario')
    expectRefused(await admin(h.app, 'PUT', '/scenario', scenario(), YAML), [taken], 'load the scenario')
    expect(h.fleet.name(0)).toBe(before)
    expect((await admin(h.app, 'GET', '/scenario')).statusCode).toBe(404)
  })

  it('refuses a scenario whose timeline joins an agent under a template’s name, and takes one without the join', async () => {
    const joiner = new Identity(SEED).name(20)
    await ok(call(h.app, 'POST', 'addsubtemplate', { name: joiner }))
    const join = `timeline:\n  - name: late\n    at: 1m\n    action: join\n    pick: { count: 1 }\n`
    expectRefused(await admin(h.app, 'PUT', '/scenario', scenario(join), YAML), [joiner], 'load the scenario')
    // Without a join its fleet never reaches the 21st name.
    await ok(admin(h.app, 'PUT', '/scenario', scenario(), YAML))
  })

  it('refuses a scenario that would create a master template named as one of its own agents, and takes back the ones it created', async () => {
    const own = new Identity(SEED).name(0)
    const templates = `  templates:\n    fresh-template: 0.5\n    ${own}: 0.5\n`
    expectRefused(await admin(h.app, 'PUT', '/scenario?dryRun=true', scenario(templates), YAML), [own], undefined)
    expectRefused(await admin(h.app, 'PUT', '/scenario', scenario(templates), YAML), [own], undefined)
    for (const name of ['fresh-template', own]) expect((await call(h.app, 'GET', `viewagentortemplate?name=${name}`)).statusCode, name).toBe(404)
  })

  it('refuses to stop a scenario when the fleet it goes back to starts with an agent of a template’s name', async () => {
    const original = h.fleet.name(2)
    await ok(admin(h.app, 'PUT', '/scenario', scenario(), YAML))
    await ok(call(h.app, 'POST', 'addmastertemplate', master(original)))
    expectRefused(await admin(h.app, 'DELETE', '/scenario'), [original], 'stop the scenario')
    expect((await admin(h.app, 'GET', '/scenario')).statusCode).toBe(200)
  })
})
