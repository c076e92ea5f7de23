/**
 * A client generated from the OpenAPI document: the types openapi-typescript generates from
 * docs/openapi.json (test/contract/generated/fleetsim.d.ts, written by `npm run openapi:write`
 * and type-checked with the project by `npm run typecheck`) with openapi-fetch, sending list
 * parameters comma-delimited as the document declares, against a real fleetsim: the read
 * operations, and a write round trip (addagent, agentinfo finds it, modifyagent, deleteagent).
 */
import createClient from 'openapi-fetch'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import type { paths } from './generated/fleetsim.js'

const REST = '/manager/mvc/restservice'

let sim: RunningFleetsim
let client: ReturnType<typeof createClient<paths>>
beforeAll(async () => {
  // Running clock: addagent and deleteagent answer once the agent has (dis)connected.
  sim = await startFleetsim({ agents: 5, seed: 3, http: true, paused: false, speed: 600 })
  client = createClient<paths>({
    baseUrl: sim.origin,
    headers: { ...sim.headers, accept: 'application/json' },
    querySerializer: { array: { style: 'form', explode: false } }
  })
}, 60_000)
afterAll(() => sim.close())

describe('a client generated from the OpenAPI document', () => {
  it('runs the read operations', async () => {
    const all = await client.GET(`${REST}/agentinfo`, { params: { query: { agentwithmodules: false } } })
    expect(all.response.status).toBe(200)
    const names = (all.data?.values ?? []).map((item) => item.content.name)
    expect(names).toHaveLength(5)

    const two = await client.GET(`${REST}/agentinfo`, { params: { query: { agentname: names.slice(0, 2) } } })
    expect(two.data?.values?.map((item) => item.content.name)).toEqual(names.slice(0, 2))

    const app = await client.GET(`${REST}/appinfo`)
    expect(app.data?.servicename).toBe('appinfo')
    const manager = await client.GET(`${REST}/agentmanager`)
    expect(manager.data?.servicename).toBe('agentmanager')
    const certificates = await client.GET(`${REST}/certificateinfo`)
    expect(certificates.data?.values?.some((cert) => cert.type === 'CA')).toBe(true)
    const view = await client.GET(`${REST}/viewagentortemplate`, { params: { query: { name: names[0] } } })
    expect(view.response.status).toBe(200)
    const byPath = await client.GET(`${REST}/viewagentortemplate/{name}`, { params: { path: { name: names[0] } } })
    expect(byPath.response.status).toBe(200)
  })

  it('adds, finds, modifies and deletes an agent', async () => {
    const certificates = await client.GET(`${REST}/certificateinfo`)
    const ca = certificates.data?.values?.find((cert) => cert.type === 'CA')?.fingerprint ?? ''
    const config = { address: '192.0.2.50', port: 4041, 'ca-fingerprint': ca }

    const added = await client.POST(`${REST}/addagent`, { body: { name: 'client-01', 'global-config': config } })
    expect(added.response.status, JSON.stringify(added.error)).toBe(200)

    const found = await client.GET(`${REST}/agentinfo`, { params: { query: { agentname: ['client-01'] } } })
    const uuid = found.data?.values?.[0]?.content.uuid
    expect(uuid).toEqual(expect.any(String))

    const modified = await client.PUT(`${REST}/modifyagent`, {
      params: { query: { agentName: 'client-01' } },
      body: { name: 'client-02', 'global-config': { ...config, port: 5555 } }
    })
    expect(modified.response.status, JSON.stringify(modified.error)).toBe(200)

    const deleted = await client.DELETE(`${REST}/deleteagent`, { params: { query: { agentUuids: [uuid ?? ''], revokeCert: true } } })
    // With revokeCert=true the document declares 204 without a body.
    expect(deleted.response.status, JSON.stringify(deleted.error)).toBe(204)
    const gone = await client.GET(`${REST}/agentinfo`, { params: { query: { agentname: ['client-02'] } } })
    expect(gone.response.status).toBe(404)
    expect(gone.error?.errors[0]?.message).toEqual(expect.any(String))
  })
})
