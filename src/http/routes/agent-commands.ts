/**
 * Operations that act on several agents by UUID: assigntemplatetoagent, updateandreloadagent,
 * startagent, stopagent, deleteagent. Unknown UUIDs fail the whole request (404) before anything
 * happens; failures of individual agents while acting go into `errors` with status 0 and the
 * agent's name as prefix, next to the successes in `values`.
 */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { BatchOutcome } from '../../fleet/fleet-api.js'
import { resolveUuids } from '../agents.js'
import { apiError } from '../../protocol/errors.js'
import { viewByPath, type LinkBase } from '../links.js'
import { sendEnvelope } from '../reply.js'
import type { RouteKit } from '../route-kit.js'
import { fieldsOf, withRules, type RequestRule } from '../validation.js'
import {
  AgentUuidsQuery,
  AssignTemplateQuery,
  DeleteAgentQuery,
  ERROR_RESPONSES,
  MessageEnvelope,
  UpdateAndReloadQuery,
  type ErrorItem
} from '../schemas.js'

const response = { 200: MessageEnvelope, ...ERROR_RESPONSES }
const quoted = (names: readonly string[]): string => names.map((n) => `"${n}"`).join(', ')

/** Names are read before acting: a renamed or deleted agent is still reported as asked. */
function namesOf(kit: RouteKit, indices: readonly number[]): Map<number, string> {
  return new Map(indices.map((index) => [index, kit.manager.fleet.name(index)]))
}

/** The agents that came back after the reconnect wait, under the name they have now: one may have been renamed while the manager waited. */
function renamedMeanwhile(kit: RouteKit, outcome: BatchOutcome, names: Map<number, string>): void {
  for (const index of outcome.ok) names.set(index, kit.manager.fleet.name(index))
}

function failures(outcome: BatchOutcome, names: Map<number, string>): ErrorItem[] {
  return outcome.failed.map(({ index, reason }) => ({ status: 0, message: `${names.get(index) ?? index}: ${reason}` }))
}

function agentLinks(base: LinkBase, names: Map<number, string>) {
  return [...names.values()].map((name) => viewByPath(base, name))
}

/** assigntemplatetoagent names a master template, sub templates or both. */
const somethingToAssign: RequestRule = (query) => {
  const q = fieldsOf(query)
  return q !== undefined && q.templateName === undefined && q.subTemplateNames === undefined ? apiError('E_NOTHING_TO_ASSIGN') : undefined
}

