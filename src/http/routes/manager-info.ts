/** agentmanager, appinfo and createfield: the manager itself. */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { selfLink } from '../links.js'
import { sendEnvelope } from '../reply.js'
import type { RouteKit } from '../route-kit.js'
import { ERROR_RESPONSES, Envelope, FieldBody, FieldRecord, ManagerInfo, MessageEnvelope } from '../schemas.js'

export const CONNECTOR_MESSAGE = 'Agent Manager connector not started.'

export function managerRoutes(app: FastifyInstance, kit: RouteKit): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { fleet, fields } = kit.manager
  // The real message says "1 agents connected": the number is not singularised.
  const listenerPrefix = `Agent Manager listener is accepting connections on ${kit.agentListener}\n`

  for (const { url, options } of kit.routes('agentmanager')) {
    const schema = { summary: 'Check that the manager is running', response: { 200: MessageEnvelope, ...ERROR_RESPONSES } }
    typed.get(url, { ...options, schema }, async (request, reply) => {
      // The real manager unlocks its private key when agentmanager is called after a restart
      // (facts notes): locked-out agents start reconnecting.
      await fleet.managerLogin()
      return sendEnvelope(request, reply, {
        servicename: 'agentmanager',
        values: [{ message: `${listenerPrefix}${fleet.connectedCount()} agents connected` }, { message: CONNECTOR_MESSAGE }],
        links: [selfLink(kit.links.base(request), request)]
      })
    })
  }

  for (const { url, options } of kit.routes('appinfo')) {
    const schema = { summary: 'Manager application information', response: { 200: Envelope(ManagerInfo), ...ERROR_RESPONSES } }
    typed.get(url, { ...options, schema }, async (request, reply) =>
      sendEnvelope(request, reply, {
        servicename: 'appinfo',
        values: [
          {
            mgrUptime: Math.max(0, Math.floor((fleet.now() - kit.manager.startedAt) / 1000)),
            licenseState: 'VALID/PERMANENT',
            licenseExpireDate: 0,
            appVersion: kit.appVersion,
            appRevisionNumber: `fleetsim-${kit.appVersion}`
          }
        ],
        links: [selfLink(kit.links.base(request), request)]
      })
    )
  }

  for (const { url, options } of kit.routes('createfield')) {
    const schema = { summary: 'Create a manager field', body: FieldBody, response: { 200: Envelope(FieldRecord), ...ERROR_RESPONSES } }
    typed.post(url, { ...options, schema }, async (request, reply) => {
      const body = request.body
      const field = fields.create({
        name: body.name,
        type: body.type,
        description: body.fieldDescription?.description,
        persist: body.persist,
        lookup: body.lookup
      })
      return sendEnvelope(request, reply, { servicename: 'createfield', values: [field] })
    })
  }
}
