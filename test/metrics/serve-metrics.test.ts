import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseServeConfig } from '../../src/config.js'
import { createLogger, startServer, type RunningServer } from '../../src/server.js'
import { parseExposition, valueOf } from './helpers.js'

let dataDir: string
let server: RunningServer | undefined
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleetsim-metrics-'))
})
afterEach(async () => {
  await server?.close()
  server = undefined
  await rm(dataDir, { recursive: true, force: true })
})

async function serve(...flags: string[]): Promise<{ metricsUrl: string; running: RunningServer }> {
  const config = parseServeConfig(['--http', '--port', '0', '--agents', '200', '--workers', '1', '--data-dir', dataDir, ...flags], {})
  server = await startServer(config, { announce: () => undefined, logger: createLogger('silent', { pretty: false }) })
  return { metricsUrl: `http://127.0.0.1:${server.port}/metrics`, running: server }
}

describe('fleetsim serve', () => {
  it('serves /metrics without credentials, with the fleet in it', async () => {
    const { metricsUrl, running } = await serve()
    const response = await fetch(metricsUrl)
    expect(response.status).toBe(200)
    const samples = parseExposition(await response.text())
    const total = samples.filter((s) => s.name === 'fleetsim_agents').reduce((sum, s) => sum + s.value, 0)
    expect(total).toBe(running.fleet.size())
    expect(valueOf(samples, 'fleetsim_process_resident_memory_bytes')).toBeGreaterThan(0)
  })

  it('asks for the REST credentials on /metrics with --metrics-auth', async () => {
    const { metricsUrl } = await serve('--metrics-auth')
    const basic = `Basic ${Buffer.from('admin:admin').toString('base64')}`
    expect((await fetch(metricsUrl)).status).toBe(401)
    expect((await fetch(metricsUrl, { headers: { authorization: basic } })).status).toBe(200)
  })
})
