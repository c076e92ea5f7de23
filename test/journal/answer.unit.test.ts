/** What the journal reads of an answer: the agent states it shows, in the order they first appear. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bytesFacts, keptFacts, readAnswer, statedBytes } from '../../src/journal/answer.js'
import { AGENT_STATES } from '../../src/protocol/states.js'

const jsonItem = (state: string) => `{"content":{"name":"a","status":"${state}","modules":[{"status":3,"module-status":"FAILED"}]},"links":[]}`
const xmlItem = (state: string) => `<values><content><name>a</name><status>${state}</status><modules><status>3</status></modules></content></values>`

describe('readAnswer', () => {
  it.each([
    ['json', (states: string[]) => `{"servicename":"agentinfo","values":[${states.map(jsonItem).join(',')}]}`],
    ['xml', (states: string[]) => `<?xml version="1.0"?><root>${states.map(xmlItem).join('')}</root>`]
  ] as const)('lists the agent states of a %s answer once each, in the order they first appear', (format, answer) => {
    const body = answer(['ERROR', 'ONLINE', 'ERROR', 'FORGED', 'ONLINE'])
    expect(readAnswer('agentinfo', 200, format, body).states).toEqual(['ERROR', 'ONLINE', 'FORGED'])
  })

  it('reads no states where a module status or another key holds a state name', () => {
    const body = '{"values":[{"content":{"module-status":"ONLINE","laststatus":"ERROR"}}]}'
    expect(readAnswer('agentinfo', 200, 'json', body).states).toEqual([])
    expect(readAnswer('appinfo', 200, 'json', jsonItem('ONLINE')).states).toEqual([])
  })

  it.each(['json', 'xml'] as const)('finds in a %s answer what a search for each state finds, in the same order', (format) => {
    // What the journal read before its one pass: the first place of each state's own text.
    const perState = (body: string) =>
      AGENT_STATES.map((state) => ({ state, at: body.indexOf(format === 'json' ? `"status":"${state}"` : `<status>${state}</status>`) }))
        .filter(({ at }) => at !== -1)
        .sort((a, b) => a.at - b.at)
        .map(({ state }) => state)
    const word = fc.constantFrom(...AGENT_STATES, 'ONLINEX', 'ONLIN', '3', '', 'online')
    const item = format === 'json' ? word.map(jsonItem) : word.map(xmlItem)
    const noise = fc.constantFrom('"status":"', '<status>', '"status":"ERR', '<status>ONLINE<', ',', '')
    const body = fc.array(fc.oneof(item, noise), { maxLength: 30 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(body, (text) => {
        expect(readAnswer('agentinfo', 200, format, text).states).toEqual(perState(text))
      })
    )
  })

  it('takes the states noted as a list was written as its facts, without reading its text', () => {
    const bytes = Buffer.from(`{"values":[${jsonItem('ONLINE')},${jsonItem('ERROR')}]}`)
    statedBytes(bytes, ['ONLINE', 'ERROR'])
    const unread = {
      body: bytes,
      get text(): string {
        throw new Error('the text was read')
      }
    }
    expect(keptFacts(unread, 'agentinfo', 'json').states).toEqual(['ONLINE', 'ERROR'])
  })

  it('reads a kept answer once, for every path that sends its bytes again', () => {
    const text = `{"values":[${jsonItem('ERROR')}]}`
    const bytes = Buffer.from(text)
    expect(bytesFacts(bytes)).toBeUndefined()
    const first = keptFacts({ body: bytes, text }, 'agentinfo', 'json')
    expect(first.states).toEqual(['ERROR'])
    // The same bytes again: the facts read the first time, not read anew.
    expect(keptFacts({ body: bytes, text: 'not read' }, 'agentinfo', 'json')).toBe(first)
    expect(bytesFacts(bytes)).toBe(first)
  })
})
