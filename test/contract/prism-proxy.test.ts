/**
 * fleetsim against its own OpenAPI document, judged by a third party: Stoplight Prism as a
 * validating proxy (`prism proxy docs/openapi.json <fleetsim>`) in front of a real server,
 * while the conformance suite and a battery of every read operation in JSON and XML go
 * through it. Prism reports what breaks the document in the `sl-violations` header.
 *
 * Prism runs without `--errors`, so it forwards every request (the suite sends bad ones on
 * purpose) and reports instead of refusing. Prism 5.14 checks a response body against its
 * schema only as JSON: it reads an XML body as text and reports one `Response body must be
 * object` for it. That one diagnostic of an XML answer is expected; anything else fails.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpTransport, type HttpAnswer, type HttpRequest, type Transport } from '../../src/conformance/http-client.js'
import { runSuite } from '../../src/conformance/suite.js'
import { startFleetsim, type RunningFleetsim } from '../../src/embed.js'

const PRISM = resolve('node_modules/@stoplight/prism-cli/dist/index.js')
const DOCUMENT = resolve('docs/openapi.json')

interface Violation {
  location: string[]
  severity: string
  code: string | number
  message: string
}

interface Exchange {
  request: HttpRequest
  answer: HttpAnswer
  violations: Violation[]
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  server.close()
  return port
}

/** Starts Prism on a free port; resolves once it listens (it says so on stdout). */
async function startPrism(upstream: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort()
  const child = spawn(process.execPath, [PRISM, 'proxy', DOCUMENT, upstream, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`Prism did not start within 60 s:\n${output}`)), 60_000)
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      if (/Prism is listening/.test(output)) {
        clearTimeout(timer)
        ready()
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.once('exit', (code) => {
      clearTimeout(timer)
      fail(new Error(`Prism exited with ${code}:\n${output}`))
    })
  })
  return { url: `http://127.0.0.1:${port}`, process: child }
}

function violationsOf(answer: HttpAnswer): Violation[] {
  const header = answer.headers['sl-violations']
  const text = Array.isArray(header) ? header.join('') : header
  return text === undefined || text === '' ? [] : (JSON.parse(text) as Violation[])
}

const isXml = (answer: HttpAnswer) => /\bxml\b/.test(String(answer.headers['content-type'] ?? ''))
/** Prism's one diagnostic for any structured XML body (see the top of this file). */
const xmlBodyAsText = (v: Violation) => v.location[0] === 'response' && v.location[1] === 'body' && /must be object/.test(v.message)

describe('fleetsim through Prism validating against docs/openapi.json', () => {
  let sim: RunningFleetsim
  let prism: ChildProcess
  let exchanges: Exchange[]
  let through: Transport
  let base: string

  beforeAll(async () => {
    sim = await startFleetsim({ http: true, agents: 30 })
    const started = await startPrism(new URL(sim.baseUrl).origin)
    prism = started.process
    base = `${started.url}${new URL(sim.baseUrl).pathname}`
    exchanges = []
    const direct = httpTransport({ timeoutMs: 20_000 })
    through = async (request) => {
      const answer = await direct(request)
      exchanges.push({ request, answer, violations: violationsOf(answer) })
      return answer
    }
  }, 120_000)

  afterAll(async () => {
    prism?.kill()
    await sim?.close()
  })

  /** Response violations, less the one Prism reports for every XML body. */
  const responseViolations = (list: Exchange[]) =>
    list.flatMap((e) => e.violations.filter((v) => v.location[0] === 'response' && !(isXml(e.answer) && xmlBodyAsText(v))).map((v) => `${e.request.method} ${e.request.url} → ${e.answer.status}: ${v.location.join('.')} ${v.message}`))

  it('runs the conformance suite with every answer as the document describes it', async () => {
    const before = exchanges.length
    const results = await runSuite({ target: base, user: sim.credentials.user, password: sim.credentials.password, transport: through })
    expect(results.filter((r) => r.status === 'fail').map((r) => `${r.id}: ${r.message}`)).toEqual([])
    const mine = exchanges.slice(before)
    expect(mine.length).toBeGreaterThan(20)
    expect(responseViolations(mine)).toEqual([])
  }, 120_000)

  it('answers every read operation, in JSON and XML, as the document describes, and the document accepts the requests', async () => {
    await sim.clock.advance(30)
    const headers = { ...sim.headers }
    const [a, b] = [...sim.engine.indices()].slice(0, 2).map((i) => sim.engine.name(i))
    const reads = [
      'agentinfo?agentstate=ONLINE&agentstate=ERROR',
      `agentinfo?agentname=${a},${b}&agentwithmodules=true`,
      'appinfo',
      'agentmanager',
      'certificateinfo?expirein=30',
      `viewagentortemplate?name=${a}`
    ]
    const before = exchanges.length
    for (const read of reads) {
      for (const accept of ['application/json', 'application/xml']) {
        const answer = await through({ method: 'GET', url: `${base}/restservice/${read}`, headers: { ...headers, accept } })
        expect(answer.status, `${read} as ${accept}`).toBe(200)
      }
    }
    const mine = exchanges.slice(before)
    expect(mine.flatMap((e) => e.violations.filter((v) => v.location[0] === 'request').map((v) => `${e.request.url}: ${v.message}`))).toEqual([])
    expect(responseViolations(mine)).toEqual([])
  }, 60_000)

  it('reports a request that breaks the document, which fleetsim refuses too', async () => {
    const answer = await through({ method: 'GET', url: `${base}/restservice/agentinfo?agentstate=BOGUS`, headers: { ...sim.headers, accept: 'application/json' } })
    expect(answer.status).toBe(400)
    expect(violationsOf(answer).some((v) => v.location[0] === 'request')).toBe(true)
  }, 30_000)
})
