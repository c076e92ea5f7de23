import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { bodyOf, collect, exchange, open, rawRequest } from './socket.js'

const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'admin' }
const REST = '/manager/mvc/restservice'

let dataDir: string
let server: RunningServer

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-limits-'))
  const config = parseServeConfig(
    [
      '--http', '--port', '0', '--agents', '20', '--workers', '1', '--data-dir', dataDir,
      '--headers-timeout', '400', '--request-timeout', '800', '--keep-alive-timeout', '300',
      '--max-connections', '3', '--max-query-length', '2048', '--body-limit', '1024', '--max-list-items', '5'
    ],
    {}
  )
  server = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
})

afterAll(async () => {
  await server.close()
  await rm(dataDir, { recursive: true, force: true })
})

/** Sends `pieces` one by one, `gapMs` apart, for as long as the connection is open (bounded by the count). */
async function trickle(socket: import('node:net').Socket, pieces: string[], gapMs: number): Promise<void> {
  for (const piece of pieces) {
    if (socket.destroyed || !socket.writable) return
    socket.write(piece)
    await new Promise((resolve) => setTimeout(resolve, gapMs))
  }
}

describe('slow clients', () => {
  it('are closed with 408 when their headers take longer than --headers-timeout (slowloris)', async () => {
    const socket = await open(server.port)
    const answer = collect(socket, 5000)
    socket.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\n`)
    // One header line every 100 ms, up to 4 s: never finishing the head.
    await trickle(socket, Array.from({ length: 40 }, (_, k) => `X-Slow-${k}: y\r\n`), 100)
    const { status, text, closedAfterMs } = await answer
    expect(status).toBe(408)
    expect(text).toContain('<code>E_REQUEST_TIMEOUT</code>')
    expect(closedAfterMs).toBeLessThan(2500)
  })

  it('are closed when they connect and send nothing', async () => {
    const socket = await open(server.port)
    const { closedAfterMs } = await collect(socket, 5000)
    expect(closedAfterMs).toBeLessThan(2500)
  })

  it('are closed with 408 when the body takes longer than --request-timeout', async () => {
    const socket = await open(server.port)
    const answer = collect(socket, 5000)
    socket.write(`POST ${REST}/createfield HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{`)
    await trickle(socket, Array.from({ length: 40 }, () => ' '), 100)
    const { status, closedAfterMs } = await answer
    expect(status).toBe(408)
    expect(closedAfterMs).toBeLessThan(3000)
  })

  it('lose an idle keep-alive connection after --keep-alive-timeout', async () => {
    const socket = await open(server.port)
    const answer = collect(socket, 5000)
    socket.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`)
    const { status, closedAfterMs } = await answer
    expect(status).toBe(200)
    expect(closedAfterMs).toBeGreaterThanOrEqual(250)
    expect(closedAfterMs).toBeLessThan(2000)
  })
})

