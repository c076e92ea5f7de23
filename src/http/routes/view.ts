/**
 * viewagentortemplate (contract is the simulator's): the target of the self links of the
 * other operations. GET `?name=<name>` or `/viewagentortemplate/<name>`; the name is looked up
 * as an agent name, then a template name, then an agent UUID. An agent answers as its
 * agentinfo item, a template as `{content: <template record>, links}`; anything else is 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { apiError } from '../../protocol/errors.js'
import { viewByQuery } from '../links.js'
import { itemsAnswer, sendAnswer, sendEnvelope } from '../reply.js'
import type { RouteKit } from '../route-kit.js'
import { AgentinfoItem, ERROR_RESPONSES, Envelope, Link, TemplateRecord, ViewParams, ViewPathQuery, ViewQuery } from '../schemas.js'
import { agentItemText } from './agentinfo.js'
import { templateRecord } from './templates.js'

const TemplateItem = Type.Object({ content: TemplateRecord, links: Type.Array(Link) })
const response = { 200: Envelope(Type.Union([AgentinfoItem, TemplateItem])), ...ERROR_RESPONSES }

export function viewRoutes(app: FastifyInstance, kit: RouteKit): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { fleet, templates } = kit.manager

  const answer = (request: FastifyRequest, reply: FastifyReply, name: string, withModules: boolean): FastifyReply => {
    const base = kit.links.base(request)
    // An agent name, then a template name, then an agent UUID.
    const byName = fleet.findByName(name)
    const template = byName === undefined ? templates.get(name) : undefined
    const index = byName ?? (template === undefined ? fleet.findByUuid(name) : undefined)
    if (index !== undefined) return sendAnswer(request, reply, itemsAnswer(request.format, 'viewagentortemplate', [agentItemText(kit, fleet, request.format, base, index, withModules)]))
    if (template === undefined) throw apiError('E_UNKNOWN_NAME', { name })
    return sendEnvelope(request, reply, { servicename: 'viewagentortemplate', values: [{ content: templateRecord(template), links: [viewByQuery(base, template.name)] }] })
  }

  for (const { url, options } of kit.routes('viewagentortemplate')) {
    typed.get(url, { ...options, schema: { summary: 'An agent or a template by name', querystring: ViewQuery, response } }, async (request, reply) =>
      answer(request, reply, request.query.name, request.query.agentwithmodules === true)
    )
    typed.get(
      `${url}/:name`,
      { ...options, schema: { summary: 'An agent or a template by name', params: ViewParams, querystring: ViewPathQuery, response } },
      async (request, reply) => answer(request, reply, request.params.name, request.query.agentwithmodules === true)
    )
  }
}
