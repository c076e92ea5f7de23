/**
 * Describes an X.509 certificate the way the manager reports certificates: SHA-1 fingerprint
 * in colon form, distinguished names, serial number, validity and the Java-style signature
 * algorithm name (`SHA256withECDSA`).
 */
import { createHash } from 'node:crypto'
import { x509 } from './x509.js'
import { displayFingerprint, type CaInfo } from './ca-info.js'

/** Reads the first certificate of a PEM text (or a parsed certificate) into a CaInfo. */
export function describeCertificate(certificate: string | x509.X509Certificate): CaInfo {
  const cert = typeof certificate === 'string' ? new x509.X509Certificate(certificate) : certificate
  return {
    fingerprint: certificateFingerprint(cert),
    subject: formatName(cert.subjectName),
    issuer: formatName(cert.issuerName),
    serialNumber: cert.serialNumber.toUpperCase(),
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    sigAlgName: signatureAlgorithmName(cert.signatureAlgorithm),
    pem: cert.toString('pem') + '\n'
  }
}

/** SHA-1 over the DER encoding, upper-case hex pairs joined by colons (as openssl prints it). */
export function certificateFingerprint(cert: x509.X509Certificate): string {
  return displayFingerprint(createHash('sha1').update(new Uint8Array(cert.rawData)).digest('hex'))
}

/** A distinguished name as `CN=fleetsim CA,O=fleetsim`: attributes in encoded order, RFC 4514 escaping. */
export function formatName(name: x509.Name): string {
  return name
    .toJSON()
    .map((rdn) =>
      Object.entries(rdn)
        .flatMap(([type, values]) => values.map((value) => `${type}=${escapeDnValue(value)}`))
        .join('+')
    )
    .join(',')
}

function escapeDnValue(value: string): string {
  return value.replace(/[,+"\\<>;=]/g, (c) => `\\${c}`).replace(/^[ #]|[ ]$/g, (c) => `\\${c}`)
}

/** Java's names for signature algorithms: SHA256withECDSA, SHA256withRSA, RSASSA-PSS, Ed25519. */
export function signatureAlgorithmName(algorithm: object): string {
  const { name, hash } = algorithm as { name?: string; hash?: { name?: string } | string }
  const digest = (typeof hash === 'string' ? hash : (hash?.name ?? '')).replace('-', '')
  switch (name) {
    case 'ECDSA':
      return `${digest}withECDSA`
    case 'RSASSA-PKCS1-v1_5':
      return `${digest}withRSA`
    case 'RSA-PSS':
      return 'RSASSA-PSS'
    default:
      return name ?? 'unknown'
  }
}
