/**
 * The simulator's TLS material, kept as PEM files in `<data-dir>/tls/`:
 *
 *   ca.pem, ca-key.pem          the certificate authority (10 years); created once, never
 *                                replaced by fleetsim: its fingerprint is what every agent's
 *                                `ca-fingerprint` carries. Bring your own by placing both files
 *                                there before the first start (EC P-256/384/521 or RSA key).
 *   server.pem, server-key.pem  the HTTPS certificate, issued by that CA for localhost,
 *                                127.0.0.1, ::1 and the --host value; issued again whenever it
 *                                no longer fits (other hosts, other CA, expiring, unreadable).
 *
 * The data directory and tls/ are created with mode 0700, key files written with mode 0600.
 */
import { X509Certificate as NodeX509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto'
type CryptoKey = webcrypto.CryptoKey
type Algorithm = webcrypto.Algorithm
import { rename, writeFile } from 'node:fs/promises'
import { isIP } from 'node:net'
import { basename, join } from 'node:path'
import { makeDirs } from '../lib/make-dirs.js'
import { x509 } from './x509.js'
import type { CaInfo } from './ca-info.js'
import { describeCertificate } from './certificate-info.js'
import { PEM_MAX_BYTES, readRegularFileSync } from '../lib/regular-file.js'

export const TLS_DIR = 'tls'
export const TLS_FILES = {
  ca: 'ca.pem',
  caKey: 'ca-key.pem',
  server: 'server.pem',
  serverKey: 'server-key.pem'
} as const

/** Names every server certificate covers, whatever --host says. */
export const DEFAULT_TLS_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1']
/** Oldest protocol version the HTTPS listener accepts. */
export const TLS_MIN_VERSION = 'TLSv1.2'
/**
 * Cipher suites of the HTTPS listener. TLS 1.2: ECDHE key exchange (forward secrecy) with an
 * AEAD cipher (AES-GCM, ChaCha20-Poly1305) only, for EC and RSA keys; no CBC, SHA-1 MAC, CCM or
 * ARIA suites, which OpenSSL's default list still offers. TLS 1.3: its three standard suites.
 */
export const TLS_CIPHERS = [
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_128_GCM_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305'
].join(':')

const DAY_MS = 24 * 60 * 60 * 1000
const CA_VALIDITY_DAYS = 3650
const SERVER_VALIDITY_DAYS = 365
/** A server certificate with less time than this left is issued again. */
const SERVER_RENEW_BEFORE_DAYS = 30
/** notBefore is set this far in the past, so clients with a slightly slow clock accept it. */
const CLOCK_SKEW_MS = 60 * 60 * 1000

const CA_NAME = 'CN=fleetsim CA, O=fleetsim'
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const

export interface TlsOptions {
  dataDir: string
  /** host names or IP addresses the server certificate must cover besides DEFAULT_TLS_HOSTS */
  hosts: readonly string[]
  /** the current time; tests move it to exercise expiry */
  now?: Date
  /**
   * When a server certificate issued by this call is written: `now` (the default), or `later`,
   * by the returned `saveServerCertificate`, e.g. once the server listens, so that a start that
   * fails (a --host not on this machine) leaves the certificate of the last good start in place.
   */
  serverWrite?: 'now' | 'later'
}

export interface TlsMaterial {
  /** the server's private key, PEM */
  key: string
  /** the server certificate, PEM */
  cert: string
  ca: CaInfo
  /** path of ca.pem, for clients to trust (`curl --cacert`) */
  caPath: string
  /** what this call created: a new CA, a new server certificate */
  created: { ca: boolean; server: boolean }
  /** why the server certificate was issued, when `created.server` */
  serverReason?: string
  /** writes the server certificate issued by this call, if not yet written (`serverWrite: 'later'`); once */
  saveServerCertificate(): Promise<void>
}

/** Stable codes for TLS set-up failures; match on `code`, not on the message. */
export type TlsErrorCode = 'FLEETSIM_TLS_CA_INCOMPLETE' | 'FLEETSIM_TLS_CA_INVALID' | 'FLEETSIM_TLS_CA_EXPIRED' | 'FLEETSIM_TLS_FILE_UNREADABLE'

export class TlsError extends Error {
  readonly code: TlsErrorCode
  constructor(code: TlsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'TlsError'
    this.code = code
  }
}

interface LoadedCa {
  certPem: string
  keyPem: string
  cert: NodeX509Certificate
}

/** Loads the CA and server certificate from `<dataDir>/tls`, creating whatever is missing or stale. */
export async function loadOrCreateTls(options: TlsOptions): Promise<TlsMaterial> {
  const now = options.now ?? new Date()
  const dir = join(options.dataDir, TLS_DIR)
  // Both private to this user whatever the umask (mkdir's mode is masked by it, never widened):
  // they hold the CA's private key. An existing directory keeps its mode.
  await makeDirs(dir, 0o700)
  const paths = {
    ca: join(dir, TLS_FILES.ca),
    caKey: join(dir, TLS_FILES.caKey),
    server: join(dir, TLS_FILES.server),
    serverKey: join(dir, TLS_FILES.serverKey)
  }

  let ca = await loadCa(paths.ca, paths.caKey, dir, now)
  const caCreated = ca === undefined
  if (ca === undefined) {
    ca = await createCa(now)
    // 'wx': never replace a CA that appeared meanwhile. Key first, so a crash in between
    // leaves an incomplete CA that loadCa reports instead of a certificate without its key.
    await writeFile(paths.caKey, ca.keyPem, { mode: 0o600, flag: 'wx' })
    await writeFile(paths.ca, ca.certPem, { mode: 0o644, flag: 'wx' })
  }

  const hosts = certificateHosts(options.hosts)
  let key = await readOptional(paths.serverKey)
  let cert = await readOptional(paths.server)
  const serverReason = serverCertificateProblem(cert, key, ca.cert, hosts, now)
  let unsaved: { key: string; cert: string } | undefined
  if (serverReason !== undefined) {
    ;({ key, cert } = await issueServerCertificate(ca, hosts, now))
    unsaved = { key, cert }
  }
  const saveServerCertificate = async () => {
    if (unsaved === undefined) return
    const issued = unsaved
    unsaved = undefined
    // Written aside and renamed: a reader never sees half a file. A crash between the two
    // renames leaves a key that does not match the certificate, which the next start repairs.
    await replaceFile(paths.serverKey, issued.key, 0o600)
    await replaceFile(paths.server, issued.cert, 0o644)
  }
  if (options.serverWrite !== 'later') await saveServerCertificate()

  return {
    key: key as string,
    cert: cert as string,
    ca: describeCertificate(ca.certPem),
    caPath: paths.ca,
    created: { ca: caCreated, server: serverReason !== undefined },
    ...(serverReason !== undefined ? { serverReason } : {}),
    saveServerCertificate
  }
}

/** The names a server certificate covers: the defaults plus the given hosts, without wildcard addresses. */
export function certificateHosts(hosts: readonly string[]): string[] {
  const names = [...DEFAULT_TLS_HOSTS, ...hosts]
    .map((host) => host.trim().replace(/^\[(.*)\]$/, '$1'))
    .filter((host) => host !== '' && host !== '0.0.0.0' && host !== '::')
  return [...new Set(names)]
}

async function loadCa(certPath: string, keyPath: string, dir: string, now: Date): Promise<LoadedCa | undefined> {
  const certPem = await readOptional(certPath)
  const keyPem = await readOptional(keyPath)
  if (certPem === undefined && keyPem === undefined) return undefined
  const remedy = `restore it, or remove ${dir} to create a new CA (agents configured with the old ca-fingerprint will no longer match)`
  if (certPem === undefined) {
    throw new TlsError('FLEETSIM_TLS_CA_INCOMPLETE', `found the CA key ${keyPath} but not its certificate ${certPath}; ${remedy}`)
  }
  if (keyPem === undefined) {
    throw new TlsError('FLEETSIM_TLS_CA_INCOMPLETE', `found the CA certificate ${certPath} but not its key ${keyPath}; ${remedy}`)
  }

  let cert: NodeX509Certificate
  try {
    cert = new NodeX509Certificate(certPem)
  } catch (error) {
    throw new TlsError('FLEETSIM_TLS_CA_INVALID', `${certPath} is not a PEM certificate; ${remedy}`, { cause: error })
  }
  let matches: boolean
  try {
    matches = cert.checkPrivateKey(createPrivateKey(keyPem))
  } catch (error) {
    throw new TlsError('FLEETSIM_TLS_CA_INVALID', `${keyPath} is not a PEM private key; ${remedy}`, { cause: error })
  }
  if (!matches) {
    throw new TlsError('FLEETSIM_TLS_CA_INVALID', `${keyPath} is not the key of the certificate ${certPath}; ${remedy}`)
  }
  if (!cert.ca) {
    throw new TlsError('FLEETSIM_TLS_CA_INVALID', `${certPath} is not a CA certificate (basicConstraints CA:TRUE); ${remedy}`)
  }
  if (new Date(cert.validTo).getTime() <= now.getTime()) {
    throw new TlsError('FLEETSIM_TLS_CA_EXPIRED', `the CA certificate ${certPath} expired on ${new Date(cert.validTo).toISOString()}; remove ${dir} to create a new CA (agents configured with the old ca-fingerprint will no longer match)`)
  }
  return { certPem, keyPem, cert }
}

async function createCa(now: Date): Promise<LoadedCa> {
  const keys = (await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: CA_NAME,
    notBefore: new Date(now.getTime() - CLOCK_SKEW_MS),
    notAfter: new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS),
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as webcrypto.EcdsaParams,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)
    ]
  })
  const certPem = certificate.toString('pem') + '\n'
  const keyPem = await exportPrivateKey(keys.privateKey)
  return { certPem, keyPem, cert: new NodeX509Certificate(certPem) }
}

