import Fastify from 'fastify'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { startFleetBuildLog } from '../../src/metrics/build-log.js'
import { startFleetLog } from '../../src/metrics/fleet-log.js'
import { RequestLogController } from '../../src/metrics/request-log.js'
import { terminalDestination } from '../../src/metrics/terminal-log.js'
import { createLogger } from '../../src/server.js'
import { fakeSource } from './helpers.js'

/** A stand-in for a terminal: everything written to it, and whether it claims to be a TTY. */
function fakeTerminal(isTTY = false) {
  const writes: string[] = []
  const out = { isTTY, write: (text: string) => writes.push(text) }
  const text = () => writes.join('')
  /** the lines written, without the `[hh:mm:ss.mmm] ` each starts with (and pino-pretty's space before an error) */
  const lines = () =>
    text()
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/^\[\d\d:\d\d:\d\d\.\d{3}\] /, '').trimEnd())
  return { out, text, lines }
}

function terminalLogger(isTTY = false) {
  const terminal = fakeTerminal(isTTY)
  return { ...terminal, logger: pino({ level: 'info', base: { pid: process.pid } }, terminalDestination(terminal.out)) }
}

describe('terminal logs', () => {
  it('print one line per request: method, operation, status and time first, then the request id', async () => {
    const { lines, logger } = terminalLogger()
    const app = Fastify({ loggerInstance: logger, logController: new RequestLogController() })
    app.get('/manager/mvc/restservice/agentinfo', { config: { operation: 'agentinfo' } }, async () => ({ ok: true }))
    app.get('/manager/mvc/restservice/agentinfo.json', { config: { operation: 'agentinfo' } }, async () => ({ ok: true }))
    await app.inject({ url: '/manager/mvc/restservice/agentinfo?agentname=a,b,c' })
    await app.inject({ url: '/missing' })
    await app.inject({ url: '/manager/mvc/restservice/agentinfo.json?agentname=a' })
    await app.close()
    expect(lines()).toHaveLength(3)
    expect(lines()[0]).toMatch(/^INFO: GET agentinfo 200 \d+\.\d ms \(req-1\)$/)
    // A path that is not the operation's own is shown: it says what was asked for.
    expect(lines()[1]).toMatch(/^INFO: GET not_found 404 \d+\.\d ms \/missing \(req-2\)$/)
    // Its suffix form is its own too (the path was shown).
    expect(lines()[2]).toMatch(/^INFO: GET agentinfo 200 \d+\.\d ms \(req-3\)$/)
  })

  it('print a fleet summary on one line: agents by state, then the busiest changes and the virtual time', () => {
    const { lines, logger } = terminalLogger()
    const source = fakeSource()
    const log = startFleetLog(source, logger, { pollMs: 60_000 })
    Object.assign(source.byState, { ONLINE: 950, OFFLINE: 12, ERROR: 30, UNMANAGED: 8 })
    // ONLINE->OFFLINE 12, ONLINE->ERROR 30, OFFLINE->ONLINE 5, ERROR->ONLINE 2 (index from * 6 + to)
    source.stats.transitions[0 * 6 + 1] = 12
    source.stats.transitions[0 * 6 + 2] = 30
    source.stats.transitions[1 * 6 + 0] = 5
    source.stats.transitions[2 * 6 + 0] = 2
    source.virtualSecond = 1888
    log.check()
    log.stop()
    expect(lines()).toEqual([
      'INFO: fleet: 1,000 agents, ONLINE 950, OFFLINE 12, ERROR 30, UNMANAGED 8; 49 changes: ONLINE->ERROR 30, ONLINE->OFFLINE 12, OFFLINE->ONLINE 5, +1 more; virtual time +31m28s'
    ])
  })

  it('say when a large fleet is being built and how long it took, on a line each', () => {
    const { lines, logger } = terminalLogger()
    let wall = 0
    const building = startFleetBuildLog(logger, 1_000_000, { wallNow: () => wall })
    wall = 2140
    building.done()
    expect(lines()).toEqual(['INFO: building 1,000,000 agents…', 'INFO: built 1,000,000 agents in 2.1 s'])
  })

  it('keep the fields of other records as JSON on the same line', () => {
    const { lines, logger } = terminalLogger()
    logger.info({ caPath: '/data/tls/ca.pem', fingerprint: 'AB:CD' }, 'created a certificate authority')
    logger.warn({ refused: 3 }, 'connections refused')
    expect(lines()).toEqual(['INFO: created a certificate authority {"caPath":"/data/tls/ca.pem","fingerprint":"AB:CD"}', 'WARN: connections refused {"refused":3}'])
  })

  it('keep the stack of a failed request below its line', () => {
    const { lines, logger } = terminalLogger()
    logger.error({ operation: 'agentinfo', method: 'GET', path: '/manager/mvc/restservice/agentinfo', status: 500, responseTimeMs: 3.25, err: new Error('boom') }, 'request errored')
    expect(lines()[0]).toBe('ERROR: request errored: GET agentinfo 500 3.3 ms')
    expect(lines().join('\n')).toContain('boom')
  })

  it('colour the lines only when the output is a TTY', () => {
    const plain = terminalLogger(false)
    plain.logger.info('closing')
    expect(plain.text()).not.toContain('\u001b[')
    const tty = terminalLogger(true)
    tty.logger.info('closing')
    expect(tty.text()).toContain('\u001b[')
  })

  it('are what createLogger writes when asked for pretty output, with secret headers still redacted', () => {
    const terminal = fakeTerminal()
    const logger = createLogger('info', { pretty: true, destination: terminal.out })
    logger.info({ headers: { rest_password: 'secret' } }, 'incoming')
    logger.info({ method: 'POST', operation: 'stopagent', path: '/m/restservice/stopagent', status: 200, responseTimeMs: 0.42 }, 'request completed')
    expect(terminal.lines()).toEqual(['INFO: incoming {"headers":{"rest_password":"[Redacted]"}}', 'INFO: POST stopagent 200 0.4 ms'])
  })
})

describe('the fleet build log', () => {
  it('stays quiet for a fleet under the threshold', () => {
    const { lines, logger } = terminalLogger()
    startFleetBuildLog(logger, 99_999).done()
    startFleetBuildLog(logger, 10, { from: 11 }).done()
    expect(lines()).toEqual([])
  })
})
