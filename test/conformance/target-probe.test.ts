/**
 * `fleetsim conformance` and `fleetsim report` check the target before their work and print one
 * line naming the cause, with exit code 1, instead of a table of checks failing for one reason.
 * The targets: a real HTTPS fleetsim, a closed port, and small stand-ins for other servers (one
 * that answers 404 to everything, one that answers every request, one that resets plain HTTP).
 */
import { createServer as createHttpServer, type RequestListener } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run as conformance } from '../../src/commands/conformance.js'
import { run as report } from '../../src/commands/report.js'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'
import { httpTransport, type Transport } from '../../src/conformance/http-client.js'
import { probeOperations } from '../../src/conformance/target-probe.js'
import { loadOrCreateTls } from '../../src/tls/tls-store.js'

function capture() {
  const io = { text: '', errors: '', out: (t: string) => void (io.text += t), err: (t: string) => void (io.errors += t) }
  return io
}

type Command = typeof conformance

/** Runs a command; its exit code, stdout and stderr. */
async function call(command: Command, args: string[]) {
  const io = capture()
  const code = await command(args, io)
  return { code, out: io.text, err: io.errors }
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

const httpServer = (handler: RequestListener) => createHttpServer(handler)

async function close(server: Server): Promise<void> {
  const closing = new Promise((resolve) => server.close(resolve))
  // The client's keep-alive connections would hold an HTTP server open.
  if ('closeAllConnections' in server) (server as ReturnType<typeof createHttpServer>).closeAllConnections()
  await closing
}

describe('fleetsim conformance and fleetsim report check the target first', () => {
  let dir: string
  /** the simulator's data directory: `<dir>/.fleetsim`, so that `dir` as the cwd finds it by default */
  let simDir: string
  /** a data directory without a CA */
  let emptyDir: string
  /** a data directory whose CA did not issue the simulator's certificate */
  let otherDir: string
  let sim: RunningFleetsim
  let port: number
  let login: string[]
  const servers: Server[] = []
  let closedPort: number
  let notFoundPort: number
  let plainPort: number
  let resetPort: number
  let neitherPort: number
  let greeterPort: number

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleetsim-probe-'))
    simDir = join(dir, '.fleetsim')
    emptyDir = join(dir, 'empty')
    otherDir = join(dir, 'other')
    await mkdir(emptyDir)
    const otherTls = await loadOrCreateTls({ dataDir: otherDir, hosts: ['127.0.0.1'] })
    sim = await startFleetsim({ agents: 5, dataDir: simDir })
    port = Number(new URL(sim.origin).port)
    login = ['--user', sim.credentials.user, `--password=${sim.credentials.password}`]

    // A port nothing listens on: taken from the system, then given back.
    const closed = createNetServer()
    closedPort = await listen(closed)
    await close(closed)

    const notFound = httpServer((_request, response) => response.writeHead(404).end('not here'))
    const plain = httpServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
    // What a TLS-only server without fleetsim's answer does with plain HTTP: drops the connection.
    const reset = createHttpsServer({ key: otherTls.key, cert: otherTls.cert }, (_request, response) => response.end('{}'))
    // A server that speaks neither (an SSH or database port): drops any connection that sends something.
    const neither = createNetServer((socket) => socket.once('data', () => socket.resetAndDestroy()))
    // One that greets first in a protocol of its own, as SSH does.
    const greeter = createNetServer((socket) => {
      socket.on('error', () => {})
      // Read too: a socket never read would not see its client go, and would hold close() open.
      socket.resume()
      socket.end('SSH-2.0-OpenSSH_9.2\r\n')
    })
    servers.push(notFound, plain, reset, neither, greeter)
    notFoundPort = await listen(notFound)
    plainPort = await listen(plain)
    resetPort = await listen(reset)
    neitherPort = await listen(neither)
    greeterPort = await listen(greeter)
  })

  afterAll(async () => {
    await Promise.all(servers.map(close))
    await sim.close()
    await rm(dir, { recursive: true, force: true })
  })

  describe('a closed port', () => {
    it('conformance says the connection was refused and asks whether the manager runs there', async () => {
      expect(await call(conformance, ['--target', `https://127.0.0.1:${closedPort}/manager/mvc`])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim conformance: cannot reach https://127.0.0.1:${closedPort}: connection refused — is fleetsim or the manager running, and on this port?\n`
      })
    })

    it('report says the connection was refused and asks whether fleetsim runs there', async () => {
      expect(await call(report, ['--target', `https://127.0.0.1:${closedPort}`])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim report: cannot reach https://127.0.0.1:${closedPort}: connection refused — is fleetsim running, and on this port?\n`
      })
    })
  })

  describe('a certificate not trusted', () => {
    const noCa = () =>
      `the certificate of https://127.0.0.1:${port} is not trusted (unable to verify the first certificate) and there is no fleetsim CA at ${join(emptyDir, 'tls', 'ca.pem')}: ` +
      "pass the simulator's --data-dir, or --ca FILE (its tls/ca.pem), or --insecure to skip the check\n"

    it('conformance suggests --data-dir, --ca or --insecure when the data directory has no CA', async () => {
      expect(await call(conformance, ['--target', sim.baseUrl, ...login, '--data-dir', emptyDir])).toEqual({ code: 1, out: '', err: `fleetsim conformance: ${noCa()}` })
    })

    it('report suggests --data-dir, --ca or --insecure when the data directory has no CA', async () => {
      expect(await call(report, ['--target', sim.origin, ...login, '--data-dir', emptyDir])).toEqual({ code: 1, out: '', err: `fleetsim report: ${noCa()}` })
    })

    it('conformance names the data-dir CA that did not issue the certificate', async () => {
      const result = await call(conformance, ['--target', sim.baseUrl, ...login, '--data-dir', otherDir])
      expect(result).toEqual({
        code: 1,
        out: '',
        err:
          `fleetsim conformance: the certificate of https://127.0.0.1:${port} is not trusted by the CA in ${join(otherDir, 'tls', 'ca.pem')} (unable to verify the first certificate): ` +
          'does the simulator use another --data-dir? pass the same --data-dir, or --ca FILE, or --insecure to skip the check\n'
      })
    })

    it('report names the --ca file that did not issue the certificate', async () => {
      const ca = join(otherDir, 'tls', 'ca.pem')
      expect(await call(report, ['--target', sim.origin, ...login, '--ca', ca])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim report: the certificate of https://127.0.0.1:${port} is not trusted by the CA in ${ca} (unable to verify the first certificate): pass the CA that issued it with --ca FILE, or --insecure to skip the check\n`
      })
    })

    it('a target that is not local (no data-dir CA looked for) gets --ca or --insecure suggested', async () => {
      const options = { target: sim.baseUrl, ...sim.credentials, transport: httpTransport({}), trust: { kind: 'system' } as const }
      expect(await probeOperations(options)).toBe(
        `the certificate of https://127.0.0.1:${port} is not trusted (unable to verify the first certificate): pass the CA that issued it with --ca FILE, or --insecure to skip the check`
      )
    })
  })

  describe('the CA of the local data directory', () => {
    it('is trusted for a local target without --ca or --insecure (conformance and report)', async () => {
      const suite = await call(conformance, ['--target', sim.baseUrl, ...login, '--data-dir', simDir, '--read-only', '--only', 'appinfo-record'])
      expect(suite, suite.out).toMatchObject({ code: 0, err: '' })
      expect(suite.out).toMatch(/^PASS {2}appinfo-record/m)
      const text = await call(report, ['--target', sim.origin, ...login, '--data-dir', simDir])
      expect(text).toMatchObject({ code: 0, err: '' })
      expect(text.out).toContain('fleetsim client report')
    })

    it('is ./.fleetsim when --data-dir is not given, as for fleetsim serve', async () => {
      const cwd = process.cwd()
      process.chdir(dir)
      try {
        const text = await call(report, ['--target', `https://localhost:${port}`, ...login])
        expect(text).toMatchObject({ code: 0, err: '' })
        const suite = await call(conformance, ['--target', sim.baseUrl, ...login, '--read-only', '--only', 'appinfo-record'])
        expect(suite).toMatchObject({ code: 0, err: '' })
      } finally {
        process.chdir(cwd)
      }
    })
  })

  describe('credentials refused', () => {
    it('conformance names the user refused and the flags to fix', async () => {
      expect(await call(conformance, ['--target', sim.baseUrl, '--password', 'nope', '--data-dir', simDir])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim conformance: https://127.0.0.1:${port} refused user "admin" (401): check --user and --password (the manager's REST_USER and REST_PASSWORD; default admin / admin)\n`
      })
    })

    it("report names the user refused and serve's admin credential flags", async () => {
      expect(await call(report, ['--target', sim.origin, '--user', 'someone', '--password', 'nope', '--data-dir', simDir])).toEqual({
        code: 1,
        out: '',
        err:
          `fleetsim report: https://127.0.0.1:${port} refused user "someone" (401): check --user and --password ` +
          "(fleetsim serve's --admin-user and --admin-password, which default to its --user and --password)\n"
      })
    })
  })

  describe('a wrong path', () => {
    it('conformance names the path tried and the usual one, which answers', async () => {
      expect(await call(conformance, ['--target', `${sim.origin}/manager/mcv`, ...login, '--data-dir', simDir])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim conformance: no operations at ${sim.origin}/manager/mcv/restservice/ (404): the application path /manager/mcv is wrong; ${sim.baseUrl} answers: use --target ${sim.baseUrl}\n`
      })
    })

    it('conformance says a target without an application path has none', async () => {
      const result = await call(conformance, ['--target', sim.origin, ...login, '--data-dir', simDir])
      expect(result.err).toBe(`fleetsim conformance: no operations at ${sim.origin}/restservice/ (404): the target has no application path; ${sim.baseUrl} answers: use --target ${sim.baseUrl}\n`)
      expect(result.code).toBe(1)
    })

    it('conformance says the target may be no manager when neither its path nor the usual one answers', async () => {
      const origin = `http://127.0.0.1:${notFoundPort}`
      expect(await call(conformance, ['--target', `${origin}/app/mvc`])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim conformance: no operations at ${origin}/app/mvc/restservice/ (404), nor at the usual ${origin}/manager/mvc/restservice/: is ${origin} an agent manager (or fleetsim)? Check the host and port (fleetsim serve listens on 9443), and the application path of the manager's web application\n`
      })
      expect((await call(conformance, ['--target', `${origin}/manager/mvc`])).err).toBe(
        `fleetsim conformance: no operations at ${origin}/manager/mvc/restservice/ (404): is the application path another one? (fleetsim serve --app-path; on a real manager the path of its web application, ending in /mvc) Or is ${origin} no agent manager at all?\n`
      )
    })

    it('conformance runs nothing against a target whose operations answer a web page', async () => {
      const page = createHttpServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>hello</body></html>'))
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
      try {
        const origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`
        expect(await call(conformance, ['--target', `${origin}/manager/mvc`])).toEqual({
          code: 1,
          out: '',
          err: `fleetsim conformance: ${origin}/manager/mvc/restservice/appinfo.json answered 200 text/html, not JSON: is ${origin} an agent manager (or fleetsim)? The suite is not run against it\n`
        })
      } finally {
        await new Promise((resolve) => page.close(resolve))
      }
    })

    it('report refuses a 200 that is not its report, in each output (a TypeError, or the page printed as the report)', async () => {
      const bodies: Record<string, string> = { json: '{"servicename":"appinfo","values":[{}]}', html: '<html><body>hello</body></html>' }
      const other = createHttpServer((request, response) => {
        const html = request.url?.includes('format=html') === true
        response.writeHead(200, { 'content-type': html ? 'text/html' : 'application/json' }).end(html ? bodies.html : bodies.json)
      })
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
      try {
        const origin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
        for (const [flags, path, body] of [
          [[], '/__admin/report', bodies.json],
          [['--json'], '/__admin/report', bodies.json],
          [['--html'], '/__admin/report?format=html', bodies.html]
        ] as const) {
          expect(await call(report, ['--target', origin, ...flags])).toEqual({
            code: 1,
            out: '',
            err: `fleetsim report: ${origin}${path} answered 200 with something that is not fleetsim's client report: is it fleetsim? (it begins ${JSON.stringify(body)})\n`
          })
        }
      } finally {
        await new Promise((resolve) => other.close(resolve))
      }
    })

    it('report asks whether a target without /__admin/report is fleetsim', async () => {
      const origin = `http://127.0.0.1:${notFoundPort}`
      expect(await call(report, ['--target', origin])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim report: ${origin} has no /__admin/report (404): is it fleetsim? fleetsim report reads a running simulator's request journal, which a real manager does not have\n`
      })
    })
  })

  describe('plain HTTP to an HTTPS port', () => {
    it("conformance reads fleetsim's 400 answer and gives the https:// URL to use", async () => {
      expect(await call(conformance, ['--target', `http://127.0.0.1:${port}/manager/mvc`, ...login])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim conformance: the target speaks HTTPS: use https://127.0.0.1:${port}/manager/mvc\n`
      })
    })

    it("report reads fleetsim's 400 answer and gives the https:// URL to use", async () => {
      expect(await call(report, ['--target', `http://127.0.0.1:${port}`, ...login])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim report: the target speaks HTTPS: use https://127.0.0.1:${port}\n`
      })
    })

    it('conformance and report read a connection reset the same way', async () => {
      expect(await call(conformance, ['--target', `http://127.0.0.1:${resetPort}/manager/mvc`])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim conformance: the target speaks HTTPS: use https://127.0.0.1:${resetPort}/manager/mvc\n`
      })
      expect(await call(report, ['--target', `http://127.0.0.1:${resetPort}`])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim report: the target speaks HTTPS: use https://127.0.0.1:${resetPort}\n`
      })
    })
  })

  describe('a port that speaks neither HTTP nor HTTPS', () => {
    it('conformance and report say so, rather than advise the other scheme each way round', async () => {
      for (const target of [`http://127.0.0.1:${neitherPort}`, `https://127.0.0.1:${neitherPort}`, `http://127.0.0.1:${greeterPort}`, `https://127.0.0.1:${greeterPort}`]) {
        const checked = await call(conformance, ['--target', `${target}/manager/mvc`])
        expect(checked.code, target).toBe(1)
        const hostPort = target.replace(/^https?:\/\//, '')
        expect(checked.err, target).toMatch(new RegExp(`^fleetsim conformance: ${hostPort} answered neither HTTP nor HTTPS \\(.+\\): is fleetsim or the manager listening on this port\\? \\(fleetsim serve listens on 9443\\)\n$`))
        const reported = await call(report, ['--target', target])
        expect(reported.code, target).toBe(1)
        expect(reported.err, target).toMatch(new RegExp(`^fleetsim report: ${hostPort} answered neither HTTP nor HTTPS \\(.+\\): is fleetsim listening on this port\\? \\(fleetsim serve listens on 9443\\)\n$`))
      }
    })
  })

  describe('HTTPS to a plain HTTP port', () => {
    it('conformance and report give the http:// URL to use', async () => {
      expect(await call(conformance, ['--target', `https://127.0.0.1:${plainPort}/manager/mvc`])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim conformance: the target speaks plain HTTP, not HTTPS: use http://127.0.0.1:${plainPort}/manager/mvc\n`
      })
      expect(await call(report, ['--target', `https://127.0.0.1:${plainPort}`])).toEqual({
        code: 1,
        out: '',
        err: `fleetsim report: the target speaks plain HTTP, not HTTPS: use http://127.0.0.1:${plainPort}\n`
      })
    })
  })
})

