/**
 * GET /__admin/requests?after=: a live reader (the console's Traffic page) asks only for what is
 * new; GET /__admin/requests/<id> gives it one entry in full when it is opened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, call, harness, type Harness } from '../http/helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(10)
})
afterAll(() => h.close())

async function read(query: string) {
  const response = await h.app.inject({ method: 'GET', url: `/__admin/requests${query}`, headers: AUTH })
  return { status: response.statusCode, body: response.json() }
}

describe('reading the journal from a cursor', () => {
  it('answers the entries after the cursor and the cursor to send next', async () => {
    await call(h.app, 'GET', 'appinfo')
    const { body: first } = await read('')
    expect(first.lastId).toBe(first.entries.at(-1).id)
    await call(h.app, 'GET', 'agentmanager')
    await call(h.app, 'GET', 'agentinfo?agentstate=BOGUS')
    const { body: next } = await read(`?after=${first.lastId}`)
    expect(next.entries.map((e: { operation: string }) => e.operation)).toEqual(['agentmanager', 'agentinfo'])
    expect(next.lastId).toBe(first.lastId + 2)
  })

  it('moves the cursor on past entries a filter leaves out', async () => {
    const { body: start } = await read('')
    await call(h.app, 'GET', 'appinfo')
    const { body } = await read(`?after=${start.lastId}&operation=agentinfo&status=4xx`)
    expect(body.entries).toEqual([])
    expect(body.lastId).toBe(start.lastId + 1)
  })

  it('refuses a cursor that is not an entry id', async () => {
    const { status, body } = await read('?after=last')
    expect(status).toBe(400)
    expect(body.errors[0]).toMatchObject({ code: 'E_INVALID_VALUE', message: expect.stringContaining('"after" must be an entry id') })
  })
})

describe('reading one journal entry', () => {
  it('answers the entry of that id', async () => {
    await call(h.app, 'GET', 'appinfo')
    const { body: list } = await read('')
    const { status, body } = await read(`/${list.lastId}`)
    expect(status).toBe(200)
    expect(body).toEqual(list.entries.at(-1))
  })

  it('answers an id the journal does not hold with the ids it holds', async () => {
    const { body: list } = await read('')
    const { status, body } = await read(`/${list.lastId + 5}`)
    expect(status).toBe(404)
    expect(body.errors[0]).toMatchObject({ code: 'E_UNKNOWN_JOURNAL_ENTRY', message: expect.stringContaining(`the journal holds the entries ${list.entries[0].id} to ${list.lastId}`) })
    expect((await read('/first')).body.errors[0].code).toBe('E_UNKNOWN_JOURNAL_ENTRY')
  })
})
