/**
 * The text of the identities of the agents read last (name, UUID, address, service, sysinfo), so that reading an agent again returns the same strings rather than deriving them
 * anew from hashes.
 *
 * Why: a list of 10,000 agents polled every second derived every item's identity again, and the
 * item writer (src/http/item-writer.ts) then compared each new string character by character
 * with the fragment it had kept for the agent. Kept here, the same string objects come back:
 * they compare by reference, and nothing is derived.
 *
 * Direct-mapped by index (SLOTS slots, an agent's slot is its index modulo SLOTS), so the memory
 * is bounded and a lookup costs an array read. A slot is good while the overrides' revision is
 * the one it was made at: that moves with every rename, UUID and configuration the API gives and
 * with every new run, which is all that changes an identity. The OS may change an agent's sysinfo,
 * so the sysinfo carries the OS it was written for (agent-view.ts checks it).
 *
 * A read may leave its identity unkept (Fleet.view's keepIdentity): a list of more agents than the
 * answers keep items for (src/http/item-writer.ts) would only put each identity in a slot to
 * push it out again. Kept, each of those lived long enough to reach the old generation, and 8
 * clients listing 100k agents grew RSS by about 230 MB (bench/README.md, "Long lists without an
 * object spread per item", which measured this with the two other changes made there).
 */
export interface ShownIdentity {
  name: string
  uuid: string
  address: string
  /** `the service`: serviceOf(address, port), the port the agent's configuration's (AGENT_PORT for generated agents) */
  service: string
  /** the OS index `sysinfo` was written for */
  sysinfoOs: number
  sysinfo: string
}

/** 32,768 slots: a list of 10,000 agents keeps all of its identities. */
export const SLOTS = 1 << 15

interface Slot {
  index: number
  revision: number
  shown: ShownIdentity
}

export class ShownIdentities {
  private readonly slots: Array<Slot | undefined> = new Array<Slot | undefined>(SLOTS).fill(undefined)

  /** Agent i's identity if it was kept at this revision of the overrides. */
  get(i: number, revision: number): ShownIdentity | undefined {
    const slot = this.slots[i & (SLOTS - 1)]
    return slot !== undefined && slot.index === i && slot.revision === revision ? slot.shown : undefined
  }

  set(i: number, revision: number, shown: ShownIdentity): void {
    // Made flat before they are kept: a string joined from pieces (a UUID is joined from ten)
    // is a tree of them until read character by character, and a kept tree costs several times
    // its text.
    for (const text of [shown.name, shown.uuid, shown.address, shown.service, shown.sysinfo]) text.charCodeAt(0)
    this.slots[i & (SLOTS - 1)] = { index: i, revision, shown }
  }
}
