/**
 * The facts checks hand on: each need is provided by an earlier check, and a check whose need
 * is missing is skipped with a sentence naming the fact, the check it comes from and why it is
 * missing (that check failed, was skipped, was not run, or passed without finding it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHECKS } from '../../src/conformance/checks.js'
import { FACT_TEXT, type FactName } from '../../src/conformance/facts.js'
import { runSuite, type CheckResult } from '../../src/conformance/suite.js'
import type { HttpAnswer, Transport } from '../../src/conformance/http-client.js'
import { harness, type Harness } from '../http/helpers.js'

const TARGET = 'https://manager.example:9443/manager/mvc'
const json = (status: number, body: unknown): HttpAnswer => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
/** A manager whose every answer is a 500. */
const failing: Transport = async () => json(500, {})
/** A manager that lists no agents, and answers everything else with a 500. */
const empty: Transport = async ({ url }) =>
  new URL(url).pathname.endsWith('/restservice/agentinfo')
    ? json(200, { servicename: 'agentinfo', values: [], links: [{ rel: 'self', href: 'https://manager.example:9443/manager/mvc/mvc/restservice/agentinfo' }] })
    : json(500, {})

const byId = (results: readonly CheckResult[]) => Object.fromEntries(results.map((r) => [r.id, `${r.status}: ${r.message}`]))

describe('the facts of the conformance suite', () => {
  it('are each needed only after an earlier check provides them', () => {
    CHECKS.forEach((check, index) => {
      for (const need of check.needs ?? []) {
        expect(CHECKS.slice(0, index).some((earlier) => earlier.provides?.includes(need) === true), `${check.id} needs ${need}`).toBe(true)
      }
    })
  })

  it('are each provided by some check and described for skip messages', () => {
    for (const name of Object.keys(FACT_TEXT) as FactName[]) {
      expect(CHECKS.some((check) => check.provides?.includes(name) === true), name).toBe(true)
    }
  })

  it('skip a check whose provider failed, naming the fact and the provider', async () => {
    const results = byId(await runSuite({ target: TARGET, user: 'u', password: 'p', transport: failing }))
    expect(results['agentinfo-envelope']).toMatch(/^fail: /)
    expect(results['agentinfo-record-fields']).toBe('skip: needs an agent to look at from agentinfo-envelope, which failed')
    expect(results.addagent).toBe("skip: needs the CA's fingerprint from certificateinfo, which failed")
    expect(results.createfield).toMatch(/^fail: /)
  })

  it('skip a check whose provider was skipped', async () => {
    const results = byId(await runSuite({ target: TARGET, user: 'u', password: 'p', transport: failing }))
    expect(results.modifyagent).toBe('skip: needs a created agent with its uuid from addagent, which was skipped')
    expect(results.assigntemplatetoagent).toBe('skip: needs a created agent with its uuid from addagent, which was skipped')
  })

  it('skip a check whose provider was not selected, saying to add it to --only', async () => {
    const results = byId(await runSuite({ target: TARGET, user: 'u', password: 'p', transport: failing, only: ['agentinfo-modules'] }))
    expect(results).toEqual({ 'agentinfo-modules': 'skip: needs an agent to look at from agentinfo-envelope, which was not run (add it to --only)' })
  })

  it('skip a check whose provider passed without finding the fact, saying why', async () => {
    const results = byId(await runSuite({ target: TARGET, user: 'u', password: 'p', transport: empty, readOnly: true }))
    expect(results['agentinfo-envelope']).toBe('pass: ')
    for (const id of ['agentinfo-record-fields', 'agentinfo-modules', 'agentinfo-state-filter']) {
      expect(results[id]).toBe('skip: needs an agent to look at from agentinfo-envelope: the manager lists no agents')
    }
  })
})

describe('the conformance suite against a manager whose agent records carry no uuid', () => {
  let h: Harness
  let transport: Transport
  beforeAll(async () => {
    h = await harness(10, {}, {
      extend: (app) =>
        app.addHook('onSend', async (request, _reply, payload) => {
          if (!request.url.includes('/restservice/agentinfo') || typeof payload !== 'string') return payload
          const body = JSON.parse(payload) as { values?: Array<{ content?: Record<string, unknown> }> }
          for (const item of body.values ?? []) delete item.content?.uuid
          return JSON.stringify(body)
        })
    })
    transport = async ({ method, url, headers, body }) => {
      const { pathname, search } = new URL(url)
      const answer = await h.app.inject({ method: method as 'GET', url: pathname + search, ...(headers === undefined ? {} : { headers }), ...(body === undefined ? {} : { payload: body }) })
      return { status: answer.statusCode, headers: answer.headers as HttpAnswer['headers'], body: answer.body }
    }
  })
  afterAll(() => h.close())

  it('creates the agents, then skips the checks that address them by uuid, saying why', async () => {
    const results = byId(await runSuite({ target: 'http://localhost:80/manager/mvc', user: 'admin', password: 'secret', transport }))
    const why = 'agentinfo shows no uuid for it (fleetsim adds one; a real manager may not)'
    expect(results.addagent).toBe('pass: ')
    expect(results.templates).toBe('pass: ')
    for (const id of ['modifyagent', 'assigntemplatetoagent', 'labels', 'stop-start', 'deleteagent-warning']) {
      expect(results[id], id).toBe(`skip: needs a created agent with its uuid from addagent: ${why}`)
    }
    expect(results['deleteagent-204']).toBe(`skip: needs a second created agent with its uuid from addagent: ${why}`)
  })
})
