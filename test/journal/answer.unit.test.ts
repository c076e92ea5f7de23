/** What the journal reads of an answer: the agent states it shows, in the order they first appear. */
import { describe, expect, it } from 'vitest'
import { readAnswer } from '../../src/journal/answer.js'

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
})