/** Why the stored server certificate cannot be used, or undefined when it can. */
function serverCertificateProblem(
  certPem: string | undefined,
  keyPem: string | undefined,
  ca: NodeX509Certificate,
  hosts: readonly string[],
  now: Date
): string | undefined {
  if (certPem === undefined || keyPem === undefined) return 'no server certificate yet'
  let cert: NodeX509Certificate
  try {
    cert = new NodeX509Certificate(certPem)
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return 'the server key does not match the certificate'
  } catch {
    return 'the server certificate or key is unreadable'
  }
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return 'the server certificate was not issued by the current CA'
  for (const host of hosts) {
    const covered = isIP(host) !== 0 ? cert.checkIP(host) !== undefined : cert.checkHost(host, { wildcards: false }) !== undefined
    if (!covered) return `the server certificate does not cover ${host}`
  }
  if (new Date(cert.validFrom).getTime() > now.getTime()) return 'the server certificate is not valid yet'
  if (new Date(cert.validTo).getTime() - now.getTime() < SERVER_RENEW_BEFORE_DAYS * DAY_MS) {
    return 'the server certificate expires soon'
  }
  return undefined
}

async function issueServerCertificate(ca: LoadedCa, hosts: readonly string[], now: Date): Promise<{ key: string; cert: string }> {
  const signer = await importSigningKey(ca.keyPem)
  const caCert = new x509.X509Certificate(ca.certPem)
  const keys = (await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: `CN=${commonName(hosts)}, O=fleetsim`,
    issuer: caCert.subjectName,
    notBefore: new Date(now.getTime() - CLOCK_SKEW_MS),
    notAfter: new Date(now.getTime() + SERVER_VALIDITY_DAYS * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: signer.key,
    signingAlgorithm: signer.algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((host) => ({ type: isIP(host) !== 0 ? 'ip' : 'dns', value: host }))),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey)
    ]
  })
  return { key: await exportPrivateKey(keys.privateKey), cert: certificate.toString('pem') + '\n' }
}

