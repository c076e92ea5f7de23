import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { consoleCall } from '../console/helpers.js'
import { agentBody, CA, call, harness, type Harness } from '../http/helpers.js'
import { admin } from './helpers.js'

// The manager keeps what clients gave each agent (custom labels, templates) by agent index. A
// reset starts a new run whose agents take the indices from 0 again: what was given an agent of
// the run before must go with it, not pass to the new run's agent at its index. The labels and
// templates themselves are the manager's and stay.
let h: Harness
beforeEach(async () => {
  h = await harness(20, { maxLabelsPerAgent: 1 })
})
afterEach(() => h.close())

const YAML = { 'content-type': 'application/yaml' }
const otherFleet = `name: other-fleet
description: 20 agents of another seed.
fleet:
  agents: 20
  seed: 99
`
const master = (name: string) => ({ name, 'global-config': { address: '10.0.0.1', port: 4041, 'ca-fingerprint': CA.fingerprint } })

interface Details {
  labels: Array<{ name: string; value: string }>
  templates: { master: string | null; subs: string[] }
}

/** What the console's agent page shows of an agent's labels and templates. */
async function details(name: string): Promise<Details> {
  const response = await consoleCall(h.app, 'GET', `/api/agents/${encodeURIComponent(name)}`)
  expect(response.statusCode, response.body).toBe(200)
  return response.json() as Details
}

/** The agents the console's filter finds with a label. */
async function carrying(label: string): Promise<string[]> {
  const response = await consoleCall(h.app, 'GET', `/api/agents?label=${encodeURIComponent(label)}`)
  expect(response.statusCode, response.body).toBe(200)
  return (response.json() as { agents: Array<{ name: string }> }).agents.map((a) => a.name)
}

async function addAgent(name: string): Promise<number> {
  const response = await call(h.app, 'POST', 'addagent', agentBody(name))
  expect(response.statusCode, response.body).toBe(200)
  return h.fleet.findByName(name) as number
}

/** Labels `env=prod` and assigns master `base` and sub `extra` to the agent, through the REST API. */
async function labelAndAssign(index: number): Promise<void> {
  const uuid = h.fleet.uuid(index)
  for (const [operation, body] of [
    ['addmastertemplate', master('base')],
    ['addsubtemplate', { name: 'extra' }],
    [`setcustomlabel?agentUuids=${uuid}`, { name: 'env', value: 'prod' }],
    [`assigntemplatetoagent?agentUuids=${uuid}&templateName=base&subTemplateNames=extra`, undefined]
  ] as const) {
    const response = await call(h.app, 'POST', operation, body)
    expect(response.statusCode, `${operation}: ${response.body}`).toBe(200)
  }
  expect(await details(h.fleet.name(index))).toMatchObject({ labels: [{ name: 'env', value: 'prod' }], templates: { master: 'base', subs: ['extra'] } })
}

/** An agent nobody gave a label or template: it takes a label of its own, and has that one only. */
async function expectBare(name: string): Promise<void> {
  // --max-labels-per-agent is 1: a label kept from another agent would leave no room (409).
  const response = await call(h.app, 'POST', `setcustomlabel?agentUuids=${h.fleet.uuid(h.fleet.findByName(name) as number)}`, { name: 'team', value: 'blue' })
  expect(response.statusCode, response.body).toBe(200)
  expect(await carrying('env')).not.toContain(name)
  expect(await details(name)).toMatchObject({ labels: [{ name: 'team', value: 'blue' }], templates: { master: null, subs: [] } })
}

/** The label and the templates are the manager's: they outlive the agent they were given. */
async function expectManagerKept(): Promise<void> {
  expect((await call(h.app, 'GET', 'viewagentortemplate?name=base')).statusCode).toBe(200)
  expect((await call(h.app, 'GET', 'viewagentortemplate?name=extra')).statusCode).toBe(200)
  const other = await addAgent('labelled-again')
  expect((await call(h.app, 'POST', `setcustomlabel?agentUuids=${h.fleet.uuid(other)}`, { name: 'env', value: 'test' })).statusCode).toBe(200)
  expect(await carrying('env')).toEqual(['labelled-again'])
}

describe('labels and templates of an agent across a reset', () => {
  it('does not pass an added agent’s labels and templates to the agent the new run adds at its index', async () => {
    const before = await addAgent('before-reset')
    await labelAndAssign(before)
    expect((await admin(h.app, 'POST', '/reset')).statusCode).toBe(200)
    expect(await addAgent('after-reset')).toBe(before)
    await expectBare('after-reset')
    await expectManagerKept()
  })

  it('starts a generated agent of the same fleet without what a client gave it in the run before', async () => {
    const name = h.fleet.name(3)
    await labelAndAssign(3)
    expect((await admin(h.app, 'POST', '/reset')).statusCode).toBe(200)
    expect(h.fleet.findByName(name)).toBe(3)
    await expectBare(name)
    await expectManagerKept()
  })

  it('starts the agents of another scenario without what a client gave the old fleet’s agent at their index', async () => {
    await labelAndAssign(3)
    expect((await admin(h.app, 'PUT', '/scenario', otherFleet, YAML)).statusCode).toBe(200)
    await expectBare(h.fleet.name(3))
    expect((await admin(h.app, 'DELETE', '/scenario')).statusCode).toBe(200)
    await expectBare(h.fleet.name(3))
  })
})

describe('labels and templates of a deleted agent', () => {
  it('gives an agent added after a delete none of the deleted agent’s', async () => {
    const deleted = await addAgent('deleted')
    await labelAndAssign(deleted)
    expect((await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.fleet.uuid(deleted)}&revokeCert=true`)).statusCode).toBe(204)
    await addAgent('added-after')
    await expectBare('added-after')
  })
})
