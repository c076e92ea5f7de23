import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { httpTransport } from '../../src/conformance/http-client.js'

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
  server = undefined
})

/** A target whose answers are what `answer` writes. */
async function target(answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
  server = createServer((_req, res) => answer(res))
  await new Promise<void>((resolve) => (server as Server).listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

describe('the conformance and report client', () => {
  it('gives up on an answer that does not finish within the timeout, though bytes keep coming (it waited for good)', async () => {
    const url = await target((res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const drip = setInterval(() => res.write(' '), 50)
      res.on('close', () => clearInterval(drip))
    })
    const began = Date.now()
    await expect(httpTransport({ timeoutMs: 600 })({ method: 'GET', url })).rejects.toMatchObject({
      code: 'E_NO_ANSWER',
      message: expect.stringContaining('no whole answer from http://127.0.0.1:')
    })
    expect(Date.now() - began).toBeLessThan(3000)
  })

  it('drops an answer longer than it reads, where it held every byte', async () => {
    const url = await target((res) => {
      res.writeHead(200)
      const chunk = Buffer.alloc(64 * 1024, 32)
      const pour = () => {
        while (res.write(chunk));
      }
      res.on('drain', pour)
      res.on('close', () => res.off('drain', pour))
      pour()
    })
    await expect(httpTransport({ maxAnswerBytes: 1024 * 1024 })({ method: 'GET', url })).rejects.toMatchObject({
      code: 'E_ANSWER_TOO_LARGE',
      message: expect.stringContaining('is longer than 1048576 bytes')
    })
  })

  it('reads a whole answer within both bounds', async () => {
    const url = await target((res) => res.end('{"ok":true}'))
    await expect(httpTransport({ timeoutMs: 2000, maxAnswerBytes: 100 })({ method: 'GET', url })).resolves.toMatchObject({ status: 200, body: '{"ok":true}' })
  })
})
