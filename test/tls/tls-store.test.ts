import { execFileSync } from 'node:child_process'
import { X509Certificate, webcrypto } from 'node:crypto'
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises'
import { createServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from 'node:tls'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TLS_MIN_VERSION, TlsError, loadOrCreateTls } from '../../src/tls/tls-store.js'
import { x509 } from '../../src/tls/x509.js'

const DAY_MS = 24 * 60 * 60 * 1000
let dataDir: string
const tlsFile = (name: string) => join(dataDir, 'tls', name)

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-tls-'))
})
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

async function expectTlsError(promise: Promise<unknown>, code: string, text: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason
  )
  expect(error).toBeInstanceOf(TlsError)
  expect((error as TlsError).code).toBe(code)
  expect((error as TlsError).message).toMatch(text)
}

describe('loadOrCreateTls', () => {
  it('creates a CA and a server certificate on first start', async () => {
    const tls = await loadOrCreateTls({ dataDir, hosts: ['127.0.0.1'] })
    expect(tls.created).toEqual({ ca: true, server: true })
    expect(tls.caPath).toBe(tlsFile('ca.pem'))
    expect(await readFile(tlsFile('ca.pem'), 'utf8')).toBe(tls.ca.pem)
    expect(await readFile(tlsFile('server.pem'), 'utf8')).toBe(tls.cert)
    expect(await readFile(tlsFile('server-key.pem'), 'utf8')).toBe(tls.key)
    expect(tls.ca.subject).toBe('CN=fleetsim CA,O=fleetsim')
  })

  it('writes the key files readable by their owner only', async () => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    expect((await stat(tlsFile('ca-key.pem'))).mode & 0o777).toBe(0o600)
    expect((await stat(tlsFile('server-key.pem'))).mode & 0o777).toBe(0o600)
  })

  it('creates the data directory and tls/ readable by their owner only, even under umask 000', async () => {
    const fresh = join(dataDir, 'nested', 'data')
    const umask = process.umask(0)
    try {
      await loadOrCreateTls({ dataDir: fresh, hosts: ['127.0.0.1'] })
    } finally {
      process.umask(umask)
    }
    expect((await stat(fresh)).mode & 0o777).toBe(0o700)
    expect((await stat(join(fresh, 'tls'))).mode & 0o777).toBe(0o700)
  })

  it('reuses the CA and the server certificate on a later start', async () => {
    const first = await loadOrCreateTls({ dataDir, hosts: ['127.0.0.1'] })
    const second = await loadOrCreateTls({ dataDir, hosts: ['127.0.0.1'] })
    expect(second.created).toEqual({ ca: false, server: false })
    expect(second.ca.fingerprint).toBe(first.ca.fingerprint)
    expect(second.cert).toBe(first.cert)
    expect(second.key).toBe(first.key)
  })

  it('issues a server certificate for localhost, 127.0.0.1, ::1 and the given host, signed by the CA', async () => {
    const tls = await loadOrCreateTls({ dataDir, hosts: ['sim.example.test'] })
    const cert = new X509Certificate(tls.cert)
    expect(cert.checkHost('localhost')).toBe('localhost')
    expect(cert.checkHost('sim.example.test')).toBe('sim.example.test')
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1')
    expect(cert.checkIP('::1')).toBeDefined()
    expect(cert.checkIssued(new X509Certificate(tls.ca.pem))).toBe(true)
    expect(cert.verify(new X509Certificate(tls.ca.pem).publicKey)).toBe(true)
  })

  it('issues a new server certificate when the host changes, keeping the CA', async () => {
    const first = await loadOrCreateTls({ dataDir, hosts: ['one.example.test'] })
    const second = await loadOrCreateTls({ dataDir, hosts: ['two.example.test'] })
    expect(second.created).toEqual({ ca: false, server: true })
    expect(second.serverReason).toBe('the server certificate does not cover two.example.test')
    expect(second.ca.fingerprint).toBe(first.ca.fingerprint)
    expect(new X509Certificate(second.cert).checkHost('two.example.test')).toBe('two.example.test')
  })

  it('issues a new server certificate when it expires within 30 days', async () => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    const later = await loadOrCreateTls({ dataDir, hosts: [], now: new Date(Date.now() + 340 * DAY_MS) })
    expect(later.created.server).toBe(true)
    expect(later.serverReason).toBe('the server certificate expires soon')
  })

  it('issues a new server certificate when the stored one comes from another CA', async () => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    const otherDir = await mkdtemp(join(tmpdir(), 'fleetsim-tls-other-'))
    try {
      await loadOrCreateTls({ dataDir: otherDir, hosts: [] })
      await copyFile(join(otherDir, 'tls', 'server.pem'), tlsFile('server.pem'))
      await copyFile(join(otherDir, 'tls', 'server-key.pem'), tlsFile('server-key.pem'))
    } finally {
      await rm(otherDir, { recursive: true, force: true })
    }
    const tls = await loadOrCreateTls({ dataDir, hosts: [] })
    expect(tls.serverReason).toBe('the server certificate was not issued by the current CA')
  })

  it('issues a new server certificate when its key does not match', async () => {
    const first = await loadOrCreateTls({ dataDir, hosts: [] })
    await writeFile(tlsFile('server-key.pem'), await readFile(tlsFile('ca-key.pem')))
    const tls = await loadOrCreateTls({ dataDir, hosts: [] })
    expect(tls.serverReason).toBe('the server key does not match the certificate')
    expect(tls.ca.fingerprint).toBe(first.ca.fingerprint)
  })

  it('refuses to start when the CA key is missing, naming the file', async () => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    await unlink(tlsFile('ca-key.pem'))
    await expectTlsError(loadOrCreateTls({ dataDir, hosts: [] }), 'FLEETSIM_TLS_CA_INCOMPLETE', /not its key .*ca-key\.pem/)
  })

  it('refuses to start when the CA certificate is missing, naming the file', async () => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    await unlink(tlsFile('ca.pem'))
    await expectTlsError(loadOrCreateTls({ dataDir, hosts: [] }), 'FLEETSIM_TLS_CA_INCOMPLETE', /not its certificate .*ca\.pem/)
  })

  it.each(['ca.pem', 'ca-key.pem', 'server.pem', 'server-key.pem'])('refuses to start when %s is a directory, naming it', async (name) => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    await unlink(tlsFile(name))
    await mkdir(tlsFile(name))
    const remedy = name.startsWith('ca') ? 'put the CA file back in its place \\(a new CA would not match the ca-fingerprint agents are configured with\\)' : 'remove or rename it \\(a new one is issued\\)'
    await expectTlsError(loadOrCreateTls({ dataDir, hosts: [] }), 'FLEETSIM_TLS_FILE_UNREADABLE', new RegExp(`^cannot read .*tls/${name.replace('.', '\\.')}: it is a directory, not a regular file; ${remedy}, or pass another --data-dir$`))
  })

  it('refuses a named pipe nobody writes as ca.pem at once (reading it waited for a writer for ever, and serve could not be stopped)', async () => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    await unlink(tlsFile('ca.pem'))
    execFileSync('mkfifo', [tlsFile('ca.pem')])
    await expectTlsError(loadOrCreateTls({ dataDir, hosts: [] }), 'FLEETSIM_TLS_CA_INVALID', /ca\.pem is not a PEM certificate/)
  })

  it('refuses to start when the CA key does not belong to the CA certificate', async () => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    await copyFile(tlsFile('server-key.pem'), tlsFile('ca-key.pem'))
    await expectTlsError(loadOrCreateTls({ dataDir, hosts: [] }), 'FLEETSIM_TLS_CA_INVALID', /is not the key of the certificate/)
  })

  it('refuses to use a certificate without CA:TRUE as the CA', async () => {
    await loadOrCreateTls({ dataDir, hosts: [] })
    await copyFile(tlsFile('server.pem'), tlsFile('ca.pem'))
    await copyFile(tlsFile('server-key.pem'), tlsFile('ca-key.pem'))
    await expectTlsError(loadOrCreateTls({ dataDir, hosts: [] }), 'FLEETSIM_TLS_CA_INVALID', /is not a CA certificate/)
  })

  it('refuses an expired CA instead of replacing it', async () => {
    const first = await loadOrCreateTls({ dataDir, hosts: [] })
    await expectTlsError(
      loadOrCreateTls({ dataDir, hosts: [], now: new Date(Date.now() + 3700 * DAY_MS) }),
      'FLEETSIM_TLS_CA_EXPIRED',
      /expired on/
    )
    expect(await readFile(tlsFile('ca.pem'), 'utf8')).toBe(first.ca.pem)
  })

  it('issues the server certificate from a CA the user brought, with an RSA key', async () => {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 }
    const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
    const ca = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=My Lab CA',
      keys,
      signingAlgorithm: algorithm,
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true)]
    })
    const keyDer = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey))
    const keyPem = `-----BEGIN PRIVATE KEY-----\n${keyDer.toString('base64')}\n-----END PRIVATE KEY-----\n`
    await loadOrCreateTls({ dataDir, hosts: [] })
    await writeFile(tlsFile('ca.pem'), ca.toString('pem'))
    await writeFile(tlsFile('ca-key.pem'), keyPem)

    const tls = await loadOrCreateTls({ dataDir, hosts: [] })
    expect(tls.created).toEqual({ ca: false, server: true })
    expect(tls.ca.subject).toBe('CN=My Lab CA')
    expect(tls.ca.sigAlgName).toBe('SHA256withRSA')
    expect(new X509Certificate(tls.cert).verify(new X509Certificate(tls.ca.pem).publicKey)).toBe(true)
  })

  it('gives a certificate that a client trusting only ca.pem accepts over TLS 1.2 or later', async () => {
    const tls = await loadOrCreateTls({ dataDir, hosts: [] })
    const server = createServer({ key: tls.key, cert: tls.cert, minVersion: TLS_MIN_VERSION }, (_req, res) => res.end())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    try {
      const outcome = await new Promise<{ authorized: boolean; protocol: string | null }>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca: tls.ca.pem, servername: 'localhost' }, () => {
          resolve({ authorized: socket.authorized, protocol: socket.getProtocol() })
          socket.end()
        })
        socket.on('error', reject)
      })
      expect(outcome.authorized).toBe(true)
      expect(['TLSv1.2', 'TLSv1.3']).toContain(outcome.protocol)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('refuses a client that offers only TLS 1.1', async () => {
    const tls = await loadOrCreateTls({ dataDir, hosts: [] })
    const server = createServer({ key: tls.key, cert: tls.cert, minVersion: TLS_MIN_VERSION }, (_req, res) => res.end())
    server.on('tlsClientError', () => undefined)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    try {
      const failure = await new Promise<unknown>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port, ca: tls.ca.pem, servername: 'localhost', maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => {
          socket.end()
          resolve(undefined)
        })
        socket.on('error', resolve)
      })
      expect(failure).toBeInstanceOf(Error)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