describe('size limits over a real socket', () => {
  it('answer a query longer than --max-query-length with 414 in the envelope', async () => {
    const answer = await exchange(server.port, rawRequest('GET', `${REST}/agentinfo.json?agentname=${'a'.repeat(3000)}`, AUTH))
    expect(answer.status).toBe(414)
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ servicename: 'agentinfo', errors: [{ status: 414, code: 'E_QUERY_TOO_LONG' }] })
  })

  it('answer a request head beyond --max-query-length plus 16 KiB with 431 in the envelope', async () => {
    const answer = await exchange(server.port, rawRequest('GET', `${REST}/agentinfo.json?agentname=${'a'.repeat(40_000)}`, AUTH))
    expect(answer.status).toBe(431)
    expect(bodyOf(answer)).toContain('<code>E_HEADERS_TOO_LARGE</code>')
  })

  it('answer more than 1000 header fields with 431 naming the limit, where Node dropped the fields past the 1000th (the credentials, so 401)', async () => {
    // rawRequest adds Host and Connection: 998 more fields make 1000, 999 make 1001.
    const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, k) => [`X${k}`, 'v']))
    const over = await exchange(server.port, rawRequest('GET', `${REST}/appinfo.json`, { ...fields(997), ...AUTH }))
    expect(over.status).toBe(431)
    expect(JSON.parse(bodyOf(over))).toMatchObject({
      servicename: 'appinfo',
      errors: [{ status: 431, code: 'E_HEADERS_TOO_LARGE', message: expect.stringContaining('The request has more than 1000 header fields, the most this server reads') }]
    })
    const at = await exchange(server.port, rawRequest('GET', `${REST}/appinfo.json`, { ...fields(996), ...AUTH }))
    expect(at.status).toBe(200)
  })

  it('answer a body over --body-limit with 413 and a list over --max-list-items with 400', async () => {
    const big = await exchange(server.port, rawRequest('POST', `${REST}/createfield`, { ...AUTH, 'Content-Type': 'application/json', accept: 'application/json' }, JSON.stringify({ name: 'x'.repeat(2000), type: 'STRING' })))
    expect(big.status).toBe(413)
    expect(JSON.parse(bodyOf(big))).toMatchObject({ errors: [{ code: 'E_BODY_TOO_LARGE' }] })
    const many = await exchange(server.port, rawRequest('GET', `${REST}/agentinfo.json?agentname=a,b,c,d,e,f`, AUTH))
    expect(many.status).toBe(400)
    expect(JSON.parse(bodyOf(many))).toMatchObject({ errors: [{ code: 'E_TOO_MANY_ITEMS' }] })
  })

  it('answer unreadable HTTP with 400 in the envelope and keep serving', async () => {
    for (const garbage of ['GARBAGE\r\n\r\n', `GET ${REST}/appinfo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`, 'GET /\x00 HTTP/1.1\r\n\r\n']) {
      const answer = await exchange(server.port, garbage)
      expect(answer.status, JSON.stringify(garbage)).toBe(400)
      expect(bodyOf(answer)).toContain('<code>E_BAD_REQUEST</code>')
    }
    const after = await exchange(server.port, rawRequest('GET', `${REST}/appinfo.json`, AUTH))
    expect(after.status).toBe(200)
  })
})

