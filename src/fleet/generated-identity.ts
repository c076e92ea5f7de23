/**
 * Fleet.generatedIdentity: the identity generated for an agent's index (identity.ts) written as
 * bytes, with the OS and version names of the current run, and the port every generated
 * agent's configuration has (AGENT_PORT). Reads the core at each call, so it holds across runs.
 */
import type { GeneratedIdentity } from './fleet-api.js'
import type { FleetCore } from './fleet-core.js'
import { AGENT_PORT } from './identity.js'

export class GeneratedIdentityWriter implements GeneratedIdentity {
  constructor(private readonly core: FleetCore) {}

  /** This writer if agent i shows its generated identity (no name, UUID or configuration from the API), else undefined. */
  of(i: number): GeneratedIdentity | undefined {
    return this.core.overrides.has(i) ? undefined : this
  }

  writeName(i: number, into: Uint8Array, at: number): number {
    return this.core.identity.writeName(i, into, at)
  }

  writeUuid(i: number, into: Uint8Array, at: number): number {
    return this.core.identity.writeUuid(i, into, at)
  }

  writeAddress(i: number, into: Uint8Array, at: number): number {
    return this.core.identity.writeAddress(i, into, at)
  }

  writeService(i: number, into: Uint8Array, at: number): number {
    return this.core.identity.writeService(i, AGENT_PORT, into, at)
  }

  writeSysinfoAfterOs(i: number, os: number, into: Uint8Array, at: number): number {
    const { identity, program } = this.core
    return identity.writeSysinfoAfterOs(i, this.osName(os), program.osFamily[os] ?? 'linux', into, at)
  }

  // 'unknown' as agent-view.ts shows an index the program has no name for.
  osName(os: number): string {
    return this.core.program.os.names[os] ?? 'unknown'
  }

  versionName(version: number): string {
    return this.core.program.versions.names[version] ?? 'unknown'
  }
}
