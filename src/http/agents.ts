/** Looking agents up by the names and UUIDs clients send. */
import type { Fleet } from '../fleet/fleet-api.js'
import { apiError } from '../protocol/errors.js'

/** Indices of the named agents in request order, duplicates dropped; 404 naming every unknown one. */
export function resolveUuids(fleet: Fleet, uuids: readonly string[]): number[] {
  return resolve(uuids, (uuid) => fleet.findByUuid(uuid), 'UUID')
}

export function resolveNames(fleet: Fleet, names: readonly string[]): number[] {
  return resolve(names, (name) => fleet.findByName(name), 'name')
}

function resolve(keys: readonly string[], find: (key: string) => number | undefined, by: 'name' | 'UUID'): number[] {
  const indices: number[] = []
  const seen = new Set<number>()
  const missing: string[] = []
  for (const key of keys) {
    const index = find(key)
    if (index === undefined) missing.push(key)
    else if (!seen.has(index)) {
      seen.add(index)
      indices.push(index)
    }
  }
  if (missing.length > 0) throw apiError('E_UNKNOWN_AGENT', { by, values: missing })
  return indices
}
