import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { agentBody, call } from '../http/helpers.js'
import { admin, adminHarness, type AdminHarness } from './helpers.js'

// A reset starts a new run whose agents take the indices 0, 1, … again, while the manager keeps
// its certificates: one kept from the run before must not share an id with the new run's.
let h: AdminHarness
beforeEach(async () => {
  h = await adminHarness({ agents: 20 })
})
afterEach(() => h.close())

const YAML = { 'content-type': 'application/yaml' }
const scenario = (agents: number, seed: number) => `name: other-fleet
description: ${agents} agents of seed ${seed}.
fleet:
  agents: ${agents}
  seed: ${seed}
`

interface CertItem {
  id: number
  name: string
  fingerprint: string
  status: string
}

async function certificates(): Promise<CertItem[]> {
  return (await call(h.app, 'GET', 'certificateinfo')).json().values as CertItem[]
}

/** Ids listed more than once (empty when every id is its certificate's own). */
function duplicateIds(items: readonly CertItem[]): number[] {
  const seen = new Set<number>()
  return items.filter((item) => seen.has(item.id) || !seen.add(item.id)).map((item) => item.id)
}

async function addAgent(name: string): Promise<void> {
  expect((await call(h.app, 'POST', 'addagent', agentBody(name))).statusCode).toBe(200)
}

async function deleteRevoking(index: number): Promise<void> {
  expect((await call(h.app, 'DELETE', `deleteagent?agentUuids=${h.engine.uuid(index)}&revokeCert=true`)).statusCode).toBe(204)
}

describe('certificate ids across a reset', () => {
  it('gives the certificate an added agent had before the reset an id of its own when the new run adds an agent at its index', async () => {
    await addAgent('before-reset')
    expect((await admin(h.app, 'POST', '/reset')).statusCode).toBe(200)
    await addAgent('after-reset')
    const items = await certificates()
    expect(duplicateIds(items)).toEqual([])
    // The new run's agent keeps index + 2; the older certificate is still listed, elsewhere.
    expect(items.find((c) => c.name === 'after-reset')?.id).toBe((h.engine.findByName('after-reset') as number) + 2)
    expect(items.find((c) => c.name === 'before-reset')?.id).toBeGreaterThanOrEqual(h.engine.capacity + 2)
  })

  it('gives a certificate revoked before a reset to another fleet an id no agent of the new run has', async () => {
    await deleteRevoking(3)
    expect((await admin(h.app, 'PUT', '/scenario', scenario(20, 99), YAML)).statusCode).toBe(200)
    await addAgent('after-reset')
    const items = await certificates()
    expect(duplicateIds(items)).toEqual([])
    expect(items.filter((c) => c.status === 'REVOKED')).toHaveLength(1)
    expect(items).toHaveLength(1 + 20 + 1 + 1)
  })

  it('keeps index + 2 for a revoked certificate that is again its agent’s after a reset to the same fleet', async () => {
    const fingerprint = h.engine.config(3).certFingerprint
    await deleteRevoking(3)
    await admin(h.app, 'POST', '/reset')
    const items = await certificates()
    expect(duplicateIds(items)).toEqual([])
    // Same seed, same agent 3, same certificate: listed once, as its agent's, and still revoked.
    expect(h.engine.config(3).certFingerprint).toBe(fingerprint)
    expect(items.filter((c) => c.id === 5)).toMatchObject([{ status: 'REVOKED', name: h.engine.name(3) }])
    expect(items).toHaveLength(1 + 20)
  })

  it('moves a certificate kept over several resets out of the way of a larger fleet, and never hands an id out twice', async () => {
    await addAgent('first-run')
    await deleteRevoking(0)
    await admin(h.app, 'POST', '/reset')
    await addAgent('second-run')
    const kept = (await certificates()).find((c) => c.name === 'first-run') as CertItem
    // A fleet large enough that its agents' ids cover the ids given to the kept certificates.
    expect((await admin(h.app, 'PUT', '/scenario', scenario(3000, 5), YAML)).statusCode).toBe(200)
    expect(h.engine.capacity + 2).toBeGreaterThan(kept.id)
    await addAgent('third-run')
    await deleteRevoking(1)
    const items = await certificates()
    expect(duplicateIds(items)).toEqual([])
    for (const name of ['first-run', 'second-run']) expect(items.find((c) => c.name === name)?.id).toBeGreaterThanOrEqual(h.engine.capacity + 2)
  })
})