/** The last host name given (the --host value when it is a name), else localhost. */
function commonName(hosts: readonly string[]): string {
  return hosts.filter((host) => isIP(host) === 0).at(-1) ?? 'localhost'
}

/** Imports a CA key of any supported kind (PKCS#8, SEC1 or PKCS#1 PEM) for signing. */
async function importSigningKey(pem: string): Promise<{ key: CryptoKey; algorithm: Algorithm }> {
  const keyObject = createPrivateKey(pem)
  const der = keyObject.export({ type: 'pkcs8', format: 'der' })
  let importAlgorithm: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams
  let algorithm: Algorithm
  if (keyObject.asymmetricKeyType === 'ec') {
    const curves: Record<string, { namedCurve: string; hash: string }> = {
      prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
      secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
      secp521r1: { namedCurve: 'P-521', hash: 'SHA-512' }
    }
    const curve = curves[keyObject.asymmetricKeyDetails?.namedCurve ?? '']
    if (curve === undefined) throw unsupportedKey(keyObject.asymmetricKeyDetails?.namedCurve ?? 'unknown curve')
    importAlgorithm = { name: 'ECDSA', namedCurve: curve.namedCurve }
    algorithm = { name: 'ECDSA', hash: curve.hash } as webcrypto.EcdsaParams
  } else if (keyObject.asymmetricKeyType === 'rsa') {
    importAlgorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
    algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as webcrypto.RsaHashedImportParams
  } else {
    throw unsupportedKey(keyObject.asymmetricKeyType ?? 'unknown')
  }
  const key = await webcrypto.subtle.importKey('pkcs8', der, importAlgorithm, false, ['sign'])
  return { key, algorithm }
}

