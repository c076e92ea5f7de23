import { Writable } from 'node:stream'
import Fastify from 'fastify'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { startFleetLog } from '../../src/metrics/fleet-log.js'
import { LOGGED_PATH_CHARS, RequestLogController } from '../../src/metrics/request-log.js'
import { fakeSource } from './helpers.js'

function capture() {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    }
  })
  return { lines, logger: pino({ level: 'info' }, stream) }
}

/** Lets pino's stream writes land. */
const flush = () => new Promise((resolve) => setImmediate(resolve))

describe('request logs', () => {
  it('write one line per request with operation, method, path, status and response time', async () => {
    const { lines, logger } = capture()
    const app = Fastify({ loggerInstance: logger, logController: new RequestLogController() })
    app.get('/things', { config: { operation: 'agentinfo' } }, async () => ({ ok: true }))
    await app.inject({ url: '/things?agentname=a,b,c' })
    await app.inject({ url: '/missing' })
    await app.close()
    await flush()
    expect(lines.map((line) => line.msg)).toEqual(['request completed', 'request completed'])
    const requests = lines
    expect(requests.map(({ operation, method, path, status }) => ({ operation, method, path, status }))).toEqual([
      { operation: 'agentinfo', method: 'GET', path: '/things', status: 200 },
      { operation: 'not_found', method: 'GET', path: '/missing', status: 404 }
    ])
    expect(typeof requests[0].responseTimeMs).toBe('number')
    expect(requests[0].level).toBe(30)
  })

  it('cut a long path, where one request of a 1 MB path wrote a 1 MB line', async () => {
    const { lines, logger } = capture()
    const app = Fastify({ loggerInstance: logger, logController: new RequestLogController(), routerOptions: { maxParamLength: 2_000_000 } })
    const path = `/${'a'.repeat(100_000)}`
    await app.inject({ url: path })
    await app.close()
    await flush()
    expect(lines[0].path).toBe(`${path.slice(0, LOGGED_PATH_CHARS)}… (100001 characters)`)
  })
})

describe('fleet logs', () => {
  it('summarise states and transitions once a virtual minute has passed and something changed', async () => {
    const { lines, logger } = capture()
    const source = fakeSource()
    const log = startFleetLog(source, logger, { pollMs: 60_000 })
    source.byState.ONLINE = 9
    source.byState.OFFLINE = 1
    source.stats.transitions[0 * 6 + 1] = 1
    source.virtualSecond = 30
    log.check()
    source.virtualSecond = 61
    log.check()
    log.stop()
    await flush()
    const summaries = lines.filter((line) => line.msg === 'fleet state summary')
    expect(summaries).toHaveLength(1)
    expect(summaries[0]).toMatchObject({ byState: { ONLINE: 9, OFFLINE: 1 }, transitions: { 'ONLINE->OFFLINE': 1 }, second: 61 })
  })

  it('write at most one summary per minWallMs of wall time, however fast the clock runs', async () => {
    const { lines, logger } = capture()
    const source = fakeSource()
    let wall = 0
    const log = startFleetLog(source, logger, { pollMs: 60_000, minWallMs: 10_000, wallNow: () => wall })
    for (let k = 1; k <= 20; k++) {
      source.stats.transitions[0 * 6 + 1] = k
      source.virtualSecond = k * 600
      wall = k * 1000
      log.check()
    }
    log.stop()
    await flush()
    expect(lines.filter((line) => line.msg === 'fleet state summary').map((line) => line.second)).toEqual([600, 6600])
  })

  it('stay quiet while nothing changes', async () => {
    const { lines, logger } = capture()
    const source = fakeSource()
    const log = startFleetLog(source, logger, { pollMs: 60_000 })
    source.virtualSecond = 600
    log.check()
    log.stop()
    await flush()
    expect(lines).toEqual([])
  })

  it('warn when a timeline join could not add all its agents, with how many and the flag to raise', async () => {
    const { lines, logger } = capture()
    const source = fakeSource()
    const log = startFleetLog(source, logger, { pollMs: 60_000 })
    source.stats.notJoined.crowd = 30
    source.virtualSecond = 60
    log.check()
    log.check()
    log.stop()
    await flush()
    const warnings = lines.filter((line) => line.level === 40)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ event: 'crowd', notJoined: 30, second: 60, msg: expect.stringContaining('--max-added-agents') })
  })

  it('log timeline events as they fire and scenario changes', async () => {
    const { lines, logger } = capture()
    const source = fakeSource()
    source.scenario = { name: 'mass-outage-recovery', stages: [] }
    const log = startFleetLog(source, logger, { pollMs: 60_000 })
    source.stats.timelineFired['site-outage'] = 1
    source.virtualSecond = 600
    log.check()
    source.scenario = { name: 'steady-fleet', stages: ['background'] }
    log.check()
    log.stop()
    await flush()
    expect(lines.map((line) => line.msg)).toEqual(['scenario running', 'timeline event fired', 'scenario stages changed'])
    expect(lines[1]).toMatchObject({ event: 'site-outage', times: 1, second: 600 })
    expect(lines[2]).toMatchObject({ scenario: 'steady-fleet', started: ['background'], ended: [] })
  })
})
