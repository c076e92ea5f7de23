/**
 * Requests as careless clients and proxies send them:
 * - in absolute form (`GET http://host/path`, as a client set to use a proxy sends them), answered
 *   as their origin form: the console's forwarders cut the URL at a prefix and sent
 *   `/console/api/admin/fleet` to `/__admin/i/admin/fleet`, an unknown operation got no "did you
 *   mean", and links named the Host header rather than the target's authority;
 * - without a Host (links read `http:///manager/…`);
 * - with a credential header sent twice (read as a wrong password).
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
