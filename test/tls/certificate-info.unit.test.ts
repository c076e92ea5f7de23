import { X509Certificate } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { displayFingerprint, normaliseFingerprint } from '../../src/tls/ca-info.js'
import { describeCertificate, signatureAlgorithmName } from '../../src/tls/certificate-info.js'
import { loadOrCreateTls } from '../../src/tls/tls-store.js'

async function freshCaPem(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-ca-info-'))
  try {
    return (await loadOrCreateTls({ dataDir, hosts: [] })).ca.pem
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

describe('describeCertificate', () => {
  it('gives the SHA-1 fingerprint in the colon form openssl prints', async () => {
    const pem = await freshCaPem()
    const info = describeCertificate(pem)
    expect(info.fingerprint).toBe(new X509Certificate(pem).fingerprint)
    expect(info.fingerprint).toMatch(/^([0-9A-F]{2}:){19}[0-9A-F]{2}$/)
  })

  it('gives subject, issuer, serial number, validity and signature algorithm', async () => {
    const pem = await freshCaPem()
    const node = new X509Certificate(pem)
    const info = describeCertificate(pem)
    expect(info.subject).toBe('CN=fleetsim CA,O=fleetsim')
    expect(info.issuer).toBe(info.subject)
    expect(info.serialNumber).toBe(node.serialNumber.toUpperCase())
    expect(info.notBefore.getTime()).toBe(new Date(node.validFrom).getTime())
    expect(info.notAfter.getTime()).toBe(new Date(node.validTo).getTime())
    expect(info.sigAlgName).toBe('SHA256withECDSA')
    expect(info.pem).toBe(pem)
  })
})

describe('signatureAlgorithmName', () => {
  it('uses the Java names for ECDSA, RSA and RSA-PSS signatures', () => {
    expect(signatureAlgorithmName({ name: 'ECDSA', hash: { name: 'SHA-384' } })).toBe('SHA384withECDSA')
    expect(signatureAlgorithmName({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' })).toBe('SHA256withRSA')
    expect(signatureAlgorithmName({ name: 'RSA-PSS', hash: 'SHA-256' })).toBe('RSASSA-PSS')
  })
})

describe('fingerprint forms', () => {
  it('reads a fingerprint with or without colons, in either case, as the same value', () => {
    const display = 'AB:CD:EF:01'
    expect(normaliseFingerprint(display)).toBe('abcdef01')
    expect(normaliseFingerprint('abcdef01')).toBe('abcdef01')
    expect(displayFingerprint('abcdef01')).toBe(display)
  })
})
