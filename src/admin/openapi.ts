/**
 * How an admin route appears in the OpenAPI document: its operationId, summary, the `admin`
 * tag, and which body it reads. Only documentation: the admin routes check their bodies
 * themselves (src/admin/body.ts), so no fastify `body` schema is set here; src/http/openapi.ts
 * turns `x-fleetsim-body` into the documented request body and adds the JSON answers.
 */
export type AdminBody = 'json' | 'scenario' | 'fault-rule'

export interface AdminSchema {
  operationId: string
  summary: string
  tags: ['admin']
  'x-fleetsim-body'?: AdminBody
}

/** `body`: true for a JSON object body, 'scenario' for the scenario's YAML or JSON, 'fault-rule' for one of its fault rules. */
export function adminSchema(operationId: string, summary: string, body?: true | 'scenario' | 'fault-rule'): AdminSchema {
  const schema: AdminSchema = { operationId, summary, tags: ['admin'] }
  if (body !== undefined) schema['x-fleetsim-body'] = body === true ? 'json' : body
  return schema
}
