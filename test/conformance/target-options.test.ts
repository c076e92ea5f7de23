/** Which certificates `fleetsim report` and `fleetsim conformance` trust, from their flags. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SERVE_DEFAULTS } from '../../src/config.js'
import { CA_IN_DATA_DIR, DEFAULT_DATA_DIR, chooseTrust, isLocalTarget, parseTargetArgs } from '../../src/conformance/target-options.js'
import { USUAL_APP_PATH } from '../../src/conformance/target-probe.js'
import { TLS_DIR, TLS_FILES, loadOrCreateTls } from '../../src/tls/tls-store.js'

describe('the trust of the client commands', () => {
  let dataDir: string
  let caPath: string
  let caPem: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-trust-'))
    const tls = await loadOrCreateTls({ dataDir, hosts: ['127.0.0.1'] })
    caPath = tls.caPath
    caPem = tls.ca.pem
  })
  afterAll(() => rm(dataDir, { recursive: true, force: true }))

  it('counts 127.0.0.1, localhost and ::1 as local, and nothing else', () => {
    for (const target of ['https://127.0.0.1:9443', 'https://localhost:9443/manager/mvc', 'https://LOCALHOST', 'https://[::1]:9443']) expect(isLocalTarget(target), target).toBe(true)
    for (const target of ['https://manager.example:9443', 'https://10.0.0.5:9443', 'https://localhost.example.com', 'https://[::2]:9443']) expect(isLocalTarget(target), target).toBe(false)
  })

  it("trusts the data directory's CA for a local HTTPS target without --ca or --insecure", () => {
    expect(chooseTrust('https://localhost:9443', { insecure: false, dataDir })).toEqual({ trust: { kind: 'local-ca', path: caPath }, pem: caPem })
    expect(chooseTrust('https://[::1]:9443', { insecure: false, dataDir }).trust.kind).toBe('local-ca')
  })

  it("never trusts the data directory's CA for a target on another machine", () => {
    expect(chooseTrust('https://manager.example:9443', { insecure: false, dataDir })).toEqual({ trust: { kind: 'system' } })
  })

  it('says where it looked when the data directory has no CA', () => {
    const empty = join(dataDir, 'nothing-here')
    expect(chooseTrust('https://127.0.0.1:9443', { insecure: false, dataDir: empty })).toEqual({ trust: { kind: 'system', lookedFor: join(empty, 'tls', 'ca.pem') } })
  })

  it('lets --ca and --insecure win over the data directory', () => {
    const ca = { path: '/elsewhere/ca.pem', pem: 'PEM' }
    expect(chooseTrust('https://127.0.0.1:9443', { insecure: false, ca, dataDir })).toEqual({ trust: { kind: 'ca-file', path: ca.path }, pem: 'PEM' })
    expect(chooseTrust('https://127.0.0.1:9443', { insecure: true, ca, dataDir })).toEqual({ trust: { kind: 'insecure' } })
  })

  it('refuses a --ca file that holds no PEM certificate, where every request failed as not trusted by it', async () => {
    const binary = join(dataDir, 'state.bin')
    await writeFile(binary, Buffer.from([0x46, 0x4c, 0x45, 0xff, 0x00]))
    expect(() => parseTargetArgs(['--target', 'https://127.0.0.1:9443', '--ca', binary], 'fleetsim report', [], {})).toThrow(
      `--ca must name a PEM file holding a CA certificate (-----BEGIN CERTIFICATE-----), such as the tls/ca.pem of fleetsim's --data-dir, got "${binary}"`
    )
    expect(parseTargetArgs(['--target', 'https://127.0.0.1:9443', '--ca', caPath], 'fleetsim report', [], {}).options.trust).toEqual({ kind: 'ca-file', path: caPath })
  })

  it('refuses a --ca that is a device or a named pipe at once (/dev/zero filled the memory)', () => {
    expect(() => parseTargetArgs(['--target', 'https://127.0.0.1:9443', '--ca', '/dev/zero'], 'fleetsim report', [], {})).toThrow(
      '--ca must name a readable PEM file (it is a device, not a regular file), got "/dev/zero"'
    )
  })

  it('refuses a --user or --password no header can carry, where it failed as "cannot reach" the target', () => {
    expect(() => parseTargetArgs(['--target', 'http://127.0.0.1:9443', '--password', 'a\nb'], 'fleetsim report', [], {})).toThrow(
      '--password must not hold a control character (a header value cannot)'
    )
    expect(() => parseTargetArgs(['--target', 'http://127.0.0.1:9443', '--user', ' admin'], 'fleetsim report', [], {})).toThrow('--user must not start or end with a space or tab')
  })

  it('refuses --insecure with --ca, under which the CA checked nothing', () => {
    for (const argv of [['--insecure', '--ca', caPath], ['--ca', caPath, '--insecure']]) {
      expect(() => parseTargetArgs(['--target', 'https://127.0.0.1:9443', ...argv], 'fleetsim conformance', [], {}), argv.join(' ')).toThrow(
        `--insecure and --ca cannot be used together: --insecure accepts any certificate, so the CA in ${caPath} would check nothing; give --ca to check the server's certificate, or --insecure to skip the check`
      )
    }
    expect(parseTargetArgs(['--target', 'https://127.0.0.1:9443', '--insecure'], 'fleetsim conformance', [], {}).options.trust).toEqual({ kind: 'insecure' })
  })

  it('refuses a --target holding a user or password, which the manager never reads from a URL', () => {
    for (const target of ['http://admin:s3cret@127.0.0.1:9443/manager/mvc', 'https://admin@manager.example:9443']) {
      expect(() => parseTargetArgs(['--target', target], 'fleetsim report', [], {}), target).toThrow(
        'the manager reads REST_USER and REST_PASSWORD headers, not a URL\'s user and password: give them with --user and --password'
      )
    }
    // The message does not repeat the password.
    expect(() => parseTargetArgs(['--target', 'http://admin:s3cret@127.0.0.1:9443'], 'fleetsim report', [], {})).not.toThrow(/s3cret/)
  })

  it('reads --data-dir, defaulting to the directory fleetsim serve uses', () => {
    expect(parseTargetArgs(['--target', 'https://127.0.0.1:9443', '--data-dir', dataDir], 'fleetsim report', [], {}).options.trust).toEqual({ kind: 'local-ca', path: caPath })
    expect(DEFAULT_DATA_DIR).toBe(SERVE_DEFAULTS.dataDir)
    expect(() => parseTargetArgs(['--data-dir', ' '], 'fleetsim report', [], {})).toThrow('--data-dir must not be empty, got " "')
  })

  it('looks for the CA where the TLS store keeps it, and for the operations under fleetsim\'s default app path', () => {
    expect(CA_IN_DATA_DIR).toBe(join(TLS_DIR, TLS_FILES.ca))
    expect(USUAL_APP_PATH).toBe(SERVE_DEFAULTS.appPath)
  })
})
