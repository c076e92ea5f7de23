import { describe, expect, it } from 'vitest'
import { apiError } from '../../src/protocol/errors.js'
import { TemplateRegistry, type MasterConfig } from '../../src/manager/templates.js'

const config: MasterConfig = { address: '10.0.0.1', port: 4041, caFingerprint: 'AA', isLogToFile: true, logLevel: 'INFO', mode: 'Connect', verbatim: '' }

function registry(taken: string[] = []): TemplateRegistry {
  const templates: TemplateRegistry = new TemplateRegistry((name, except) => {
    if (name !== except && (taken.includes(name) || templates.get(name) !== undefined)) {
      throw apiError('E_DUPLICATE_NAME', { name, owner: 'something' })
    }
  })
  return templates
}

describe('templates', () => {
  it('gives each template a numeric id', () => {
    const templates = registry()
    const a = templates.add('master', { name: 'a', config })
    const b = templates.add('sub', { name: 'b', config: {} })
    expect([a.id, b.id]).toEqual([1, 2])
  })

  it('refuses a name that an agent or template already has', () => {
    const templates = registry(['agent-1'])
    expect(() => templates.add('master', { name: 'agent-1', config })).toThrow(expect.objectContaining({ code: 'E_DUPLICATE_NAME' }))
    templates.add('master', { name: 'm', config })
    expect(() => templates.add('sub', { name: 'm', config: {} })).toThrow(expect.objectContaining({ code: 'E_DUPLICATE_NAME' }))
  })

  it('renames a template on modification and keeps its id', () => {
    const templates = registry()
    const template = templates.add('master', { name: 'a', config })
    templates.modify('master', 'a', { name: 'b', description: 'new', config })
    expect(templates.get('a')).toBeUndefined()
    expect(templates.get('b')).toMatchObject({ id: template.id, description: 'new' })
  })

  it('does not find a sub template as a master template', () => {
    const templates = registry()
    templates.add('sub', { name: 's', config: {} })
    expect(() => templates.require('master', ['s'])).toThrow(expect.objectContaining({ code: 'E_UNKNOWN_TEMPLATE' }))
  })

  it('records the master and sub templates assigned to an agent', () => {
    const templates = registry()
    const master = templates.add('master', { name: 'm', config })
    const sub = templates.add('sub', { name: 's', config: {} })
    templates.assign(3, master, [sub])
    templates.assign(3, undefined, [sub])
    expect(templates.assignmentOf(3)).toEqual({ master: master.id, subs: [sub.id] })
  })

  it('forgets the assignments of the agents retainAgents does not keep, and keeps the templates', () => {
    const templates = registry()
    const master = templates.add('master', { name: 'm', config })
    const sub = templates.add('sub', { name: 's', config: {} })
    for (const index of [3, 4, 5]) templates.assign(index, master, [sub])
    templates.retainAgents((index) => index !== 4)
    expect([3, 4, 5].map((index) => templates.assignmentOf(index))).toEqual([{ master: master.id, subs: [sub.id] }, undefined, { master: master.id, subs: [sub.id] }])
    templates.retainAgents(() => false)
    expect([3, 5].map((index) => templates.assignmentOf(index))).toEqual([undefined, undefined])
    expect([...templates.all()].map((t) => t.name)).toEqual(['m', 's'])
  })
})
