import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createFleet } from '../../src/fleet/fleet.js'
import { createManager, type Manager } from '../../src/manager/manager.js'
import { agentBody, CA, call, harness, START, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(5, { maxLabels: 3, maxLabelValueBytes: 16, maxVerbatimBytes: 8, maxFields: 1, maxTemplates: 1 })
})
afterAll(() => h.close())

describe('stored-data limits on the REST operations', () => {
  it('answers a flood of new custom labels with 409 once --max-labels is reached', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await call(h.app, 'POST', 'setcustomlabel', { name: `flood-${i}`, value: 'v' })).statusCode)
    expect(statuses).toEqual([200, 200, 200, 409, 409])
    const error = (await call(h.app, 'POST', 'setcustomlabel', { name: 'one-more', value: 'v' })).json().errors[0]
    expect(error).toMatchObject({ status: 409, code: 'E_LIMIT_REACHED', message: expect.stringContaining('--max-labels allows 3') })
  })

  it('answers a custom label value past --max-label-value-bytes with 400 naming the field and the flag', async () => {
    const response = await call(h.app, 'POST', 'setcustomlabel', { name: 'flood-0', value: 'x'.repeat(17) })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toMatchObject({ code: 'E_VALUE_TOO_LARGE', message: expect.stringMatching(/"value".*17 bytes.*--max-label-value-bytes/) })
  })

  it('answers addagent and modifyagent with verbatim text past --max-verbatim-bytes with 400, adding or changing nothing', async () => {
    const added = await call(h.app, 'POST', 'addagent', agentBody('big-verbatim', { verbatim: 'x'.repeat(9) }))
    expect(added.statusCode).toBe(400)
    expect(added.json().errors[0]).toMatchObject({ code: 'E_VALUE_TOO_LARGE', message: expect.stringContaining('"global-config.verbatim"') })
    expect(h.fleet.findByName('big-verbatim')).toBeUndefined()
    const name = h.fleet.name(1)
    const modified = await call(h.app, 'PUT', `modifyagent?agentName=${name}`, agentBody('renamed', { verbatim: 'x'.repeat(9) }))
    expect(modified.json().errors[0].code).toBe('E_VALUE_TOO_LARGE')
    expect(h.fleet.findByName(name)).toBe(1)
  })

  it('answers createfield past --max-fields with 409', async () => {
    expect((await call(h.app, 'POST', 'createfield', { name: 'owner', type: 'STRING' })).statusCode).toBe(200)
    const response = await call(h.app, 'POST', 'createfield', { name: 'site', type: 'STRING' })
    expect(response.json().errors[0]).toMatchObject({ status: 409, code: 'E_LIMIT_REACHED', message: expect.stringContaining('--max-fields') })
  })

  it('answers a template past --max-templates with 409', async () => {
    expect((await call(h.app, 'POST', 'addsubtemplate', { name: 'first' })).statusCode).toBe(200)
    const response = await call(h.app, 'POST', 'addsubtemplate', { name: 'second' })
    expect(response.json().errors[0]).toMatchObject({ status: 409, code: 'E_LIMIT_REACHED', message: expect.stringContaining('--max-templates') })
  })
})

describe('agents added over a run (--max-added-agents)', () => {
  let fleet: Awaited<ReturnType<typeof createFleet>>
  let app: Awaited<ReturnType<typeof buildApp>>['app']
  beforeAll(async () => {
    fleet = await createFleet({ agents: 3, seed: 7, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint, headroom: 2 })
    ;({ app } = await buildApp({ fleet, ca: CA, processMetrics: false }, { user: 'admin', password: 'secret' }))
  })
  afterAll(async () => {
    await app.close()
    await fleet.close()
  })

  it('answers addagent with 409 once the room is used, deleted agents included, and adds nothing', async () => {
    expect((await call(app, 'POST', 'addagent', agentBody('added-1'))).statusCode).toBe(200)
    expect((await call(app, 'POST', 'addagent', agentBody('added-2'))).statusCode).toBe(200)
    const uuid = fleet.uuid(fleet.findByName('added-1') as number)
    expect((await call(app, 'DELETE', `deleteagent?agentUuids=${uuid}&revokeCert=true`)).statusCode).toBe(204)
    const size = fleet.size()
    const response = await call(app, 'POST', 'addagent', agentBody('added-3'))
    expect(response.statusCode).toBe(409)
    expect(response.json().errors[0]).toEqual({
      status: 409,
      code: 'E_LIMIT_REACHED',
      message:
        'The fleet already has 2 agents added over this run (deleted ones count too), and --max-added-agents allows 2: start fleetsim with a higher --max-added-agents.'
    })
    expect(fleet.size()).toBe(size)
    expect(fleet.findByName('added-3')).toBeUndefined()
    // The name is free: nothing of the refused agent was kept.
    expect((await call(app, 'GET', 'agentinfo?agentname=added-3')).statusCode).toBe(404)
  })
})

describe('sub templates', () => {
  let manager: Manager
  let close: () => Promise<void>
  beforeAll(async () => {
    const fleet = await createFleet({ agents: 2, seed: 7, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
    manager = createManager(fleet, CA)
    const { app } = await buildApp({ fleet, ca: CA, manager, processMetrics: false }, { user: 'admin', password: 'secret' })
    close = async () => {
      await app.close()
      await fleet.close()
    }
    const body = { name: 'extra', 'global-config': { verbatim: 'v', unknown: 'y'.repeat(100_000) } }
    expect((await call(app, 'POST', 'addsubtemplate', body)).statusCode).toBe(200)
    expect((await call(app, 'PUT', 'modifysubtemplate?subTemplateName=extra', body)).statusCode).toBe(200)
  })
  afterAll(() => close())

  it('keep only their verbatim text, not members the schema does not know', () => {
    expect(manager.templates.get('extra')?.config).toEqual({ verbatim: 'v' })
    expect(JSON.stringify(manager.snapshot().templates)).not.toContain('yyyy')
  })
})
