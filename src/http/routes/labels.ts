/** setcustomlabel and removecustomlabel; both answer with servicename and a self link only. */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { resolveUuids } from '../agents.js'
import { selfLink } from '../links.js'
import { sendEnvelope } from '../reply.js'
import type { RouteKit } from '../route-kit.js'
import { ERROR_RESPONSES, LabelBody, Link, RemoveLabelQuery, SetLabelQuery } from '../schemas.js'

const response = { 200: Type.Object({ servicename: Type.String(), links: Type.Array(Link) }), ...ERROR_RESPONSES }

export function labelRoutes(app: FastifyInstance, kit: RouteKit): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { fleet, labels } = kit.manager

  for (const { url, options } of kit.routes('setcustomlabel')) {
    const schema = { summary: 'Create, assign, update or rename a custom label', querystring: SetLabelQuery, body: LabelBody, response }
    typed.post(url, { ...options, schema }, async (request, reply) => {
      const { agentUuids, oldName } = request.query
      // Serial: a pending deleteagent finishes first, so its agents are no longer found.
      await kit.serial(() => {
        const agents = agentUuids === undefined ? undefined : resolveUuids(fleet, agentUuids)
        labels.set({ name: request.body.name, value: request.body.value, oldName, agents })
      })
      return sendEnvelope(request, reply, { servicename: 'setcustomlabel', links: [selfLink(kit.links.base(request), request)] })
    })
  }

  for (const { url, options } of kit.routes('removecustomlabel')) {
    const schema = { summary: 'Unassign custom labels; remove those left unassigned', querystring: RemoveLabelQuery, response }
    typed.post(url, { ...options, schema }, async (request, reply) => {
      const { labelNames, agentUuids } = request.query
      await kit.serial(() => {
        const agents = agentUuids === undefined ? undefined : resolveUuids(fleet, agentUuids)
        labels.remove(labelNames, agents)
      })
      return sendEnvelope(request, reply, { servicename: 'removecustomlabel', links: [selfLink(kit.links.base(request), request)] })
    })
  }
}
