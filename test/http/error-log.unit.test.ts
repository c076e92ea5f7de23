/**
 * 5xx answers a client causes are not logged as the server's failures: a flood of connections
 * past --max-connections was a flood of error lines with stack traces.
 */
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createErrorHandler } from '../../src/http/error-handler.js'
import { apiError } from '../../src/protocol/errors.js'
import '../../src/protocol/request-context.js'

async function loggedFor(code: 'E_TOO_MANY_CONNECTIONS' | 'E_INTERNAL'): Promise<string[]> {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      done()
    }
  })
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, stream), disableRequestLogging: true })
  app.decorateRequest('operation', '')
  app.decorateRequest('format', 'xml')
  app.setErrorHandler(createErrorHandler(1024))
  app.get('/x', async () => {
    throw code === 'E_INTERNAL' ? apiError('E_INTERNAL') : apiError(code, { limit: 3 })
  })
  const answer = await app.inject({ url: '/x' })
  await app.close()
  await new Promise((resolve) => setImmediate(resolve))
  expect(answer.statusCode).toBe(code === 'E_INTERNAL' ? 500 : 503)
  return lines.map((line) => (JSON.parse(line) as { msg: string }).msg)
}

describe('the error log', () => {
  it('leaves out a 503 past --max-connections, which the client caused', async () => {
    expect(await loggedFor('E_TOO_MANY_CONNECTIONS')).not.toContain('request failed')
  })

  it('keeps the server\'s own failures', async () => {
    expect(await loggedFor('E_INTERNAL')).toContain('request failed')
  })
})
