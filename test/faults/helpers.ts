/** Fault tests: a small fleet whose scenario is only the fault rules under test. */
import { admin, adminHarness, type AdminHarness } from '../admin/helpers.js'
import type { Wait } from '../../src/faults/body.js'

export { admin, REST, AUTH } from '../admin/helpers.js'

export async function withFaults(faults: string, options: { wait?: Wait } = {}): Promise<AdminHarness> {
  const h = await adminHarness({ agents: 10, ...options })
  const yaml = `name: faults-under-test\ndescription: Only fault rules.\nfleet: { agents: 30, seed: 5 }\nfaults:\n${faults}`
  const response = await admin(h.app, 'PUT', '/scenario', yaml, { 'content-type': 'application/yaml' })
  if (response.statusCode !== 200) throw new Error(`scenario refused: ${response.body}`)
  return h
}
