/** addmastertemplate, addsubtemplate, modifymastertemplate, modifysubtemplate. */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { MasterConfig, SubConfig, Template } from '../../manager/templates.js'
import { viewByQuery } from '../links.js'
import { sendEnvelope } from '../reply.js'
import type { RouteKit } from '../route-kit.js'
import { caRule } from '../request-rules.js'
import { withRules } from '../validation.js'
import {
  ERROR_RESPONSES,
  MasterTemplateBody,
  MessageEnvelope,
  ModifyMasterQuery,
  ModifySubQuery,
  SubTemplateBody,
  type MasterGlobalConfig,
  type TemplateRecord
} from '../schemas.js'

const response = { 200: MessageEnvelope, ...ERROR_RESPONSES }

function masterConfig(config: MasterGlobalConfig, caFingerprint: string): MasterConfig {
  return {
    address: config.address,
    port: config.port,
    caFingerprint,
    isLogToFile: config['is-log-to-file'] ?? true,
    logLevel: config['log-level'] ?? 'INFO',
    mode: config.mode ?? 'Connect',
    verbatim: config.verbatim ?? ''
  }
}

/**
 * Only what a sub template has: members the schema does not know are not kept (they were
 * never shown, yet would have been held and saved at any size).
 */
function subConfig(config: { verbatim?: string } | undefined): SubConfig {
  return config?.verbatim === undefined ? {} : { verbatim: config.verbatim }
}

/** A template as viewagentortemplate shows it: the body form plus id and kind. */
export function templateRecord(template: Template): TemplateRecord {
  return {
    name: template.name,
    id: template.id,
    templateType: template.kind === 'master' ? 'MASTER' : 'SUB',
    description: template.description,
    'global-config': template.kind === 'master' ? masterGlobalConfig(template.config as MasterConfig) : subGlobalConfig(template.config as SubConfig)
  }
}

function masterGlobalConfig(c: MasterConfig): TemplateRecord['global-config'] {
  return {
    address: c.address,
    port: c.port,
    'ca-fingerprint': c.caFingerprint,
    'is-log-to-file': c.isLogToFile,
    'log-level': c.logLevel,
    mode: c.mode,
    verbatim: c.verbatim
  }
}

function subGlobalConfig(c: SubConfig): TemplateRecord['global-config'] {
  return c.verbatim === undefined ? {} : { verbatim: c.verbatim }
}

export function templateRoutes(app: FastifyInstance, kit: RouteKit): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { templates, certificates } = kit.manager

  for (const { url, options } of kit.routes('addmastertemplate')) {
    // The CA fingerprint is checked with the schema (caRule), so its error joins the schema's.
    typed.post(url, { ...options, schema: { summary: 'Create a master template', body: withRules(MasterTemplateBody, caRule(certificates)), response } }, async (request, reply) => {
      const body = request.body
      const config = masterConfig(body['global-config'], certificates.caFingerprint)
      // Serial: the shared name check must not run while an addagent of that name is pending.
      const template = await kit.serial(() => templates.add('master', { name: body.name, description: body.description, config }))
      return sendEnvelope(request, reply, {
        servicename: 'addmastertemplate',
        values: [{ message: `Master template "${template.name}" created.` }],
        links: [viewByQuery(kit.links.base(request), template.name)]
      })
    })
  }

  for (const { url, options } of kit.routes('addsubtemplate')) {
    typed.post(url, { ...options, schema: { summary: 'Create a sub template', body: SubTemplateBody, response } }, async (request, reply) => {
      const body = request.body
      const template = await kit.serial(() => templates.add('sub', { name: body.name, description: body.description, config: subConfig(body['global-config']) }))
      return sendEnvelope(request, reply, {
        servicename: 'addsubtemplate',
        values: [{ message: `Sub template "${template.name}" created.` }],
        links: [viewByQuery(kit.links.base(request), template.name)]
      })
    })
  }

  for (const { url, options } of kit.routes('modifymastertemplate')) {
    const schema = { summary: 'Rename and/or change a master template', querystring: ModifyMasterQuery, body: withRules(MasterTemplateBody, caRule(certificates)), response }
    typed.put(url, { ...options, schema }, async (request, reply) => {
      const body = request.body
      templates.require('master', [request.query.masterTemplateName])
      const config = masterConfig(body['global-config'], certificates.caFingerprint)
      const template = await kit.serial(() => templates.modify('master', request.query.masterTemplateName, { name: body.name, description: body.description, config }))
      return sendEnvelope(request, reply, {
        servicename: 'modifymastertemplate',
        values: [{ message: `Master template "${template.name}" modified.` }],
        links: [viewByQuery(kit.links.base(request), template.name)]
      })
    })
  }

  for (const { url, options } of kit.routes('modifysubtemplate')) {
    const schema = { summary: 'Rename and/or change a sub template', querystring: ModifySubQuery, body: SubTemplateBody, response }
    typed.put(url, { ...options, schema }, async (request, reply) => {
      const body = request.body
      const template = await kit.serial(() =>
        templates.modify('sub', request.query.subTemplateName, {
          name: body.name,
          description: body.description,
          config: subConfig(body['global-config'])
        })
      )
      return sendEnvelope(request, reply, {
        servicename: 'modifysubtemplate',
        values: [{ message: `Sub template "${template.name}" modified.` }],
        links: [viewByQuery(kit.links.base(request), template.name)]
      })
    })
  }
}
