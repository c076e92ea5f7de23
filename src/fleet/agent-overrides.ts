/**
 * The few agents whose identity is not derived from (seed, index): renamed, added through the
 * API, given a UUID, or reconfigured. Each value has its reverse index, so lookups stay O(1)
 * without a table for the generated million.
 */
import { normaliseFingerprint } from '../tls/ca-info.js'
import type { AgentConfig } from './fleet-api.js'

export class AgentOverrides {
  private readonly names = new Map<number, string>()
  private readonly byName = new Map<string, number>()
  private readonly uuids = new Map<number, string>()
  private readonly byUuid = new Map<string, number>()
  private readonly configs = new Map<number, AgentConfig>()
  private readonly byCert = new Map<string, number>()
  private changes = 0

  /** Moves on with every change: while it stays the same, every agent shows the same name, UUID, address and port. */
  get revision(): number {
    return this.changes
  }

  clear(): void {
    for (const map of [this.names, this.byName, this.uuids, this.byUuid, this.configs, this.byCert]) map.clear()
    this.changes++
  }

  setName(i: number, name: string): void {
    const previous = this.names.get(i)
    if (previous !== undefined) this.byName.delete(previous)
    this.names.set(i, name)
    this.byName.set(name, i)
    this.changes++
  }

  /** `uuid` in lower case */
  setUuid(i: number, uuid: string): void {
    this.uuids.set(i, uuid)
    this.byUuid.set(uuid, i)
    this.changes++
  }

  setConfig(i: number, config: AgentConfig): void {
    const previous = this.configs.get(i)
    if (previous !== undefined) this.byCert.delete(normaliseFingerprint(previous.certFingerprint))
    this.configs.set(i, { ...config })
    this.byCert.set(normaliseFingerprint(config.certFingerprint), i)
    this.changes++
  }

  /** Whether the API gave agent i a name, UUID or configuration of its own. */
  has(i: number): boolean {
    return this.names.has(i) || this.uuids.has(i) || this.configs.has(i)
  }

  name(i: number): string | undefined {
    return this.names.get(i)
  }

  uuid(i: number): string | undefined {
    return this.uuids.get(i)
  }

  config(i: number): AgentConfig | undefined {
    return this.configs.get(i)
  }

  /** How many agents have a name the API gave them. */
  renamedCount(): number {
    return this.names.size
  }

  /** Whether agent i's generated name, UUID or configuration was replaced. */
  renamed(i: number): boolean {
    return this.names.has(i)
  }

  hasUuid(i: number): boolean {
    return this.uuids.has(i)
  }

  reconfigured(i: number): boolean {
    return this.configs.has(i)
  }

  indexOfName(name: string): number | undefined {
    return this.byName.get(name)
  }

  /** `uuid` in lower case */
  indexOfUuid(uuid: string): number | undefined {
    return this.byUuid.get(uuid)
  }

  /** `fingerprint` in normal form */
  indexOfCert(fingerprint: string): number | undefined {
    return this.byCert.get(fingerprint)
  }

  /** Plain data, sorted by index (the digest and the state file). */
  entries(): { names: Array<[number, string]>; uuids: Array<[number, string]>; configs: Array<[number, AgentConfig]> } {
    const sorted = <T>(map: Map<number, T>) => [...map].sort((a, b) => a[0] - b[0])
    return { names: sorted(this.names), uuids: sorted(this.uuids), configs: sorted(this.configs) }
  }
}
