import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CA, call, harness, LINK_REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(5)
})
afterAll(() => h.close())

const master = (name: string) => ({ name, description: 'd', 'global-config': { address: '10.0.0.1', port: 4041, 'ca-fingerprint': CA.fingerprint } })

describe('template operations', () => {
  it('creates a master template and links to it', async () => {
    const body = (await call(h.app, 'POST', 'addmastertemplate', master('base'))).json()
    expect(body).toEqual({
      servicename: 'addmastertemplate',
      values: [{ message: 'Master template "base" created.' }],
      links: [{ rel: 'self', href: `${LINK_REST}/viewagentortemplate?name=base` }]
    })
  })

  it('creates a sub template without global-config', async () => {
    const response = await call(h.app, 'POST', 'addsubtemplate', { name: 'extra' })
    expect(response.json().values[0].message).toBe('Sub template "extra" created.')
  })

  it('refuses a template named like an agent', async () => {
    const response = await call(h.app, 'POST', 'addsubtemplate', { name: h.fleet.name(0) })
    expect(response.statusCode).toBe(409)
  })

  it('refuses a master template without ca-fingerprint', async () => {
    const body = master('nofp') as { 'global-config': Record<string, unknown> }
    delete body['global-config']['ca-fingerprint']
    const response = await call(h.app, 'POST', 'addmastertemplate', body)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_MISSING_FIELD', message: expect.stringContaining('global-config.ca-fingerprint') })
  })

  it('modifies a master template and links to its new name', async () => {
    await call(h.app, 'POST', 'addmastertemplate', master('old'))
    const body = (await call(h.app, 'PUT', 'modifymastertemplate?masterTemplateName=old', master('new'))).json()
    expect(body.links[0].href).toBe(`${LINK_REST}/viewagentortemplate?name=new`)
  })

  it('modifies a sub template', async () => {
    await call(h.app, 'POST', 'addsubtemplate', { name: 'sa' })
    const body = (await call(h.app, 'PUT', 'modifysubtemplate?subTemplateName=sa', { name: 'sb', 'global-config': { verbatim: 'x' } })).json()
    expect(body.values[0].message).toBe('Sub template "sb" modified.')
  })

  it('answers 404 when modifying an unknown template', async () => {
    const response = await call(h.app, 'PUT', 'modifysubtemplate?subTemplateName=none', { name: 'x' })
    expect(response.statusCode).toBe(404)
    expect(response.json().errors[0].code).toBe('E_UNKNOWN_TEMPLATE')
  })
})
