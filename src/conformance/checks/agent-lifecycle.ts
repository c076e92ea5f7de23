/**
 * Checks of one agent's life through the write operations: addagent (which hands the created
 * agents on), modifyagent, stopagent/startagent and both kinds of deleteagent. The runner
 * deletes any created agent a failed check left behind.
 */
import { ensure, envelope, fields, linkPath, links, messages, nameInLink, noLinks, q, status, isObject } from '../assert.js'
import { defineCheck } from '../check.js'
import type { Context } from '../context.js'
import type { AgentFact } from '../facts.js'
import { createdName, globalConfig } from './created.js'

/** The agent's record, found by name (with its uuid when the manager shows one). */
async function lookUp(context: Context, name: string): Promise<AgentFact | undefined> {
  const answer = await context.send('GET', `agentinfo.json?agentname=${q(name)}`)
  if (answer.status !== 200 || !isObject(answer.json) || !Array.isArray(answer.json.values)) return undefined
  const item: unknown = answer.json.values[0]
  const content = isObject(item) && isObject(item.content) ? item.content : undefined
  if (content?.name !== name) return undefined
  return { name, status: String(content.status), ...(typeof content.uuid === 'string' ? { uuid: content.uuid } : {}) }
}

export const addagent = defineCheck({
  id: 'addagent',
  title: 'addagent: one message and a self link to viewagentortemplate?name=<agent>',
  write: true,
  needs: ['caFingerprint'],
  provides: ['agentA', 'agentB'],
  async run(context, { caFingerprint }) {
    // b first: a is the one whose answer is checked, and the one later checks work on.
    for (const key of ['b', 'a'] as const) {
      const name = createdName(context, key)
      const answer = await context.send('POST', 'addagent', { body: { name, 'global-config': globalConfig(caFingerprint) } })
      const agent = answer.status === 200 ? await lookUp(context, name) : undefined
      if (agent?.uuid !== undefined) {
        context.createdAgents.add(agent.uuid)
        context.learn(key === 'a' ? 'agentA' : 'agentB', { name, uuid: agent.uuid })
      }
      if (key === 'b') continue
      const env = envelope(answer, 'addagent')
      ensure(messages(env, 'addagent').length === 1, 'addagent: expected one message')
      const all = links(env.links, 'addagent')
      ensure(all.length === 1 && all[0].rel === 'self', 'addagent: expected one self link')
      const path = linkPath(context, all[0].href, 'addagent self link')
      ensure(path === 'viewagentortemplate' && nameInLink(all[0]) === name, `addagent: self link ${all[0].href} is not viewagentortemplate?name=${name}`)
      ensure(agent !== undefined, `addagent: agentinfo does not find ${name}`)
    }
  }
})

export const modifyagent = defineCheck({
  id: 'modifyagent',
  title: 'modifyagent: renames the agent; the self link carries the new name',
  write: true,
  needs: ['agentA', 'caFingerprint'],
  provides: ['agentA'],
  async run(context, { agentA, caFingerprint }) {
    const name = `${agentA.name}-m`
    const answer = await context.send('PUT', `modifyagent?agentName=${q(agentA.name)}`, { body: { name, 'global-config': globalConfig(caFingerprint) } })
    // Renamed on the manager whatever the answer looks like: later checks use the new name.
    if (answer.status === 200) context.learn('agentA', { ...agentA, name })
    const env = envelope(answer, 'modifyagent')
    ensure(messages(env, 'modifyagent').length === 1, 'modifyagent: expected one message')
    const [self] = links(env.links, 'modifyagent')
    ensure(self !== undefined && nameInLink(self) === name, `modifyagent: self link ${self?.href} does not carry the new name ${name}`)
    linkPath(context, self.href, 'modifyagent self link')
  }
})

export const stopStart = defineCheck({
  id: 'stop-start',
  title: 'stopagent and startagent: per-agent values or errors and one self link per agent',
  write: true,
  needs: ['agentA'],
  async run(context, { agentA }) {
    for (const operation of ['stopagent', 'startagent']) {
      const env = envelope(await context.send('POST', `${operation}?agentUuids=${q(agentA.uuid)}`), operation)
      const values = Array.isArray(env.values) ? env.values.length : 0
      const errors = Array.isArray(env.errors) ? env.errors : []
      for (const error of errors) fields(error, { status: 'integer', message: 'string' }, `${operation} error item`)
      ensure(values + errors.length >= 1, `${operation}: neither values nor errors for the agent`)
      const all = links(env.links, operation)
      ensure(all.length === 1 && all[0].rel === 'self', `${operation}: expected one self link per agent, got ${all.length}`)
      linkPath(context, all[0].href, `${operation} link`)
    }
  }
})

export const deleteagentWarning = defineCheck({
  id: 'deleteagent-warning',
  title: 'deleteagent with revokeCert=false: a warning and a deleted message, no links',
  write: true,
  needs: ['agentA'],
  async run(context, { agentA }) {
    const env = envelope(await context.send('DELETE', `deleteagent?agentUuids=${q(agentA.uuid)}&revokeCert=false`), 'deleteagent')
    context.createdAgents.delete(agentA.uuid)
    const texts = messages(env, 'deleteagent')
    ensure(texts.length === 2, `deleteagent: expected a warning and a deleted message, got ${texts.length} messages`)
    ensure(texts.some((m) => /revok/i.test(m)), 'deleteagent: no warning that the certificate should be revoked')
    noLinks(env, 'deleteagent')
    // Its certificate stands, so the agent may connect again (fleetsim's does, 1 to 7 virtual
    // hours later), after the suite's clean-up: the user is told what to remove then.
    return `left to connect again: ${agentA.name} (${agentA.uuid}) keeps its certificate; once it is back, delete it with deleteagent?agentUuids=${agentA.uuid}&revokeCert=true`
  }
})

export const deleteagent204 = defineCheck({
  id: 'deleteagent-204',
  title: 'deleteagent with revokeCert=true: 204 and no content',
  write: true,
  needs: ['agentB'],
  async run(context, { agentB }) {
    const answer = await context.send('DELETE', `deleteagent?agentUuids=${q(agentB.uuid)}&revokeCert=true`)
    status(answer, 204, 'deleteagent revokeCert=true')
    context.createdAgents.delete(agentB.uuid)
    ensure(answer.body === '', `deleteagent revokeCert=true: 204 with a body: ${answer.body.slice(0, 80)}`)
  }
})