describe('the probe names the cause of each failure to connect', () => {
  const failWith =
    (error: Error): Transport =>
    async () => {
      throw error
    }
  const coded = (code: string, message: string) => Object.assign(new Error(message), { code })
  const probe = (target: string, error: Error) =>
    probeOperations({ target, user: 'admin', password: 'admin', transport: failWith(error), trust: { kind: 'system' } })

  it('an unknown host', async () => {
    expect(await probe('https://manager.example:9443/manager/mvc', coded('ENOTFOUND', 'getaddrinfo ENOTFOUND manager.example'))).toBe(
      'cannot reach https://manager.example:9443: no such host manager.example — check the host name in --target'
    )
  })

  it('no answer in time from a target that took the connection, as the client reports it (it was told to check the host is up)', async () => {
    // Reads the request (so it sees the client hang up) and never answers.
    const silent = createNetServer((socket) => socket.resume())
    const port = await listen(silent)
    try {
      const options = { target: `http://127.0.0.1:${port}/manager/mvc`, user: 'admin', password: 'admin', transport: httpTransport({ timeoutMs: 50 }), trust: { kind: 'system' } as const }
      expect(await probeOperations(options)).toBe(
        `http://127.0.0.1:${port} took the connection but did not answer: no whole answer from http://127.0.0.1:${port} within 50 ms — is it an agent manager, or is it stuck?`
      )
    } finally {
      await close(silent)
    }
  })

  it('no connection in time', async () => {
    expect(await probe('https://10.255.255.1:9443/manager/mvc', coded('ETIMEDOUT', 'connect ETIMEDOUT 10.255.255.1:9443'))).toBe(
      'cannot reach https://10.255.255.1:9443: no answer in time — is the host up, and does a firewall let the port through?'
    )
  })

  it('no route to the host', async () => {
    expect(await probe('https://10.255.255.1:9443/manager/mvc', coded('EHOSTUNREACH', 'connect EHOSTUNREACH 10.255.255.1:9443'))).toBe(
      'cannot reach https://10.255.255.1:9443: no route to the host — check the address in --target and the network'
    )
  })

  it('a certificate for another host name', async () => {
    const error = coded('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames: Host: m.example. is not in the cert's altnames: DNS:localhost")
    expect(await probe('https://m.example:9443/manager/mvc', error)).toBe(
      `the certificate of https://m.example:9443 is not issued for m.example (${error.message}): use a host name it names in --target, or --insecure to skip the check`
    )
  })

  it('a refused connection to a name with several addresses (an AggregateError)', async () => {
    const error = new AggregateError([coded('ECONNREFUSED', 'connect ECONNREFUSED ::1:9443'), coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9443')])
    expect(await probe('https://localhost:9443/manager/mvc', error)).toBe(
      'cannot reach https://localhost:9443: connection refused — is fleetsim or the manager running, and on this port?'
    )
  })

  it('a dropped connection, retried with the other scheme on the same port, named in the target or not', async () => {
    const asked: string[] = []
    const dropped: Transport = async (request) => {
      asked.push(request.url)
      throw coded('ECONNRESET', 'read ECONNRESET')
    }
    const options = (target: string, transport: Transport) => ({ target, user: 'admin', password: 'admin', transport, trust: { kind: 'system' } as const })
    expect(await probeOperations(options('http://manager.example/manager/mvc', dropped))).toBe(
      'manager.example:80 answered neither HTTP nor HTTPS (over plain HTTP: read ECONNRESET; over HTTPS: read ECONNRESET): is fleetsim or the manager listening on this port? (fleetsim serve listens on 9443)'
    )
    expect(asked).toEqual(['http://manager.example/manager/mvc/restservice/appinfo.json', 'https://manager.example:80/manager/mvc/restservice/appinfo.json'])
    // HTTPS dropped, and plain HTTP refused as such (fleetsim's 400): the port speaks HTTPS, and the drop is told as it is.
    const httpsRequired: Transport = async (request) => {
      if (request.url.startsWith('https:')) throw coded('ECONNRESET', 'read ECONNRESET')
      return { status: 400, headers: {}, body: '{"code":"E_HTTPS_REQUIRED"}' }
    }
    expect(await probeOperations(options('https://manager.example:9443/manager/mvc', httpsRequired))).toBe('cannot reach https://manager.example:9443: read ECONNRESET')
    // Plain HTTP dropped, and HTTPS failing in its handshake with a TLS alert (a client certificate asked for): HTTPS is spoken there.
    const mutualTls: Transport = async (request) => {
      if (request.url.startsWith('http:')) throw coded('ECONNRESET', 'socket hang up')
      throw coded('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'SSL alert number 116')
    }
    expect(await probeOperations(options('http://manager.example:9443/manager/mvc', mutualTls))).toBe('the target speaks HTTPS: use https://manager.example:9443/manager/mvc')
  })

  it('anything else, with the system\'s own words', async () => {
    expect(await probe('https://m.example:9443/manager/mvc', coded('EPIPE', 'write EPIPE'))).toBe('cannot reach https://m.example:9443: write EPIPE')
  })
})
