/**
 * certificateinfo (contract is the simulator's, from the facts notes): GET, optional
 * `expirein` days (comma-delimited or repeated; several values act as the largest) keeps only
 * certificates not yet expired that expire within that many days. Items: the CA first, then
 * every agent certificate.
 */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { selfLink } from '../links.js'
import { sendList } from '../reply.js'
import type { RouteKit } from '../route-kit.js'
import { CertificateItem, CertificateinfoQuery, ERROR_RESPONSES, Envelope } from '../schemas.js'
import { maxOf } from '../../lib/extremes.js'

export function certificateRoutes(app: FastifyInstance, kit: RouteKit): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { certificates } = kit.manager
  for (const { url, options } of kit.routes('certificateinfo')) {
    const schema = {
      summary: 'Certificates: the CA and every agent certificate',
      querystring: CertificateinfoQuery,
      response: { 200: Envelope(CertificateItem), ...ERROR_RESPONSES }
    }
    typed.get(url, { ...options, schema }, async (request, reply) => {
      const { expirein } = request.query
      const within = expirein === undefined ? undefined : maxOf(expirein)
      return sendList(request, reply, 'certificateinfo', certificates.list(within), [selfLink(kit.links.base(request), request)])
    })
  }
}