export function agentCommandRoutes(app: FastifyInstance, kit: RouteKit): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { fleet, templates } = kit.manager

  for (const { url, options } of kit.routes('assigntemplatetoagent')) {
    const schema = { summary: 'Assign a master template and/or sub templates to agents', querystring: withRules(AssignTemplateQuery, somethingToAssign), response }
    typed.post(url, { ...options, schema }, async (request, reply) => {
      const { agentUuids, templateName, subTemplateNames, updateAgents } = request.query
      // Lookups and assignment in one serial section (a pending delete finishes first); the
      // reconnect wait below runs outside it, on the agents of the run they were looked up in.
      const { indices, master, subs, names, run } = await kit.serial(async () => {
        const run = fleet.run
        const indices = resolveUuids(fleet, agentUuids)
        const master = templateName === undefined ? undefined : templates.require('master', [templateName])[0]
        const subs = subTemplateNames === undefined ? [] : templates.require('sub', subTemplateNames)
        const names = namesOf(kit, indices)
        for (const index of indices) templates.assign(index, master, subs)
        if (master !== undefined) await fleet.setTemplate(indices, master.id, run)
        return { indices, master, subs, names, run }
      })
      const values: Array<{ message: string }> = []
      for (const name of names.values()) {
        if (master !== undefined) values.push({ message: `${name}: master template "${master.name}" assigned` })
        if (subs.length > 0) values.push({ message: `${name}: sub templates ${quoted(subs.map((s) => s.name))} assigned` })
      }
      let errors: ErrorItem[] = []
      if (updateAgents === true) {
        const outcome = await fleet.reconnectAgents(indices, 'assigntemplatetoagent', run)
        renamedMeanwhile(kit, outcome, names)
        for (const index of outcome.ok) values.push({ message: `${names.get(index)}: configuration updated` })
        errors = failures(outcome, names)
      }
      const base = kit.links.base(request)
      return sendEnvelope(request, reply, {
        servicename: 'assigntemplatetoagent',
        values,
        ...(errors.length > 0 ? { errors } : {}),
        links: agentLinks(base, names)
      })
    })
  }

  for (const { url, options } of kit.routes('updateandreloadagent')) {
    const schema = { summary: 'Send the current configuration to agents and reload them', querystring: UpdateAndReloadQuery, response }
    typed.post(url, { ...options, schema }, async (request, reply) => {
      const { agentUuids } = request.query
      // After any pending change; an agent deleted during the reconnect wait is reported as failed.
      const { indices, names, run } = await kit.serial(() => {
        const indices = agentUuids === undefined ? [...fleet.indices()] : resolveUuids(fleet, agentUuids)
        return { indices, names: namesOf(kit, indices), run: fleet.run }
      })
      const outcome = await fleet.reconnectAgents(indices, 'updateandreloadagent', run)
      renamedMeanwhile(kit, outcome, names)
      const values: Array<{ message: string }> = []
      for (const index of outcome.ok) {
        const name = names.get(index)
        values.push({ message: `${name}: configuration updated` }, { message: `${name}: agent reloaded` })
      }
      const errors = failures(outcome, names)
      return sendEnvelope(request, reply, {
        servicename: 'updateandreloadagent',
        values,
        ...(errors.length > 0 ? { errors } : {}),
        links: agentLinks(kit.links.base(request), names)
      })
    })
  }

  const simple = [
    ['startagent', 'Restart agents: reload configuration and restart modules', (i: number[]) => fleet.startAgents(i), 'restart request sent'],
    ['stopagent', 'Stop every module of agents', (i: number[]) => fleet.stopAgents(i), 'stop call sent, modules stopped']
  ] as const
  for (const [operation, summary, act, done] of simple) {
    for (const { url, options } of kit.routes(operation)) {
      const schema = { summary, querystring: AgentUuidsQuery, response }
      typed.post(url, { ...options, schema }, async (request, reply) => {
        const { names, outcome } = await kit.serial(async () => {
          const indices = resolveUuids(fleet, request.query.agentUuids)
          return { names: namesOf(kit, indices), outcome: await act(indices) }
        })
        const errors = failures(outcome, names)
        return sendEnvelope(request, reply, {
          servicename: operation,
          values: outcome.ok.map((index) => ({ message: `${names.get(index)}: ${done}` })),
          ...(errors.length > 0 ? { errors } : {}),
          links: agentLinks(kit.links.base(request), names)
        })
      })
    }
  }

  for (const { url, options } of kit.routes('deleteagent')) {
    const schema = {
      summary: 'Delete agents, revoking their certificates or not',
      querystring: DeleteAgentQuery,
      response: { 200: MessageEnvelope, 204: { type: 'null', description: 'deleted and revoked' }, ...ERROR_RESPONSES }
    }
    typed.delete(url, { ...options, schema }, async (request, reply) => {
      const { agentUuids, revokeCert } = request.query
      // One serial section: a second delete of the same agents waits and then finds none (404).
      const names = await kit.serial(async () => {
        const indices = resolveUuids(fleet, agentUuids)
        const names = namesOf(kit, indices)
        // The manager reads each agent's certificate, so it forgets them before the fleet does.
        kit.manager.forgetAgents(indices, revokeCert)
        await fleet.deleteAgents(indices, revokeCert)
        return names
      })
      if (revokeCert) return reply.code(204).send()
      const values: Array<{ message: string }> = []
      for (const name of names.values()) {
        values.push(
          { message: `Warning: the certificate of agent "${name}" is not revoked, so the agent can connect again; revoke the certificate to keep it out.` },
          { message: `Agent "${name}" deleted.` }
        )
      }
      return sendEnvelope(request, reply, { servicename: 'deleteagent', values })
    })
  }
}
