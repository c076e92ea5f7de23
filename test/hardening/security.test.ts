import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { connect, type SecureVersion } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'

const PASSWORD = 'Sup3r-s3cret-from-a-file'
const ADMIN_PASSWORD = 'Adm1n-s3cret-from-env'

let dataDir: string
let server: RunningServer
const logLines: string[] = []

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-security-'))
  const passwordFile = join(dataDir, 'password.txt')
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 })
  // Credentials from a file and from the environment, none on the command line.
  const config = parseServeConfig(['--port', '0', '--agents', '10', '--workers', '1', '--data-dir', dataDir], {
    FLEETSIM_PASSWORD_FILE: passwordFile,
    FLEETSIM_ADMIN_PASSWORD: ADMIN_PASSWORD
  })
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''))
      done()
    }
  })
  server = await startServer(config, { announce: () => undefined, logger: createLogger('trace', { destination }) })
})

afterAll(async () => {
  await server.close()
  await rm(dataDir, { recursive: true, force: true })
})

function get(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.baseUrl), { ca: server.ca.pem, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

/** The protocol a TLS handshake agreed on, or the error that ended it. */
function handshake(minVersion: SecureVersion, maxVersion: SecureVersion, ciphers = 'DEFAULT@SECLEVEL=0'): Promise<{ protocol: string | null; cipher?: string } | { error: string }> {
  return new Promise((resolve) => {
    // SECLEVEL=0 lets this client offer TLS 1.0/1.1 at all, so the refusal is the server's.
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: server.ca.pem, servername: 'localhost', minVersion, maxVersion, ciphers })
    socket.once('secureConnect', () => {
      resolve({ protocol: socket.getProtocol(), cipher: socket.getCipher().standardName })
      socket.destroy()
    })
    socket.once('error', (error: Error & { code?: string }) => resolve({ error: error.code ?? error.message }))
  })
}

describe('TLS', () => {
  it('refuses a client that offers at most TLS 1.1', async () => {
    const result = await handshake('TLSv1', 'TLSv1.1')
    // The server answers the ClientHello with a protocol_version alert.
    expect(result).toEqual({ error: expect.stringMatching(/SSL|TLS/) })
  })

  it('speaks TLS 1.2 with a client that offers at most TLS 1.2, and TLS 1.3 otherwise', async () => {
    expect(await handshake('TLSv1.2', 'TLSv1.2')).toMatchObject({ protocol: 'TLSv1.2' })
    expect(await handshake('TLSv1.2', 'TLSv1.3')).toMatchObject({ protocol: 'TLSv1.3' })
  })

  // The server key is EC (P-256), so its TLS 1.2 suites are the ECDHE-ECDSA ones.
  it.each(['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384', 'ECDHE-ECDSA-AES128-CCM8', 'ECDHE-ECDSA-ARIA128-GCM-SHA256'])(
    'refuses a TLS 1.2 client that offers only %s (CBC, SHA-1, CCM8, ARIA)',
    async (cipher) => {
      expect(await handshake('TLSv1.2', 'TLSv1.2', `${cipher}@SECLEVEL=0`)).toEqual({ error: expect.stringMatching(/SSL|TLS/) })
    }
  )

  it.each([
    ['ECDHE-ECDSA-AES128-GCM-SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
    ['ECDHE-ECDSA-AES256-GCM-SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
    ['ECDHE-ECDSA-CHACHA20-POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256']
  ])('accepts a TLS 1.2 client that offers only %s (ECDHE with an AEAD cipher)', async (cipher, standardName) => {
    expect(await handshake('TLSv1.2', 'TLSv1.2', cipher)).toEqual({ protocol: 'TLSv1.2', cipher: standardName })
  })
})

describe('credentials', () => {
  it('come from --password-file (via its env twin): the file password is the one that works', async () => {
    expect(await get('/manager/mvc/restservice/appinfo.json', { REST_USER: 'admin', REST_PASSWORD: PASSWORD })).toBe(200)
    expect(await get('/manager/mvc/restservice/appinfo.json', { REST_USER: 'admin', REST_PASSWORD: 'admin' })).toBe(401)
  })

  it('of the admin endpoints are their own: --admin-password, not the REST password, opens /__admin', async () => {
    expect(await get('/__admin/requests', { REST_USER: 'admin', REST_PASSWORD: ADMIN_PASSWORD })).toBe(200)
    expect(await get('/__admin/requests', { REST_USER: 'admin', REST_PASSWORD: PASSWORD })).toBe(401)
    expect(await get('/__admin/requests', {})).toBe(401)
  })

  it('never appear in the log, whether right or wrong, at level trace', async () => {
    const before = logLines.length
    await get('/manager/mvc/restservice/appinfo.json', { REST_USER: 'admin', REST_PASSWORD: PASSWORD })
    await get('/manager/mvc/restservice/appinfo.json', { REST_USER: 'admin', REST_PASSWORD: `${PASSWORD}-wrong` })
    await get('/manager/mvc/restservice/agentinfo.json?agentwithmodules=true', { REST_USER: 'admin', REST_PASSWORD: ADMIN_PASSWORD })
    await get('/manager/mvc/restservice/nothing-here', { REST_USER: 'admin', REST_PASSWORD: PASSWORD, authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` })
    await get(`/manager/mvc/restservice/appinfo.json?password=${encodeURIComponent(PASSWORD)}`, { REST_USER: 'admin', REST_PASSWORD: PASSWORD })
    expect(logLines.length).toBeGreaterThan(before)
    const log = logLines.join('\n')
    expect(log).not.toContain(PASSWORD)
    expect(log).not.toContain(ADMIN_PASSWORD)
    expect(log).not.toContain(Buffer.from(`admin:${PASSWORD}`).toString('base64'))
  })

  it('are redacted when a request with its headers is logged', () => {
    server.logger.info({ req: { headers: { rest_user: 'admin', rest_password: PASSWORD, authorization: 'Basic eA==' } } }, 'request with headers')
    const line = logLines.find((entry) => entry.includes('request with headers'))
    expect(line).toBeDefined()
    expect(JSON.parse(line ?? '{}')).toMatchObject({ req: { headers: { rest_user: 'admin', rest_password: '[Redacted]', authorization: '[Redacted]' } } })
  })
})
