/**
 * Requests as careless clients and proxies send them:
 * - in absolute form (`GET http://host/path`, as a client set to use a proxy sends them), answered
 *   as their origin form: the console's forwarders cut the URL at a prefix and sent
 *   `/console/api/admin/fleet` to `/__admin/i/admin/fleet`, an unknown operation got no "did you
 *   mean", and links named the Host header rather than the target's authority;
 * - without a Host (links read `http:///manager/…`);
 * - with a credential header sent twice (read as a wrong password);
 * - malformed where Node's parser refuses them: the answer says what to fix, where it gave a code;
 * - `OPTIONS *`, a load balancer's ping.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { bodyOf, exchange, rawRequest } from './socket.js'

const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'admin' }
const REST = '/manager/mvc/restservice'

let dataDir: string
let server: RunningServer
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-absolute-'))
  const config = parseServeConfig(['--http', '--port', '0', '--agents', '20', '--workers', '1', '--data-dir', dataDir], {})
  server = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
})
afterAll(async () => {
  await server.close()
  await rm(dataDir, { recursive: true, force: true })
})

const json = async (target: string, headers: Record<string, string> = AUTH) => {
  const answer = await exchange(server.port, rawRequest('GET', target, { accept: 'application/json', ...headers }))
  return { status: answer.status, body: JSON.parse(bodyOf(answer)) as Record<string, unknown> }
}

describe('a request in absolute form', () => {
  it('is answered as its path, with links to the authority it names', async () => {
    const { status, body } = await json(`http://manager.example:9443${REST}/appinfo.json`)
    expect(status).toBe(200)
    expect(body.links).toEqual([{ rel: 'self', href: 'http://manager.example:9443/manager/mvc/mvc/restservice/appinfo.json' }])
  })

  it('still needs a Host on HTTP/1.1, as every request does (RFC 9112 §3.2)', async () => {
    const answer = await exchange(server.port, `GET http://manager.example${REST}/appinfo.json HTTP/1.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`)
    expect(answer.status).toBe(400)
    const noHost = await exchange(server.port, 'OPTIONS * HTTP/1.1\r\nConnection: close\r\n\r\n')
    expect(noHost.status).not.toBe(204)
  })

  it('names the host, not a user name before @, in place of the Host', async () => {
    const { status, body } = await json(`http://user@manager.example:9443${REST}/appinfo.json`)
    expect(status).toBe(200)
    expect(body.links).toEqual([{ rel: 'self', href: 'http://manager.example:9443/manager/mvc/mvc/restservice/appinfo.json' }])
  })

  it('gets the "did you mean" of its operation', async () => {
    const { status, body } = await json(`HTTP://manager.example${REST}/agentinf.json?x=1`)
    expect(status).toBe(404)
    expect(body.errors).toEqual([expect.objectContaining({ code: 'E_UNKNOWN_OPERATION', message: expect.stringContaining('did you mean agentinfo.json?') })])
  })

  it('reaches the console\'s forwarders whole', async () => {
    const basic = { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` }
    const { status, body } = await json('http://127.0.0.1/console/api/admin/fleet', basic)
    expect(status).toBe(200)
    expect(body.agents).toBe(20)
  })
})

describe('a request without a Host', () => {
  it('gets links to the address it came to, where they read http:///manager/…', async () => {
    const answer = await exchange(server.port, `GET ${REST}/appinfo.json HTTP/1.0\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\naccept: application/json\r\n\r\n`)
    expect(answer.status).toBe(200)
    expect((JSON.parse(bodyOf(answer)) as { links: unknown }).links).toEqual([{ rel: 'self', href: `http://127.0.0.1:${server.port}/manager/mvc/mvc/restservice/appinfo.json` }])
  })
})

describe('credentials sent twice', () => {
  it('are said to be sent twice, where Node joined them ("admin, admin") into a wrong password', async () => {
    const answer = await exchange(server.port, rawRequest('GET', `${REST}/appinfo.json`, { accept: 'application/json', REST_USER: 'admin', REST_PASSWORD: ['admin', 'admin'] }))
    expect(answer.status).toBe(401)
    expect((JSON.parse(bodyOf(answer)) as { errors: Array<{ message: string }> }).errors[0].message).toContain(
      'the request sends REST_PASSWORD more than once, and the values are read joined ("a, b"): send each header once'
    )
  })
})

describe('a request the HTTP parser refuses', () => {
  const messageOf = async (bytes: string) => {
    const answer = await exchange(server.port, bytes, { end: true })
    expect(answer.status).toBe(400)
    // The head was not read, so its Accept neither: the answer is XML, the default.
    const escaped = /<message>([\s\S]*?)<\/message>/.exec(bodyOf(answer))?.[1] ?? ''
    return escaped.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
  }

  it.each([
    ['a raw character past ASCII in the path', `GET ${REST}/agentinfo.json?agentname=東京-01 HTTP/1.1\r\nHost: x\r\n\r\n`, 'percent-encode it as UTF-8', 'HPE_INVALID_URL'],
    ['a path without its leading slash', `GET ${REST.slice(1)}/appinfo.json HTTP/1.1\r\nHost: x\r\n\r\n`, 'the request target must start with `/`', 'HPE_INVALID_URL'],
    ['a method in lower case', `get ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\n\r\n`, 'methods are case-sensitive', 'HPE_INVALID_METHOD'],
    ['a space in a header name', `GET ${REST}/appinfo.json HTTP/1.1\r\nHost: x\r\nREST USER: admin\r\n\r\n`, 'write each header as `Name: value` on one line', 'HPE_INVALID_HEADER_TOKEN'],
    ['Content-Length twice', `POST ${REST}/addagent HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}`, 'Content-Length is sent twice: send it once', 'HPE_UNEXPECTED_CONTENT_LENGTH']
  ])('says what to fix: %s', async (_what, bytes, advice, code) => {
    const message = await messageOf(bytes)
    expect(message).toContain(advice)
    expect(message).toContain(`(${code})`)
  })
})

describe('OPTIONS *', () => {
  it('answers 204 with the methods the server serves, where it was a 404 "Nothing is served at *"', async () => {
    const answer = await exchange(server.port, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    expect(answer.status).toBe(204)
    expect(answer.text).toMatch(/\r\nallow: GET, HEAD, POST, PUT, DELETE, OPTIONS\r\n/i)
  })
})
