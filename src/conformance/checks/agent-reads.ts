/**
 * Checks of agentinfo: the envelope (which hands the listed agents on), the agent and module
 * records with their fields and types, and the agentstate filter.
 */
import { AGENT_STATES } from '../../protocol/states.js'
import { LOCAL_MINUTE, envelope, ensure, fields, isObject, links, q, type FieldType } from '../assert.js'
import { defineCheck } from '../check.js'
import type { AgentFact } from '../facts.js'

const AGENT_FIELDS: Readonly<Record<string, FieldType>> = {
  name: 'string', version: 'string', status: 'string', os: 'string', address: 'string', 'the service': 'string',
  started: 'string', lastOnline: 'string', load: 'string', memUsage: 'number', received: 'integer', receivedToday: 'integer',
  processing: 'integer', sent: 'integer', sentToday: 'integer', sysinfo: 'string'
}
const MODULE_FIELDS: Readonly<Record<string, FieldType>> = {
  module_name: 'string', module: 'string', 'module-type': 'integer', type: 'string', isRunning: 'boolean', 'evt-recvd': 'integer',
  queuesize: 'integer', 'evt-fwd': 'integer', 'evt-drop': 'integer', status: 'integer', 'module-status': 'string', id: 'integer', serverInfo: 'object'
}
const ITEM_RELS = ['all_agents_with_modules', 'online_agents_with_modules', 'self']
const ALL_STATES = AGENT_STATES.map((s) => `agentstate=${s}`).join('&')

/** The `content` records of an agentinfo envelope's items. */
function contents(env: Record<string, unknown>): Record<string, unknown>[] {
  ensure(Array.isArray(env.values), 'agentinfo: values is not an array')
  return env.values.map((item) => {
    ensure(isObject(item) && isObject(item.content), 'agentinfo: an item has no content object')
    return item.content
  })
}

export const agentinfoEnvelope = defineCheck({
  id: 'agentinfo-envelope',
  title: 'agentinfo: items of content and links (self, online_agents_with_modules, all_agents_with_modules)',
  write: false,
  provides: ['agents'],
  async run(context) {
    const env = envelope(await context.send('GET', `agentinfo?${ALL_STATES}`), 'agentinfo')
    const found: AgentFact[] = contents(env).map((content) => ({
      name: String(content.name),
      status: String(content.status),
      ...(typeof content.uuid === 'string' ? { uuid: content.uuid } : {})
    }))
    // Learnt before the links are judged: a manager whose links are wrong still has its records checked.
    const [first, ...rest] = found
    if (first !== undefined) context.learn('agents', [first, ...rest])
    for (const item of env.values as Array<Record<string, unknown>>) {
      const rels = links(item.links, 'agentinfo item').map((l) => l.rel).sort()
      const content = item.content as Record<string, unknown>
      const missing = ITEM_RELS.filter((rel) => !rels.includes(rel))
      ensure(missing.length === 0, `agentinfo item of ${String(content.name)}: links are ${rels.join(', ') || 'none'}, without ${missing.join(', ')} (each item has ${ITEM_RELS.join(', ')})`)
    }
    ensure(links(env.links, 'agentinfo').some((l) => l.rel === 'self'), 'agentinfo: no top-level self link')
  }
})

export const agentinfoRecordFields = defineCheck({
  id: 'agentinfo-record-fields',
  title: 'agentinfo: agent records have the spec fields and types; comma-delimited agentname',
  write: false,
  needs: ['agents'],
  async run(context, { agents }) {
    const names = agents.slice(0, 5).map((a) => a.name)
    const records = contents(envelope(await context.send('GET', `agentinfo.json?agentname=${names.map(q).join(',')}`), 'agentinfo'))
    const got = records.map((record) => String(record.name))
    ensure([...got].sort().join(',') === [...names].sort().join(','), `agentinfo by name: asked for ${names.join(',')}, got ${got.join(',')}`)
    for (const content of records) {
      const record = fields(content, AGENT_FIELDS, 'agent record')
      const name = String(record.name)
      ensure((AGENT_STATES as readonly string[]).includes(String(record.status)), `agent ${name}: status ${JSON.stringify(record.status)} is not a state`)
      ensure(LOCAL_MINUTE.test(String(record.started)) && LOCAL_MINUTE.test(String(record.lastOnline)), `agent ${name}: started/lastOnline are not YYYY-MM-DD HH:MM`)
      ensure(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(String(record.load)), `agent ${name}: load ${JSON.stringify(record.load)} is not numeric text`)
      ensure(record.modules === undefined, `agent ${name}: modules present without agentwithmodules`)
    }
  }
})

export const agentinfoModules = defineCheck({
  id: 'agentinfo-modules',
  title: 'agentinfo with agentwithmodules=true: module records with their fields and types',
  write: false,
  needs: ['agents'],
  async run(context, { agents: [first] }) {
    const env = envelope(await context.send('GET', `agentinfo.json?agentname=${q(first.name)}&agentwithmodules=true`), 'agentinfo')
    const [content] = contents(env)
    ensure(content !== undefined && Array.isArray(content.modules), `agent ${first.name}: no modules array with agentwithmodules=true`)
    for (const module of content.modules) {
      const record = fields(module, MODULE_FIELDS, `module of ${first.name}`)
      ensure(record.type === 'INPUT' || record.type === 'OUTPUT', `module ${String(record.module_name)}: type ${JSON.stringify(record.type)}`)
    }
  }
})

export const agentinfoStateFilter = defineCheck({
  id: 'agentinfo-state-filter',
  title: 'agentinfo by agentstate lists only agents in that state',
  write: false,
  needs: ['agents'],
  async run(context, { agents: [first] }) {
    const state = first.status
    const records = contents(envelope(await context.send('GET', `agentinfo.json?agentstate=${q(state)}`), 'agentinfo'))
    ensure(records.length > 0, `agentinfo?agentstate=${state}: no agents, though one was ${state}`)
    for (const record of records) {
      ensure(record.status === state, `agentinfo?agentstate=${state}: ${String(record.name)} is ${String(record.status)}`)
    }
  }
})
