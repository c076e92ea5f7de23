/**
 * How an admin route appears in the OpenAPI document: its operationId, summary, the `admin`
 * tag, which body it reads, and whether it is open without credentials. Only documentation: the admin routes check their bodies
 * themselves (src/admin/body.ts), so no fastify `body` schema is set here; src/http/openapi.ts
 * turns `x-fleetsim-body` into the documented request body and adds the JSON answers.
 */
export type AdminBody = 'json' | 'scenario' | 'fault-rule'

export interface AdminSchema {
  operationId: string
  summary: string
  tags: ['admin']
  'x-fleetsim-body'?: AdminBody
  /** open without credentials (GET /__admin/health): no 401, no security requirement */
  'x-fleetsim-public'?: true
}

/**
 * `body`: true for a JSON object body, 'scenario' for the scenario's YAML or JSON, 'fault-rule'
 * for one of its fault rules; `open`: the route takes no credentials.
 */
export function adminSchema(operationId: string, summary: string, body?: true | 'scenario' | 'fault-rule', open = false): AdminSchema {
  const schema: AdminSchema = { operationId, summary, tags: ['admin'] }
  if (body !== undefined) schema['x-fleetsim-body'] = body === true ? 'json' : body
  if (open) schema['x-fleetsim-public'] = true
  return schema
}
