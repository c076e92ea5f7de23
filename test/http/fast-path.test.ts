/**
 * The fast path must answer exactly as fastify would: same status, headers and bytes, the
 * same journal entry and the same metrics; and hand everything else to fastify.
 */
import { createServer, request as httpRequest, type RequestListener, type Server } from 'node:http'
import { once } from 'node:events'
import { Writable } from 'node:stream'
import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { parseServeConfig } from '../../src/config.js'
import { createFleet, type FleetEngine } from '../../src/fleet/fleet.js'
import type { JournalEntry } from '../../src/journal/journal.js'
import type { ClientTraffic } from '../../src/journal/plugin.js'
import { URL_CAP } from '../../src/journal/journal-bounds.js'
import { LAZY_ANSWER_CHARS } from '../../src/journal/recorder.js'
import { createLogger } from '../../src/server.js'
import { AnswerCache } from '../../src/http/answer-cache.js'
import { AUTH, CA, REST, START } from './helpers.js'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string, options = { credentials: true }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Node frames a GET body only with an explicit content-length.
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { ...(options.credentials ? { ...AUTH, accept: 'application/json' } : {}), ...length, ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function listen(handler: RequestListener): Promise<{ server: Server; port: number }> {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, port: (server.address() as { port: number }).port }
}

/** Everything an entry says about the call, apart from when it came and how long it took. */
function callFacts(entry: JournalEntry): Partial<JournalEntry> {
  const { id: _id, time: _time, wallMs: _wallMs, durationMs: _durationMs, ...facts } = entry
  return facts
}

