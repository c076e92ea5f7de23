import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentBody, call, harness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(10)
})
afterAll(() => h.close())

const namesListed = async (): Promise<string[]> =>
  (await call(h.app, 'GET', 'agentinfo?agentwithmodules=false')).json().values.map((v: { content: { name: string } }) => v.content.name)

describe('the name of an agent deleted without revoking its certificate', () => {
  it('is kept for it until it rejoins, so agentinfo never lists one name twice', async () => {
    const name = h.fleet.name(3)
    const uuid = h.fleet.uuid(3)
    expect((await call(h.app, 'DELETE', `deleteagent?agentUuids=${uuid}&revokeCert=false`)).statusCode).toBe(200)

    const added = await call(h.app, 'POST', 'addagent', agentBody(name))
    expect(added.statusCode).toBe(409)
    expect(added.json().errors[0]).toMatchObject({ code: 'E_NAME_RESERVED', message: expect.stringContaining(`deleted agent ${uuid}`) })
    const renamed = await call(h.app, 'PUT', `modifyagent?agentName=${h.fleet.name(4)}`, agentBody(name))
    expect(renamed.json().errors[0].code).toBe('E_NAME_RESERVED')
    const template = await call(h.app, 'POST', 'addmastertemplate', agentBody(name))
    expect(template.json().errors[0].code).toBe('E_NAME_RESERVED')

    // Deleted without revocation, it connects again within seven virtual hours.
    for (let hour = 0; hour < 8 && h.fleet.findByName(name) === undefined; hour++) await h.fleet.advance(3600)
    expect(h.fleet.findByName(name)).toBe(3)
    const listed = await namesListed()
    expect(listed.filter((n) => n === name)).toHaveLength(1)
    expect((await call(h.app, 'GET', `agentinfo?agentname=${name}`)).json().values[0].content.uuid).toBe(uuid)
  })

  it('is free again once the agent is deleted with its certificate revoked', async () => {
    const name = h.fleet.name(5)
    expect((await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.fleet.uuid(5)}&revokeCert=true`)).statusCode).toBe(204)
    expect((await call(h.app, 'POST', 'addagent', agentBody(name))).statusCode).toBe(200)
  })
})
