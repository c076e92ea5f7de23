/**
 * Reading the small JSON bodies of the admin API. Every failure is a catalogue error that names
 * the field and the rule, e.g. `The body field "speed" must be a positive finite number, got 0.`
 */
import { apiError, shown } from '../protocol/errors.js'
import { parseDuration } from '../lib/units.js'

export type Body = Record<string, unknown>

/** The body as an object with only `allowed` keys; `required` when a body must be sent. */
export function objectBody(body: unknown, endpoint: string, shape: string, allowed: readonly string[], required: boolean): Body {
  if (body === undefined || body === null) {
    if (required) throw apiError('E_MISSING_BODY', { operation: endpoint, body: `${shape} object`, sentAs: 'JSON (application/json); the admin API reads no XML' })
    return {}
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw apiError('E_WRONG_TYPE', { where: 'request body', name: endpoint, expected: `a JSON object like ${shape}`, got: shown(body) })
  }
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      const rule = allowed.length === 0 ? `is not a field of ${endpoint}, which takes no body` : `is not a field of ${endpoint} (allowed: ${allowed.join(', ')})`
      throw apiError('E_INVALID_VALUE', { where: 'body field', name: key, rule, got: shown((body as Body)[key]) })
    }
  }
  return body as Body
}

export function optionalBoolean(body: Body, name: string): boolean | undefined {
  const value = body[name]
  if (value === undefined || typeof value === 'boolean') return value
  throw apiError('E_WRONG_TYPE', { where: 'body field', name, expected: 'true or false', got: shown(value) })
}

export function requireField(body: Body, name: string): unknown {
  const value = body[name]
  if (value === undefined) throw apiError('E_MISSING_FIELD', { name })
  return value
}

/** Seconds from a number or a duration string ("5m", "1h30m"). */
export function seconds(value: unknown, name: string, rule: string): number {
  const parsed = parseDuration(value)
  if (parsed === undefined) throw apiError('E_INVALID_VALUE', { where: 'body field', name, rule, got: shown(value) })
  return parsed
}