describe('the fast path', () => {
  let fleet: FleetEngine
  let harness: ClientTraffic
  let server: Server
  let port: number
  let metrics: () => Promise<string>
  let close: () => Promise<void>
  let fastPathOn = true
  /** requests fastify routed: every request sent, less those the fast path answered */
  let sent = 0
  let fastPathAnswers: () => number
  let answers: AnswerCache
  const routedNow = () => sent - fastPathAnswers()

  beforeAll(async () => {
    fleet = await createFleet({ agents: 30, seed: 7, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
    // The whole app fleetsim serve answers with (faults, admin and metrics included), its fast path
    // switched by the test.
    answers = new AnswerCache(fleet)
    const built = await buildApp({ fleet, ca: CA, processMetrics: false, fastPath: () => fastPathOn, answers }, { user: 'admin', password: 'secret' })
    const { app, registry } = built
    harness = built.traffic
    fastPathAnswers = built.fastPathAnswers
    ;({ server, port } = await listen((req, res) => {
      sent++
      built.handler(req, res)
    }))
    metrics = () => registry.metrics()
    close = async () => {
      server.close()
      await app.close()
      await fleet.close()
    }
  })
  afterAll(() => close())
  beforeEach(() => {
    fastPathOn = true
    harness.journal.clear()
  })

  const agent = (k: number) => fleet.name(k)

  it.each([
    ['JSON by accept', `agentinfo?agentname=AGENT`, {}],
    ['XML by accept', `agentinfo?agentname=AGENT`, { accept: 'application/xml' }],
    ['the .json suffix', `agentinfo.json?agentname=AGENT`, {}],
    ['the .xml suffix', `agentinfo.xml?agentname=AGENT`, {}],
    ['modules', `agentinfo?agentname=AGENT&agentwithmodules=true`, {}],
    ['another Host', `agentinfo?agentname=AGENT`, { host: 'manager.example:9443' }],
    ['a large answer, journalled by its facts', `agentinfo?agentname=MANY&agentwithmodules=true`, {}]
  ])('sends a request (%s) what fastify sent, without fastify: built, then kept', async (label, query, headers) => {
    const many = Array.from({ length: 16 }, (_, k) => agent(12 + k)).join(',')
    const path = `${REST}/${query.replace('AGENT', agent(2)).replace('MANY', many)}`
    const before = routedNow()
    fastPathOn = false
    const first = await get(port, path, headers)
    answers.clear()
    fastPathOn = true
    // Built twice (the second time kept, the URL being asked for again), then sent from the cache.
    const built = await get(port, path, headers)
    const hits = answers.hits
    const builtAgain = await get(port, path, headers)
    const kept = await get(port, path, headers)
    expect(answers.hits).toBe(hits + 1)
    expect(first.status).toBe(200)
    if (label.startsWith('a large answer')) expect(first.body.length).toBeGreaterThan(LAZY_ANSWER_CHARS)
    expect(routedNow()).toBe(before + 1)
    for (const answer of [built, builtAgain, kept]) {
      expect(answer.body).toBe(first.body)
      for (const name of ['content-type', 'content-length']) expect(answer.headers[name]).toBe(first.headers[name])
    }
    const [fromFastify, ...fromFastPath] = harness.journal.entries()
    expect(fromFastPath).toHaveLength(3)
    for (const entry of fromFastPath) expect(callFacts(entry)).toEqual(callFacts(fromFastify))
    const fromBuilt = fromFastPath[0]
    expect(fromBuilt.agentStates.length).toBeGreaterThan(0)
  })

  it.each([
    ['ONLINE agents, JSON', `agentinfo?agentstate=ONLINE`, {}],
    ['every agent with modules, XML (a large answer, journalled by its facts)', `agentinfo.xml?agentwithmodules=true`, {}],
    ['an unknown parameter, which the journal reports', `agentinfo?agentstate=ONLINE&colour=blue`, {}]
  ])('sends a list (%s) fastify made and kept again, with the entry fastify made', async (label, query, headers) => {
    const path = `${REST}/${query}`
    const before = routedNow()
    const first = await get(port, path, headers)
    const kept = await get(port, path, headers)
    expect(first.status).toBe(200)
    expect(routedNow()).toBe(before + 1)
    expect(kept.body).toBe(first.body)
    expect(kept.headers['content-type']).toBe(first.headers['content-type'])
    if (label.includes('large')) expect(first.body.length).toBeGreaterThan(LAZY_ANSWER_CHARS)
    const [fromFastify, fromKept] = harness.journal.entries()
    expect(callFacts(fromKept)).toEqual(callFacts(fromFastify))
    if (label.includes('unknown')) expect(fromKept.violations.length).toBeGreaterThan(0)
  })

  it('sends text beyond ASCII with the length in bytes fastify sent', async () => {
    await fleet.modifyAgent(29, 'agent-ünïcödé-29', fleet.config(29))
    const path = `${REST}/agentinfo?agentname=${encodeURIComponent('agent-ünïcödé-29')}`
    const before = routedNow()
    const first = await get(port, path)
    await get(port, path)
    const kept = await get(port, path)
    // An encoded name is fastify's to decode: it answers the first two requests (the second is
    // kept, the URL being asked for again), and the fast path sends the third the kept answer.
    expect(routedNow()).toBe(before + 2)
    expect(kept.body).toBe(first.body)
    expect(kept.headers['content-length']).toBe(String(Buffer.byteLength(first.body)))
    expect(first.body).toContain('ünïcödé')
  })

  it('journals a URL longer than the journal keeps as fastify does: cut, with the rules of the whole', async () => {
    const path = `${REST}/agentinfo?agentname=${agent(5)}&pad=${'p'.repeat(URL_CAP)}&password=x`
    const before = routedNow()
    for (let k = 0; k < 3; k++) await get(port, path)
    // fastify answers the first two (the second is kept: asked for again), the fast path the third.
    expect(routedNow()).toBe(before + 2)
    const [fromFastify, , fromDoor] = harness.journal.entries()
    expect(callFacts(fromDoor)).toEqual(callFacts(fromFastify))
    expect(fromDoor.truncated).toEqual({ url: path.length })
    expect(fromDoor.violations.map((v) => v.rule)).toEqual(['unknown-parameter', 'credentials-in-query'])
  })

  it('counts its answers in the API metrics as fastify does', async () => {
    const path = `${REST}/agentinfo?agentname=${agent(3)}`
    const count = async () => {
      const line = (await metrics()).split('\n').find((l) => l.startsWith('fleetsim_http_request_duration_seconds_count{operation="agentinfo",method="GET",status="200"}'))
      return Number(line?.split(' ')[1] ?? 0)
    }
    const sizeSum = async () => Number((await metrics()).split('\n').find((l) => l.startsWith('fleetsim_http_response_size_bytes_sum{operation="agentinfo"}'))?.split(' ')[1] ?? 0)
    const [countBefore, sizeBefore, routedBefore] = [await count(), await sizeSum(), routedNow()]
    const first = await get(port, path)
    await get(port, path)
    expect(routedNow()).toBe(routedBefore)
    expect(await count()).toBe(countBefore + 2)
    expect(await sizeSum()).toBe(sizeBefore + 2 * Number(first.headers['content-length']))
  })

  it('hands over what it must not answer: bad credentials, other methods, bodies, other formats, the fast path switched off', async () => {
    const path = `${REST}/agentinfo?agentname=${agent(4)}`
    await get(port, path)
    const before = routedNow()
    expect((await get(port, path, { REST_PASSWORD: 'wrong' })).status).toBe(401)
    expect((await get(port, path, {}, 'POST')).status).toBe(405)
    expect((await get(port, path, { 'content-type': 'application/json' }, 'GET', '{}')).status).toBe(200)
    expect((await get(port, path, { accept: 'text/html' })).status).toBe(406)
    fastPathOn = false
    expect((await get(port, path)).status).toBe(200)
    expect(routedNow()).toBe(before + 5)
  })

  it('answers whatever it is sent as fastify does (300 random requests, fast path shut then open)', async () => {
    const names = [agent(10), `${agent(10)},${agent(11)}`, `,${agent(10)},,${agent(10)}`, `${agent(10)}%2C${agent(11)}`, `+${agent(10)}`, `${agent(10)}=x`, 'no-such-agent', '']
    const request = fc.record({
      method: fc.constantFrom('GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'POST'),
      operation: fc.constantFrom('agentinfo', 'agentinfo', 'agentinfo', 'agentinfo.json', 'agentinfo.xml', 'agentinfo.txt', 'agentinfox', 'agentinfo.jsonx'),
      name: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(names[0], names[1]) }, { weight: 1, arbitrary: fc.constantFrom(...names) }),
      // The query's other pairs, as the fast path reads them in place: repeated, empty, without `=`, unknown.
      modules: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('', '&agentwithmodules=true', '&agentwithmodules=false', '&agentwithmodules=yes') },
        { weight: 1, arbitrary: fc.constantFrom('&agentwithmodules', '&agentwithmodules=true&agentwithmodules=false', `&agentname=${agent(11)}`, '&agentname', '&', '&&agentwithmodules=true', '&=true', '&colour=blue') }
      ),
      accept: fc.constantFrom(undefined, 'application/json', 'application/json', 'application/xml', 'application/xml', 'text/html', '*/*', 'application/json;q=0.5, application/xml'),
      contentType: fc.constantFrom(undefined, 'application/json', 'application/xml'),
      password: fc.constantFrom('secret', 'secret', 'secret', 'secret', 'wrong', undefined),
      host: fc.constantFrom(undefined, 'manager.example:9443'),
      body: fc.constantFrom(undefined, undefined, undefined, undefined, '', '{}')
    })
    const routedBefore = routedNow()
    let pairs = 0
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = { REST_USER: 'admin' }
        if (r.password !== undefined) headers.REST_PASSWORD = r.password
        if (r.accept !== undefined) headers.accept = r.accept
        if (r.contentType !== undefined) headers['content-type'] = r.contentType
        if (r.host !== undefined) headers.host = r.host
        const path = `${REST}/${r.operation}?agentname=${r.name}${r.modules}`
        const send = () => get(port, path, headers, r.method, r.body, { credentials: false })
        fastPathOn = false
        const shut = await send()
        // Without the answer fastify kept, so the fast path builds what it answers.
        answers.clear()
        fastPathOn = true
        const open = await send()
        pairs += 2
        expect(open.status).toBe(shut.status)
        expect(open.body).toBe(shut.body)
        // Every header but the ones that name the moment or the connection.
        const { date: _openDate, ...openHeaders } = open.headers
        const { date: _shutDate, ...shutHeaders } = shut.headers
        expect(openHeaders).toEqual(shutHeaders)
        // The fast path journals each request as fastify did, also when the same answer was last
        // sent for other headers (its journal facts are shared between such requests).
        const [shutEntry, openEntry] = harness.journal.entries().slice(-2)
        expect(callFacts(openEntry)).toEqual(callFacts(shutEntry))
        expect(openEntry.id).toBe(shutEntry.id + 1)
      }),
      { seed: 20261122, numRuns: 300 }
    )
    // The fast path did answer some of them itself.
    expect(pairs - (routedNow() - routedBefore)).toBeGreaterThan(20)
  })

  it('leaves the kept answers alone for a request the route refuses: no hit, no stale answer dropped', async () => {
    const path = `${REST}/agentinfo?agentname=${agent(5)}`
    for (let k = 0; k < 3; k++) await get(port, path)
    const hits = answers.hits
    const kept = answers.size
    expect((await get(port, path, { REST_PASSWORD: 'wrong' })).status).toBe(401)
    expect((await get(port, path, {}, 'GET', undefined, { credentials: false })).status).toBe(401)
    expect(answers.hits).toBe(hits)
    expect(answers.size).toBe(kept)
    expect((await get(port, path)).status).toBe(200)
    expect(answers.hits).toBe(hits + 1)
  })

  it('answers anew once the agent has changed', async () => {
    const [index] = fleet.indices(new Set(['ONLINE']))
    const path = `${REST}/agentinfo?agentname=${fleet.name(index)}`
    expect(JSON.parse((await get(port, path)).body).values[0].content.status).toBe('ONLINE')
    await fleet.stopAgents([index])
    const before = routedNow()
    expect(JSON.parse((await get(port, path)).body).values[0].content.status).toBe('ERROR')
    expect(routedNow()).toBe(before)
  })
})

