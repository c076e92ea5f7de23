/**
 * Bodies in the scenario language (a whole scenario, or one fault rule) are read as text, YAML
 * or JSON alike: the YAML loader then gives every problem its line and column, JSON included.
 */
import type { FastifyInstance } from 'fastify'
import { apiError } from '../protocol/errors.js'
import { bodyText, refuseUnreadBodies } from '../http/body-text.js'

/** Content types of a body in the scenario language. */
export const SCENARIO_TYPES: ReadonlyArray<string | RegExp> = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', /^application\/[\w.-]+\+(json|yaml)$/]

/** Replaces the scope's parsers: every scenario-language type is handed over as text, read in its charset (body-text.ts). */
export function readTextBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers()
  for (const type of SCENARIO_TYPES) {
    scope.addContentTypeParser(type, { parseAs: 'buffer' }, (request, bytes: Buffer, done) => {
      try {
        done(null, bodyText(bytes, request.headers['content-type']))
      } catch (error) {
        done(error as Error, undefined)
      }
    })
  }
  // A charset bodyText does not read is refused before the body is read.
  refuseUnreadBodies(scope, SCENARIO_TYPES)
}

/** The body's text; E_MISSING_BODY naming `endpoint` and `what` (`scenario`) when there is none. */
export function requireText(body: unknown, endpoint: string, what: string): string {
  if (typeof body !== 'string' || body.trim() === '') throw apiError('E_MISSING_BODY', { operation: endpoint, body: what, sentAs: 'YAML (application/yaml) or JSON (application/json)' })
  return body
}