function unsupportedKey(kind: string): TlsError {
  return new TlsError('FLEETSIM_TLS_CA_INVALID', `the CA key is of an unsupported kind (${kind}); use an EC P-256, P-384, P-521 or an RSA key`)
}

async function exportPrivateKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key))
  const lines = der.toString('base64').match(/.{1,64}/g) ?? []
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`
}

/** 16 random bytes with the top bit clear: a positive serial number, as RFC 5280 asks. */
function randomSerial(): string {
  const bytes = randomBytes(16)
  bytes[0] = bytes[0] & 0x7f
  return bytes.toString('hex')
}

/** A file of the TLS directory, or undefined when it is not there; a path that cannot be read as a file is a TlsError naming it. */
async function readOptional(path: string): Promise<string | undefined> {
  try {
    // Bounded and regular files only: a FIFO in its place hung the start, `/dev/zero` filled the memory.
    return readRegularFileSync(path, PEM_MAX_BYTES)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    // Node's own message names no path for some (`EISDIR: illegal operation on a directory, read`).
    // The CA's files are not to be replaced lightly: agents are configured with its fingerprint.
    const ca = basename(path).startsWith('ca')
    const remedy =
      code === 'EACCES' || code === 'EPERM'
        ? 'no permission to read it; give the user fleetsim runs as read access to it (chmod, chown), or pass another --data-dir'
        : `${(error as Error).message}; ${ca ? 'put the CA file back in its place (a new CA would not match the ca-fingerprint agents are configured with)' : 'remove or rename it (a new one is issued)'}, or pass another --data-dir`
    throw new TlsError('FLEETSIM_TLS_FILE_UNREADABLE', `cannot read ${path}: ${remedy}`, { cause: error })
  }
}

async function replaceFile(path: string, content: string, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, content, { mode })
  await rename(temporary, path)
}
