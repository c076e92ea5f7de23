/**
 * `Expect: 100-continue` over a real socket, as curl sends it for large bodies: the client sends
 * the head, waits for 100 Continue and only then its body. A request refused from its head (401,
 * 413 by Content-Length, 415) gets the refusal first and no 100 Continue; any other gets 100
 * Continue when its body is about to be read.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { bodyOf, exchange, open } from './socket.js'

const REST = '/manager/mvc/restservice'
const FIELD = JSON.stringify({ name: 'owner', type: 'STRING' })

let dataDir: string
let server: RunningServer

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-continue-'))
  const config = parseServeConfig(['--http', '--port', '0', '--agents', '5', '--workers', '1', '--data-dir', dataDir, '--body-limit', '1024'], {})
  server = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
})

afterAll(async () => {
  await server.close()
  await rm(dataDir, { recursive: true, force: true })
})

interface Outcome {
  /** the 100 Continue came before the final answer */
  continued: boolean
  /** the final answer's status line, headers and body */
  status: number
  head: string
  body: string
}

/**
 * Sends a POST's head with `Expect: 100-continue` and sends `body` only once 100 Continue came,
 * as a client that waits for it; resolves with the final answer (by its Content-Length).
 */
async function post(path: string, headers: Record<string, string>, body: string, contentLength = Buffer.byteLength(body)): Promise<Outcome> {
  const socket = await open(server.port)
  let head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: ${contentLength}\r\n`
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`
  socket.write(`${head}\r\n`)
  let text = ''
  let continued = false
  return new Promise((resolve, reject) => {
    socket.on('error', reject)
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      if (!continued && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        continued = true
        text = text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length)
        socket.write(body)
      }
      const end = text.indexOf('\r\n\r\n')
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))
      if (end === -1 || length === null || text.length < end + 4 + Number(length[1])) return
      socket.destroy()
      resolve({ continued, status: Number(text.slice(9, 12)), head: text.slice(0, end), body: text.slice(end + 4) })
    })
  })
}

const AUTH = { REST_USER: 'admin', REST_PASSWORD: 'admin', accept: 'application/json' }
const JSON_BODY = { 'Content-Type': 'application/json' }

describe('Expect: 100-continue', () => {
  it.each([
    ['wrong credentials', 401, 'E_UNAUTHORIZED', { ...AUTH, REST_PASSWORD: 'wrong', ...JSON_BODY }, undefined],
    ['a Content-Length over --body-limit', 413, 'E_BODY_TOO_LARGE', { ...AUTH, ...JSON_BODY }, 100_000],
    ['a Content-Type that is neither JSON nor XML', 415, 'E_UNSUPPORTED_MEDIA_TYPE', { ...AUTH, 'Content-Type': 'text/plain' }, undefined],
    ['a charset that is not read', 415, 'E_UNSUPPORTED_CHARSET', { ...AUTH, 'Content-Type': 'application/json; charset=koi8-r' }, undefined],
    ['a compressed body', 415, 'E_UNSUPPORTED_CONTENT_ENCODING', { ...AUTH, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, undefined]
  ] as const)('refuses %s with %i before any 100 Continue, and closes the connection', async (_what, status, code, headers, length) => {
    const outcome = await post(`${REST}/createfield`, headers, FIELD, length)
    expect(outcome.continued).toBe(false)
    expect(outcome.status).toBe(status)
    expect(outcome.head).toMatch(/\r\nconnection: close/i)
    expect(JSON.parse(outcome.body)).toMatchObject({ errors: [{ status, code }] })
  })

  it('sends 100 Continue for a request it reads the body of, and answers it', async () => {
    const outcome = await post(`${REST}/createfield`, { ...AUTH, ...JSON_BODY }, FIELD)
    expect(outcome.continued).toBe(true)
    expect(outcome.status).toBe(200)
    expect(JSON.parse(outcome.body)).toMatchObject({ servicename: 'createfield', values: [{ name: 'owner' }] })
  })

  it('sends 100 Continue for a body it reads and then refuses (its content is not valid JSON)', async () => {
    const outcome = await post(`${REST}/createfield`, { ...AUTH, ...JSON_BODY }, '{"name":')
    expect(outcome.continued).toBe(true)
    expect(JSON.parse(outcome.body)).toMatchObject({ errors: [{ status: 400, code: 'E_MALFORMED_JSON' }] })
  })
})

describe('Expect: 100-continue on a request without a body', () => {
  it.each([
    ['no Content-Length', ''],
    ['Content-Length: 0', 'Content-Length: 0\r\n']
  ])('is answered with no 100 Continue and keeps its connection (%s)', async (_what, length) => {
    const get = `GET ${REST}/appinfo.json HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nExpect: 100-continue\r\n${length}\r\n`
    const last = `GET ${REST}/appinfo.json HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\nConnection: close\r\n\r\n`
    const answer = await exchange(server.port, get + last)
    expect(answer.text).not.toContain('100 Continue')
    expect(answer.text.match(/HTTP\/1\.1 200 OK\r\n/g)).toHaveLength(2)
    expect(answer.text.split('HTTP/1.1 200 OK')[1]).not.toMatch(/\r\nconnection: close/i)
  })
})

describe('another expectation', () => {
  it('gets 417 E_EXPECTATION_FAILED in the envelope, and the connection closed (Node sent a bare 417 and kept it)', async () => {
    // Without Connection: close, and with the body at once: it is not read, so the connection must go.
    const head = `POST ${REST}/createfield HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\naccept: application/json\r\n`
    const answer = await exchange(server.port, `${head}Content-Type: application/json\r\nExpect: 200-ok\r\nContent-Length: ${FIELD.length}\r\n\r\n${FIELD}`)
    expect(answer.status).toBe(417)
    expect(answer.text).toMatch(/\r\nconnection: close\r\n/i)
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ errors: [{ status: 417, code: 'E_EXPECTATION_FAILED', message: expect.stringContaining('The Expect header "200-ok" names an expectation') }] })
  })

  it('gets 417 beside 100-continue too, which Node took as 100-continue alone', async () => {
    const head = `POST ${REST}/createfield HTTP/1.1\r\nHost: 127.0.0.1\r\nREST_USER: admin\r\nREST_PASSWORD: admin\r\naccept: application/json\r\n`
    const answer = await exchange(server.port, `${head}Content-Type: application/json\r\nExpect: 100-continue, foo\r\nContent-Length: ${FIELD.length}\r\n\r\n${FIELD}`)
    expect(answer.text).not.toContain('100 Continue')
    expect(answer.status).toBe(417)
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ errors: [{ status: 417, code: 'E_EXPECTATION_FAILED', message: expect.stringContaining('"100-continue, foo"') }] })
  })
})
