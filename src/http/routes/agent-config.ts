/** addagent and modifyagent: the agent object, its certificate and the shared name rule. */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { AgentConfig } from '../../fleet/fleet-api.js'
import { FleetFullError } from '../../fleet/fleet-types.js'
import { checkAgentSizes, fleetFull } from '../../manager/limits.js'
import { displayFingerprint } from '../../tls/ca-info.js'
import { apiError } from '../../protocol/errors.js'
import { viewByQuery } from '../links.js'
import { requireUsableName } from '../names.js'
import { sendEnvelope } from '../reply.js'
import type { RouteKit } from '../route-kit.js'
import { caRule } from '../request-rules.js'
import { fieldsOf, withRules, type RequestRule } from '../validation.js'
import { AddAgentBody, ERROR_RESPONSES, MessageEnvelope, ModifyAgentBody, ModifyAgentQuery, type AgentGlobalConfig } from '../schemas.js'

const response = { 200: MessageEnvelope, ...ERROR_RESPONSES }

/** The body's global-config with the spec's defaults, and the certificate chosen for it. */
function agentConfig(config: AgentGlobalConfig, caFingerprint: string, certFingerprint: string): AgentConfig {
  return {
    address: config.address,
    port: config.port,
    caFingerprint,
    certFingerprint: displayFingerprint(certFingerprint),
    isLogToFile: config['is-log-to-file'] ?? true,
    logLevel: config['log-level'] ?? 'INFO',
    mode: config.mode ?? 'Connect',
    verbatim: config.verbatim ?? ''
  }
}

/** addagent takes its name from the body or, without one, from the certificate it assigns. */
const nameOrCertificate: RequestRule = (body) => {
  const fields = fieldsOf(body)
  if (fields === undefined || fields.name !== undefined) return undefined
  const fingerprint = fieldsOf(fields['global-config'])?.['cert-fingerprint']
  return fingerprint === undefined ? apiError('E_MISSING_FIELD', { name: 'name' }) : undefined
}

export function agentConfigRoutes(app: FastifyInstance, kit: RouteKit): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { fleet, certificates } = kit.manager

  for (const { url, options } of kit.routes('addagent')) {
    const schema = { summary: 'Create an agent', body: withRules(AddAgentBody, nameOrCertificate, caRule(certificates)), response }
    typed.post(url, { ...options, schema }, async (request, reply) => {
      const config = request.body['global-config']
      checkAgentSizes(kit.manager.limits, { name: request.body.name, config })
      // The name check and the add in one serial section: a concurrent add or rename to the
      // same name waits, then fails the check.
      // The CA fingerprint and the name-or-certificate rule are checked with the schema (caRule, nameOrCertificate).
      const name = await kit.serial(async () => {
        let name = request.body.name
        let fingerprint: string | undefined
        if (config['cert-fingerprint'] !== undefined) {
          const cert = certificates.requireAssignable(config['cert-fingerprint'])
          fingerprint = cert.fingerprint
          if (name === undefined) {
            name = cert.name
            // The validator checked only a name in the body (names.ts); this one is the certificate's.
            requireUsableName('agent', name)
          }
        }
        if (name === undefined) throw apiError('E_MISSING_FIELD', { name: 'name' })
        kit.manager.checkName(name)
        const issued = fingerprint === undefined
        if (fingerprint === undefined) fingerprint = certificates.issue(name)
        else certificates.keep(fingerprint)
        let index: number
        try {
          index = await fleet.addAgent({ name, config: agentConfig(config, certificates.caFingerprint, fingerprint) })
        } catch (error) {
          if (issued) certificates.discard(fingerprint)
          if (error instanceof FleetFullError) throw fleetFull(error)
          throw error
        }
        if (issued) certificates.bind(fingerprint, index)
        return name
      })
      return sendEnvelope(request, reply, {
        servicename: 'addagent',
        values: [{ message: `Agent "${name}" added.` }],
        links: [viewByQuery(kit.links.base(request), name)]
      })
    })
  }

  for (const { url, options } of kit.routes('modifyagent')) {
    const schema = { summary: 'Rename and/or reconfigure an agent', querystring: ModifyAgentQuery, body: withRules(ModifyAgentBody, caRule(certificates)), response }
    typed.put(url, { ...options, schema }, async (request, reply) => {
      const current = request.query.agentName
      const { name } = request.body
      const config = request.body['global-config']
      checkAgentSizes(kit.manager.limits, { name, config })
      // Lookup, name check and change in one serial section: the agent cannot be deleted or
      // renamed, nor the new name taken, in between.
      await kit.serial(async () => {
        const index = fleet.findByName(current)
        if (index === undefined) throw apiError('E_UNKNOWN_AGENT', { by: 'name', values: [current] })
        kit.manager.checkName(name, current)
        let fingerprint = fleet.config(index).certFingerprint
        if (config['cert-fingerprint'] !== undefined) {
          fingerprint = certificates.requireAssignable(config['cert-fingerprint'], index).fingerprint
          certificates.keep(fingerprint)
        }
        await fleet.modifyAgent(index, name, agentConfig(config, certificates.caFingerprint, fingerprint))
      })
      return sendEnvelope(request, reply, {
        servicename: 'modifyagent',
        values: [{ message: `Agent "${name}" modified.` }],
        links: [viewByQuery(kit.links.base(request), name)]
      })
    })
  }
}