describe('the fast path of fleetsim serve', () => {
  async function serve(flags: string[], agents = 10) {
    const lines: string[] = []
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(...chunk.toString().trim().split('\n')), done()) })
    const config = parseServeConfig(['--user', 'admin', '--password', 'secret', ...flags], {})
    const fleet = await createFleet({ agents, seed: 7, workers: 1, paused: true, startTime: START, caFingerprint: CA.fingerprint })
    const { app, handler, traffic, fastPathAnswers } = await buildApp({ fleet, ca: CA, processMetrics: false, logger: createLogger(config.logLevel, { destination: sink }) }, config)
    const { server, port } = await listen(handler)
    const requestLines = () => lines.filter((line) => line.includes('request completed')).length
    return {
      fleet,
      port,
      requestLines,
      traffic,
      app,
      fastPathAnswers,
      async close() {
        server.close()
        await app.close()
        await fleet.close()
      }
    }
  }

  it('sends a long list fastify streamed again as kept, with the journal entry fastify made', async () => {
    const s = await serve(['--log-level', 'warn'], 1500)
    const path = `${REST}/agentinfo?agentstate=ONLINE`
    const made = await get(s.port, path)
    const kept = await get(s.port, path)
    expect(made.headers['transfer-encoding']).toBe('chunked')
    expect(kept.headers['content-length']).toBe(String(Buffer.byteLength(made.body)))
    expect(kept.body).toBe(made.body)
    expect(s.fastPathAnswers()).toBe(1)
    const [fromFastify, fromKept] = s.traffic.journal.entries()
    expect(callFacts(fromKept)).toEqual(callFacts(fromFastify))
    expect(fromKept.agentStates).toEqual(['ONLINE'])
    await s.close()
  })

  it('streams a long list and keeps nothing with --kept-answers-max-bytes 0', async () => {
    const s = await serve(['--log-level', 'warn', '--kept-answers-max-bytes', '0'], 1500)
    const path = `${REST}/agentinfo?agentstate=ONLINE`
    const first = await get(s.port, path)
    const second = await get(s.port, path)
    expect(first.headers['transfer-encoding']).toBe('chunked')
    expect(second.headers['transfer-encoding']).toBe('chunked')
    expect(second.body).toBe(first.body)
    expect(s.fastPathAnswers()).toBe(0)
    // A streamed list is journalled without reading it: its states were noted as it was written.
    expect(s.traffic.journal.entries()[0].agentStates).toEqual(['ONLINE'])
    await s.close()
  })

  it('hands fastify a list of more names than --max-list-items, repeated names counted, for its 400', async () => {
    const s = await serve(['--log-level', 'warn', '--max-list-items', '3'])
    const names = (k: number[]) => k.map((i) => s.fleet.name(i)).join(',')
    for (const list of [names([1, 2, 3, 4]), names([1, 1, 1, 1]), `${names([1, 2, 3])},,${names([4])}`]) {
      for (let k = 0; k < 3; k++) {
        const answer = await get(s.port, `${REST}/agentinfo?agentname=${list}`)
        expect(answer.status).toBe(400)
        expect(JSON.parse(answer.body)).toMatchObject({ errors: [{ code: 'E_TOO_MANY_ITEMS' }] })
      }
    }
    // Three names, empty ones not counted, are answered.
    expect((await get(s.port, `${REST}/agentinfo?agentname=${names([1, 2])},,${names([3])}`)).status).toBe(200)
    expect(s.fastPathAnswers()).toBe(1)
    await s.close()
  })

  it('is shut while every request is a log line (info), so each one gets its line', async () => {
    const s = await serve(['--log-level', 'info'])
    const path = `${REST}/agentinfo?agentname=${s.fleet.name(1)}`
    await get(s.port, path)
    await get(s.port, path)
    expect(s.requestLines()).toBe(2)
    await s.close()
  })

  it('is shut in strict mode, so a repeated call that breaks a rule is refused', async () => {
    const s = await serve(['--log-level', 'warn', '--strict'])
    const path = `${REST}/agentinfo.json?agentname=${s.fleet.name(1)}`
    expect((await get(s.port, path)).status).toBe(200)
    const conflicting = await get(s.port, path, { accept: 'application/xml' })
    expect(conflicting.status).toBe(400)
    expect(conflicting.body).toContain('E_STRICT_SUFFIX_ACCEPT_CONFLICT')
    await s.close()
  })
})
