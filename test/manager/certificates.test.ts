import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import { CertificateRegistry } from '../../src/manager/certificates.js'
import { CA, START } from '../http/helpers.js'

let fleet: FleetEngine
beforeAll(async () => {
  fleet = await createFleet({ agents: 10, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
})
afterAll(() => fleet.close())

describe('the certificate registry', () => {
  it('lists the CA first and then one certificate per agent', () => {
    const list = [...new CertificateRegistry(fleet, CA).list()]
    expect(list[0]).toMatchObject({ type: 'CA', id: 1, 'use-as-default-ca': true, fingerprint: CA.fingerprint })
    expect(list).toHaveLength(11)
    expect(list[1]).toMatchObject({ type: 'CERT', name: fleet.name(0), id: 2, status: 'VALID' })
  })

  it('accepts the CA fingerprint in any case, with or without colons', () => {
    const certificates = new CertificateRegistry(fleet, CA)
    expect(() => certificates.requireCa(CA.fingerprint.replace(/:/g, '').toLowerCase())).not.toThrow()
  })

  it('refuses an unknown CA fingerprint', () => {
    expect(() => new CertificateRegistry(fleet, CA).requireCa('00:11')).toThrow(expect.objectContaining({ code: 'E_UNKNOWN_CA_FINGERPRINT' }))
  })

  it('finds a generated agent certificate by the fingerprint in the agent configuration', () => {
    const certificates = new CertificateRegistry(fleet, CA)
    // Agent 3's own, as modifyagent may keep it.
    expect(certificates.requireAssignable(fleet.config(3).certFingerprint, 3).name).toBe(fleet.name(3))
  })

  it("refuses another agent's certificate and the CA, and says what omitting it does in each operation", () => {
    const certificates = new CertificateRegistry(fleet, CA)
    const other = fleet.config(3).certFingerprint
    expect(() => certificates.requireAssignable(other)).toThrow(
      expect.objectContaining({ code: 'E_CERTIFICATE_IN_USE', statusCode: 409, message: expect.stringContaining(`belongs to the agent "${fleet.name(3)}"`) })
    )
    expect(() => certificates.requireAssignable(other, 4)).toThrow(expect.objectContaining({ code: 'E_CERTIFICATE_IN_USE', message: expect.stringContaining("to keep the agent's certificate") }))
    expect(() => certificates.requireAssignable(other)).toThrow(expect.objectContaining({ message: expect.stringContaining('to have one issued') }))
    expect(() => certificates.requireAssignable(CA.fingerprint)).toThrow(expect.objectContaining({ code: 'E_CA_NOT_ASSIGNABLE', message: expect.stringContaining('type CERT') }))
  })

  it('refuses an unknown certificate fingerprint', () => {
    expect(() => new CertificateRegistry(fleet, CA).requireAssignable('ab'.repeat(20))).toThrow(expect.objectContaining({ code: 'E_UNKNOWN_CERT_FINGERPRINT' }))
  })

  it('issues certificates with distinct SHA-1 fingerprints', () => {
    const certificates = new CertificateRegistry(fleet, CA)
    const a = certificates.issue('x')
    const b = certificates.issue('x')
    expect(a).toMatch(/^[0-9a-f]{40}$/)
    expect(a).not.toBe(b)
  })

  it('marks a revoked certificate REVOKED and refuses to assign it', () => {
    const certificates = new CertificateRegistry(fleet, CA)
    const fingerprint = fleet.config(2).certFingerprint
    certificates.revoke(fingerprint)
    expect(certificates.status(fingerprint)).toBe('REVOKED')
    expect(() => certificates.requireAssignable(fingerprint)).toThrow(expect.objectContaining({ code: 'E_CERTIFICATE_REVOKED' }))
    expect([...certificates.list()].filter((c) => c.status === 'REVOKED')).toHaveLength(1)
  })

  it('lists only certificates expiring within the given days', () => {
    const certificates = new CertificateRegistry(fleet, CA)
    expect([...certificates.list(30)]).toHaveLength(0)
    // Agent certificates run 730 days from the CA's start (2026-01-01), i.e. until 2028-01-01.
    expect([...certificates.list(700)].every((c) => c.type === 'CERT')).toBe(true)
    expect([...certificates.list(700)]).toHaveLength(10)
  })

  it('restores a state saved before ids were moved: its ids stay, and one moved later takes an id above them all', async () => {
    const own = await createFleet({ agents: 10, seed: 3, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint, headroom: 5 })
    try {
      const before = new CertificateRegistry(own, CA)
      const fingerprint = before.issue('added')
      before.bind(fingerprint, 10)
      // An id from a larger fleet of an older run, above this run's 15 slots.
      const older = { ...before.snapshot().certificates[0], fingerprint: 'ab'.repeat(20), name: 'older', id: 40 }
      const { issued, certificates } = before.snapshot()
      const restored = new CertificateRegistry(own, CA)
      restored.restore({ issued, certificates: [...certificates, older] })
      expect([...restored.list()].filter((c) => c.name === 'added' || c.name === 'older').map((c) => c.id)).toEqual([12, 40])
      await own.reset()
      expect([...restored.list()].filter((c) => c.name === 'added' || c.name === 'older').map((c) => c.id)).toEqual([41, 40])
    } finally {
      await own.close()
    }
  })
})
