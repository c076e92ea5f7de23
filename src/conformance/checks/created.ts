/** Names and bodies of what the write checks create. */
import type { Context } from '../context.js'

/** `fleetsim-conformance-<run>-<part>`: unique per run, and plain to a person cleaning up. */
export const createdName = (context: Context, part: string): string => `fleetsim-conformance-${context.unique}-${part}`

/** A global-config for agents and master templates: a documentation address and the manager's CA. */
export function globalConfig(caFingerprint: string): Record<string, unknown> {
  return { address: '192.0.2.10', port: 4041, 'ca-fingerprint': caFingerprint }
}
