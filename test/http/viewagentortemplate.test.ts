import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CA, call, harness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(5)
})
afterAll(() => h.close())

describe('viewagentortemplate', () => {
  it('answers an agent as its agentinfo item, by query and by path', async () => {
    const name = h.fleet.name(0)
    const byQuery = (await call(h.app, 'GET', `viewagentortemplate?name=${name}`)).json()
    const byPath = (await call(h.app, 'GET', `viewagentortemplate/${name}`)).json()
    const info = (await call(h.app, 'GET', `agentinfo?agentname=${name}`)).json()
    expect(byQuery.values).toEqual(info.values)
    expect(byPath.values).toEqual(info.values)
  })

  it('answers a template with its record', async () => {
    await call(h.app, 'POST', 'addmastertemplate', { name: 'tpl', 'global-config': { address: 'a', port: 1, 'ca-fingerprint': CA.fingerprint } })
    const body = (await call(h.app, 'GET', 'viewagentortemplate/tpl')).json()
    expect(body.values[0].content).toMatchObject({ name: 'tpl', templateType: 'MASTER', 'global-config': { port: 1, mode: 'Connect' } })
  })

  it('answers 404 in the envelope for an unknown name', async () => {
    const response = await call(h.app, 'GET', 'viewagentortemplate?name=nobody')
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ servicename: 'viewagentortemplate', errors: [{ status: 404, code: 'E_UNKNOWN_NAME' }] })
  })
})
