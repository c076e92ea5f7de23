/**
 * What the manager facade needs to know about the certificate authority that issues the
 * server certificate and every agent certificate. Produced by src/tls (which keeps the real
 * X.509 files in the data directory) and handed to buildApp.
 */
export interface CaInfo {
  /** SHA-1 fingerprint, upper-case hex pairs joined by colons (the form openssl prints) */
  fingerprint: string
  /** distinguished name, e.g. `CN=fleetsim CA,O=fleetsim` */
  subject: string
  issuer: string
  serialNumber: string
  notBefore: Date
  notAfter: Date
  sigAlgName: string
  /** the CA certificate in PEM, for clients that want to trust it */
  pem: string
}

/**
 * Fingerprints are compared in a normal form: hex digits only, lower case. Clients send them
 * with or without colons, in either case.
 */
export function normaliseFingerprint(text: string): string {
  return text.replace(/[:\s-]/g, '').toLowerCase()
}

/** The display form: upper-case hex pairs joined by colons. */
export function displayFingerprint(hex: string): string {
  return normaliseFingerprint(hex).toUpperCase().match(/../g)?.join(':') ?? ''
}