describe('clients that half-close', () => {
  // As `printf 'GET …' | nc -N` does: the request, then the client's end of the connection shut
  // for writing while it reads on. Node's default aborted any answer not sent in the turn that
  // read the request: a list of a few thousand agents, made as it streams, was lost.
  let fleetServer: RunningServer
  let fleetDir: string
  beforeAll(async () => {
    fleetDir = await mkdtemp(join(tmpdir(), 'fleetsim-half-close-'))
    // Paused, so an update waits for a clock no one advances; a client's side that ended waits --headers-timeout for its answers.
    const config = parseServeConfig(['--http', '--port', '0', '--agents', '3000', '--workers', '1', '--paused', '--headers-timeout', '1000', '--data-dir', fleetDir], {})
    fleetServer = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
  })
  afterAll(async () => {
    await fleetServer.close()
    await rm(fleetDir, { recursive: true, force: true })
  })
  const head = (target: string) => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nAccept: application/json\r\n\r\n`

  it('get every answer they asked for before shutting their side, then the connection closes', async () => {
    for (const target of [`${REST}/agentinfo?agentstate=ONLINE`, `${REST}/agentinfo?agentstate=ONLINE&agentwithmodules=true`, `${REST}/appinfo.json`, `${REST}/agentinfo?agentname=nobody`]) {
      const answer = await exchange(fleetServer.port, head(target), { end: true, boundMs: 5000 })
      expect(answer.status, target).toBe(target.includes('nobody') ? 404 : 200)
      expect(answer.closedAfterMs, target).toBeLessThan(4000)
      // Whole: a list streams in chunks, the last one empty; any other answer ends its JSON.
      const chunked = /^transfer-encoding: chunked\r$/im.test(answer.text)
      expect(bodyOf(answer).endsWith(chunked ? '}\r\n0\r\n\r\n' : '}'), target).toBe(true)
    }
  })

  it('that gave up do not keep their connection for an answer that is long in coming: it closes --headers-timeout after', async () => {
    const update = `POST ${REST}/updateandreloadagent?forceOverrideLocalChanges=true HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nAccept: application/json\r\nContent-Length: 0\r\n\r\n`
    const answer = await exchange(fleetServer.port, update, { end: true, boundMs: 5000 })
    expect(answer.status).toBeUndefined()
    expect(answer.closedAfterMs).toBeGreaterThan(800)
    expect(answer.closedAfterMs).toBeLessThan(3000)
  })

  it('get pipelined answers in order, then the connection closes', async () => {
    const both = await exchange(fleetServer.port, head(`${REST}/appinfo.json`) + head(`${REST}/agentinfo?agentstate=OFFLINE`) + head(`${REST}/agentinfo?agentstate=ONLINE`), { end: true, boundMs: 5000 })
    expect(both.text.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(3)
    expect(both.closedAfterMs).toBeLessThan(4000)
  })
})

describe('pipelined requests', () => {
  // A paused clock: only the requests change the fleet.
  let pipeServer: RunningServer
  let pipeDir: string
  beforeAll(async () => {
    pipeDir = await mkdtemp(join(tmpdir(), 'fleetsim-pipelined-'))
    const config = parseServeConfig(['--http', '--port', '0', '--agents', '200', '--workers', '1', '--paused', '--data-dir', pipeDir], {})
    pipeServer = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
  })
  afterAll(async () => {
    await pipeServer.close()
    await rm(pipeDir, { recursive: true, force: true })
  })
  const request = (method: string, target: string, last = false) =>
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nAccept: application/json\r\nContent-Length: 0\r\n${last ? 'Connection: close\r\n' : ''}\r\n`
  const statusOf = async (name: string) => {
    const answer = await fetch(`${pipeServer.serviceUrl}/agentinfo.json?agentname=${name}`, { headers: AUTH })
    return ((await answer.json()) as { values: Array<{ content: { status: string } }> }).values[0].content.status
  }

  it('answer a read pipelined after a write with what the write did (RFC 9112 9.3.2), on the fast path and through fastify', async () => {
    let index = 0
    while ((await statusOf(pipeServer.fleet.name(index))) !== 'ONLINE') index++
    const name = pipeServer.fleet.name(index)
    const answer = await exchange(
      pipeServer.port,
      request('POST', `${REST}/stopagent?agentUuids=${pipeServer.fleet.uuid(index)}`) +
        // agentinfo by name is answered by the fast path; with modules, by fastify's route.
        request('GET', `${REST}/agentinfo.json?agentname=${name}`) +
        request('GET', `${REST}/agentinfo.json?agentname=${name}&agentwithmodules=true`, true),
      { boundMs: 5000 }
    )
    expect(answer.text.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(3)
    const after = await statusOf(name)
    expect(after).not.toBe('ONLINE')
    const shown = [...answer.text.matchAll(/"status":"([A-Z_]+)"/g)].map((m) => m[1])
    expect(shown.slice(0, 2)).toEqual([after, after])
  })

  it('answer a request asking to switch protocols as any other, and close the connection at once rather than leave the next ones unanswered', async () => {
    // Node reads nothing more of a connection after an Upgrade request: the GET behind it was
    // never answered, and the connection closed only when it timed out.
    for (const upgrade of ['websocket', 'h2c']) {
      const asking = `GET ${REST}/appinfo.json HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: Upgrade\r\nUpgrade: ${upgrade}\r\n\r\n`
      const answer = await exchange(pipeServer.port, asking + request('GET', `${REST}/appinfo.json`, true), { boundMs: 5000 })
      expect(answer.status, upgrade).toBe(200)
      expect(answer.text, upgrade).toMatch(/connection: close/i)
      expect(answer.closedAfterMs, upgrade).toBeLessThan(2000)
    }
  })

  it('answer the requests pipelined behind a body that does not parse, which was read whole, and keep the connection', async () => {
    const post = (body: string, type: string) =>
      `POST ${REST}/setcustomlabel HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nAccept: application/json\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    for (const [bad, type, code] of [
      ['{bad', 'application/json', 'E_MALFORMED_JSON'],
      ['['.repeat(70), 'application/json', 'E_BODY_TOO_DEEP'],
      ['<label><name>x</label>', 'application/xml', 'E_MALFORMED_XML']
    ]) {
      const answer = await exchange(
        pipeServer.port,
        post('{"name":"pipelined","value":"v"}', 'application/json') + post(bad, type) + request('GET', `${REST}/appinfo.json`, true),
        { boundMs: 5000 }
      )
      const heads = [...answer.text.matchAll(/HTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n/g)]
      expect(heads.map((head) => head[1]), code).toEqual(['200', '400', '200'])
      expect(heads[1][2], code).not.toMatch(/connection: close/i)
      expect(answer.text, code).toContain(code)
    }
    // The admin API's error handler keeps it too.
    const admin = `POST /__admin/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n{bad`
    const answer = await exchange(pipeServer.port, admin + request('GET', `${REST}/appinfo.json`, true), { boundMs: 5000 })
    const heads = [...answer.text.matchAll(/HTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n/g)]
    expect(heads.map((head) => head[1])).toEqual(['400', '200'])
    expect(heads[0][2]).not.toMatch(/connection: close/i)
  })
})

describe('the request head', () => {
  it('answers a malformed request pipelined after good ones with 400, after their answers, on the fast path and through fastify', async () => {
    const good = (target: string) => `GET ${target} HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nAccept: application/json\r\n\r\n`
    const byName = `${REST}/agentinfo.json?agentname=${encodeURIComponent(server.fleet.name(1))}`
    for (const first of [[byName], [`${REST}/appinfo.json`], [`${REST}/agentinfo?agentstate=ONLINE`, byName]]) {
      const answer = await exchange(server.port, first.map(good).join('') + 'GET /x HTTP/1.1\r\nBad Header\r\n\r\n', { boundMs: 5000 })
      const statuses = [...answer.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])
      expect(statuses, first.join(' ')).toEqual([...first.map(() => '200'), '400'])
      expect(answer.text, first.join(' ')).toContain('<code>E_BAD_REQUEST</code>')
      expect(answer.closedAfterMs, first.join(' ')).toBeLessThan(4000)
    }
  })

  it('answers an HTTP version other than 1.0 and 1.1 with 505 in the envelope, whether or not Node reads the request line', async () => {
    // llhttp reads HTTP/2.0 (and 0.9) request lines and hands them on; it refuses 1.2 and 9.9 itself.
    const read = await exchange(server.port, `GET ${REST}/appinfo.json HTTP/2.0\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`)
    expect(read.status).toBe(505)
    expect(read.text).toMatch(/connection: close/i)
    expect(JSON.parse(bodyOf(read))).toMatchObject({ servicename: 'appinfo', errors: [{ status: 505, code: 'E_HTTP_VERSION' }] })
    expect(bodyOf(read)).toContain('(HTTP/2.0)')
    for (const version of ['HTTP/1.2', 'HTTP/9.9']) {
      const refused = await exchange(server.port, `GET ${REST}/appinfo.json ${version}\r\nHost: x\r\n\r\n`)
      expect(refused.status, version).toBe(505)
      expect(bodyOf(refused)).toContain('<code>E_HTTP_VERSION</code>')
      expect(bodyOf(refused)).toContain(`(${version})`)
    }
  })

  it('answers a request line of HTTP/1.1 that ends in a bare LF or a space with 400, not 505', async () => {
    for (const line of [`GET ${REST}/appinfo.json HTTP/1.1\n`, `GET ${REST}/appinfo.json HTTP/1.1 \r\n`]) {
      const answer = await exchange(server.port, `${line}Host: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`)
      expect(answer.status, JSON.stringify(line)).toBe(400)
      expect(bodyOf(answer)).toContain('<code>E_BAD_REQUEST</code>')
      expect(bodyOf(answer)).toContain('the request line must end with its HTTP version and CRLF')
    }
  })

  it('answers a Host that is no host[:port] with 400 naming it, on the fast path and through fastify, and takes the usual ones', async () => {
    const byName = `${REST}/agentinfo.json?agentname=${encodeURIComponent(server.fleet.name(1))}`
    for (const target of [byName, `${REST}/appinfo.json`]) {
      for (const host of ['a"b<c>/d?e#f', 'a b', 'x/y']) {
        const answer = await exchange(server.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
        expect(answer.status, `${target} ${host}`).toBe(400)
        expect(JSON.parse(bodyOf(answer)).errors[0]).toMatchObject({ code: 'E_BAD_REQUEST' })
        expect(bodyOf(answer)).toContain('is not a host name or address with an optional port')
      }
      // Node reads a header one character a byte: a name sent as UTF-8 is shown as such, with its ASCII form.
      const international = await exchange(server.port, `GET ${target} HTTP/1.1\r\nHost: bücher.example:9443\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
      expect(international.status).toBe(400)
      expect(JSON.parse(Buffer.from(bodyOf(international), 'latin1').toString('utf8')).errors[0].message).toContain(
        'the Host header "bücher.example:9443" holds characters past ASCII, which a host name does not: send its ASCII form (IDNA), xn--bcher-kva.example:9443'
      )
      // RFC 3986 takes any digits as a port; links with one past 65535 lead nowhere.
      for (const host of ['127.0.0.1:65536', '[::1]:99999', 'x:000070000', 'x:0']) {
        const answer = await exchange(server.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
        expect(answer.status, `${target} ${host}`).toBe(400)
        expect(bodyOf(answer)).toContain(`has port ${host.slice(host.lastIndexOf(':') + 1)}: a port is 1 to 65535`)
      }
      const portOnly = await exchange(server.port, `GET ${target} HTTP/1.1\r\nHost: :80\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
      expect(portOnly.status).toBe(400)
      expect(bodyOf(portOnly)).toContain('has a port and no host: send host[:port], such as 127.0.0.1:9443')
      // A port of thousands of digits is not echoed whole.
      const long = await exchange(server.port, `GET ${target} HTTP/1.1\r\nHost: x:${'9'.repeat(5000)}\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
      expect(long.status).toBe(400)
      expect(bodyOf(long)).toMatch(/has port 9{12}\S* \(5000 digits\): a port is 1 to 65535/)
      expect(bodyOf(long).length).toBeLessThan(1000)
      // A target in absolute form names the host in place of the Host header (RFC 9112 3.2.2): the refusal says which.
      const absolute = await exchange(server.port, `GET http://x:99999${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
      expect(absolute.status).toBe(400)
      expect(bodyOf(absolute)).toContain('the authority of the request target \\"x:99999\\" has port 99999')
      for (const host of ['127.0.0.1', '127.0.0.1:9443', '[::1]:9443', 'my_host.example', 'EXAMPLE.com:80', 'x:65535', '[::1]', 'x:']) {
        const answer = await exchange(server.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
        expect(answer.status, `${target} ${host}`).toBe(200)
      }
    }
  })

  it('never runs a request whose head was finished after --headers-timeout behind a slow answer: its 408 takes its place', async () => {
    // Raw requests with Connection: close: a kept-alive connection would count against --max-connections in the tests after.
    const added = await exchange(server.port, rawRequest('POST', '/__admin/faults', { 'content-type': 'application/json', ...AUTH }, JSON.stringify({ name: 'slow-appinfo', operation: 'appinfo', latency: 1500 })))
    expect(added.status, added.text).toBe(200)
    const id = (JSON.parse(bodyOf(added)) as { added: string }).added
    try {
      const socket = await open(server.port)
      const answer = collect(socket, 6000)
      socket.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`)
      await new Promise((resolve) => setTimeout(resolve, 100))
      socket.write(`POST ${REST}/stopagent?agentUuids=${server.fleet.uuid(2)} HTTP/1.1\r\nHost: x\r\n`)
      // Finished past --headers-timeout (400 ms) while the appinfo answer is still held by its latency.
      await new Promise((resolve) => setTimeout(resolve, 800))
      if (!socket.destroyed) socket.write('REST_USER: admin\r\nREST_PASSWORD: admin\r\nContent-Length: 0\r\n\r\n')
      const { text } = await answer
      expect([...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual(['200', '408'])
      expect(text).not.toContain('stopagent')
    } finally {
      expect((await exchange(server.port, rawRequest('DELETE', `/__admin/faults/${id}`, AUTH))).status).toBe(200)
    }
  })

  it('refuses a request target with a "#" with 400 saying to percent-encode it, on the fast path and through fastify', async () => {
    const name = encodeURIComponent(server.fleet.name(1))
    for (const target of [`${REST}/agentinfo.json?agentname=${name}#part`, `${REST}/appinfo.json#top`]) {
      const answer = await exchange(server.port, `GET ${target} HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
      expect(answer.status, target).toBe(400)
      expect(bodyOf(answer), target).toMatch(/the request target holds (\\"|&quot;)#/)
      expect(bodyOf(answer), target).toContain('%23')
    }
    const encoded = await exchange(server.port, `GET ${REST}/agentinfo.json?agentname=${name}%23part HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
    expect(encoded.status).toBe(404)
  })

  it('refuses a transfer coding other than chunked alone with 400, where the body was read still coded', async () => {
    const chunked = (coding: string) =>
      `POST ${REST}/createfield HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nContent-Type: application/json\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n` +
      `{"name":"te-field","type":"STRING"}`.length.toString(16) + '\r\n{"name":"te-field","type":"STRING"}\r\n0\r\n\r\n'
    const refused = await exchange(server.port, chunked('gzip, chunked'))
    expect(refused.status).toBe(400)
    expect(bodyOf(refused)).toContain('Transfer-Encoding \\"gzip, chunked\\" is not read here')
    const read = await exchange(server.port, chunked('chunked'))
    expect(read.status).toBe(200)
    // gzip alone: where the body ends is not known (RFC 9112 6.3), and the connection is closed after
    // the 400; the answer says so, where it said keep-alive.
    const unframed = await exchange(server.port, `POST ${REST}/createfield HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\nxyz`)
    expect(unframed.status).toBe(400)
    expect(unframed.text).toMatch(/\r\nconnection: close\r\n/i)
  })

  it('answers two Host headers with 400 E_DUPLICATE_HOST, also where a kept answer would be sent', async () => {
    const target = `${REST}/agentinfo.json?agentname=${encodeURIComponent(server.fleet.name(1))}`
    const twoHosts = Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: b\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
    const first = await exchange(server.port, twoHosts)
    expect(first.status).toBe(400)
    expect(JSON.parse(bodyOf(first))).toMatchObject({ servicename: 'agentinfo', errors: [{ status: 400, code: 'E_DUPLICATE_HOST' }] })
    // Asked twice with one Host, the answer is kept (src/http/fast-path.ts); two Hosts still get 400.
    for (let round = 0; round < 2; round++) expect((await exchange(server.port, rawRequest('GET', target, AUTH))).status).toBe(200)
    expect((await exchange(server.port, twoHosts)).status).toBe(400)
  })

  it('answers two Content-Type headers that differ with 400 naming them, rather than reading the body by the first', async () => {
    const body = JSON.stringify({ name: 'two-types' })
    const twoTypes = `POST ${REST}/addagent HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\ncontent-type: application/xml\r\nContent-Length: ${body.length}\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nAccept: application/json\r\nConnection: close\r\n\r\n${body}`
    const answer = await exchange(server.port, twoTypes)
    expect(answer.status).toBe(400)
    expect(JSON.parse(bodyOf(answer)).errors[0]).toMatchObject({ code: 'E_BAD_REQUEST' })
    expect(JSON.parse(bodyOf(answer)).errors[0].message).toContain('the request has Content-Type headers that differ ("application/json", "application/xml"): send exactly one')
    expect(server.fleet.findByName('two-types')).toBeUndefined()
    // The same type twice (curl given the header twice) is read as one.
    const sameTwice = rawRequest('GET', `${REST}/appinfo.json`, { ...AUTH, 'Content-Type': 'application/json', 'content-type': 'Application/JSON' })
    expect((await exchange(server.port, sameTwice)).status).toBe(200)
  })
})

describe('--max-connections', () => {
  /** Three connections, each answered once (so the server has counted them), then `after` on each. */
  async function holdThree(after: (socket: import('node:net').Socket) => void): Promise<import('node:net').Socket[]> {
    const held: import('node:net').Socket[] = []
    for (let k = 0; k < 3; k++) {
      const socket = await open(server.port)
      const first = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))))
      socket.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\n\r\n`)
      expect(await first).toMatch(/^HTTP\/1\.1 200/)
      after(socket)
      held.push(socket)
      // Apart in time, so which one is idle longest is known.
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return held
  }

  it('answers requests on connections beyond the limit with 503, Retry-After and Connection: close', async () => {
    // Each one busy: the head of a next request on its way, so none is idle to make room.
    const held = await holdThree((socket) => socket.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\n`))
    await new Promise((resolve) => setTimeout(resolve, 20))
    const answer = await exchange(server.port, rawRequest('GET', `${REST}/appinfo.json`, AUTH))
    for (const socket of held) socket.destroy()
    expect(answer.status).toBe(503)
    expect(answer.text).toMatch(/retry-after: 1/i)
    expect(answer.text).toMatch(/connection: close/i)
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ servicename: 'appinfo', errors: [{ status: 503, code: 'E_TOO_MANY_CONNECTIONS' }] })
  })
})
