/**
 * The console's live stream (Server-Sent Events at /console/api/events): the first event has
 * what a page shows at once, later ones only what changed, at most one per topic and tick
 * whatever the number of requests changing the fleet, and a client that goes away is
 * forgotten with nothing left running for it.
 */
import { once } from 'node:events'
import { get, type ClientRequest, type IncomingMessage } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EventHub, type StreamTopic } from '../../src/console/stream.js'
import type { FleetEvent } from '../../src/console/fleet-topic.js'
import { BASIC, PASSWORD, USER, consoleHarness, fakeResponse, json, rest, sessionOf, type ConsoleHarness } from './helpers.js'
import { admin } from '../admin/helpers.js'

interface SseEvent {
  event: string
  data: unknown
}

/** An open stream: its events as they arrive, and a way to wait for the next ones. */
class StreamClient {
  readonly events: SseEvent[] = []
  private buffer = ''
  private waiting: Array<() => void> = []
  ended = false

  constructor(
    readonly request: ClientRequest,
    readonly response: IncomingMessage
  ) {
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      this.buffer += chunk
      let at: number
      while ((at = this.buffer.indexOf('\n\n')) !== -1) {
        const block = this.buffer.slice(0, at)
        this.buffer = this.buffer.slice(at + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (event !== undefined && data !== undefined) this.events.push({ event, data: JSON.parse(data) })
      }
      for (const wake of this.waiting.splice(0)) wake()
    })
    response.on('end', () => {
      this.ended = true
      for (const wake of this.waiting.splice(0)) wake()
    })
  }

  /** Resolves once `count` events have arrived (or the stream ended). */
  async upTo(count: number): Promise<SseEvent[]> {
    while (this.events.length < count && !this.ended) await new Promise<void>((resolve) => this.waiting.push(resolve))
    return this.events
  }

  /** Resolves with the first event (from `from` on) that passes `test`. */
  async until(test: (event: SseEvent) => boolean, from = 0): Promise<SseEvent> {
    for (let k = from; ; k++) {
      const events = await this.upTo(k + 1)
      if (events.length <= k) throw new Error('the stream ended')
      if (test(events[k])) return events[k]
    }
  }
}

async function openStream(origin: string, query = ''): Promise<StreamClient> {
  const request = get(`${origin}/console/api/events${query}`, { headers: { authorization: BASIC } })
  const [response] = (await once(request, 'response')) as [IncomingMessage]
  return new StreamClient(request, response)
}

const activeTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length

describe('the console stream', () => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await consoleHarness({ scenario: 'scenarios/mass-outage-recovery.yaml' })
  })
  afterAll(async () => {
    await h?.close()
  })

  it('starts with the counts GET /__admin/fleet gives, the clock and the whole chart', async () => {
    const client = await openStream(h.origin)
    expect(client.response.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    const [first] = await client.upTo(1)
    expect(first.event).toBe('fleet')
    const data = first.data as FleetEvent
    const fleet = json<{ agents: number; byState: Record<string, number> }>(await admin(h.app, 'GET', '/fleet'))
    expect({ agents: data.summary.agents, byState: data.summary.byState }).toEqual({ agents: fleet.agents, byState: fleet.byState })
    expect(data.summary).toMatchObject({ virtualMs: h.engine.now(), paused: true, speed: 1, scenario: 'mass-outage-recovery', lockedOut: false })
    expect(data.series?.seconds.at(-1)).toBe(h.engine.second())
    expect(data.series?.startTime).toBe(h.engine.clock.epochMs)
    client.request.destroy()
  })

  it('sends what changed: an advance brings the new time, samples of the chart and the timeline event', async () => {
    const client = await openStream(h.origin)
    await client.upTo(1)
    const before = h.engine.now()
    await admin(h.app, 'POST', '/clock/advance', { seconds: '15m' })
    const next = (await client.until((e) => e.event === 'fleet' && (e.data as FleetEvent).summary.virtualMs === before + 900_000, 1)).data as FleetEvent
    expect(next.series).toBeUndefined()
    const events = next.samples?.flatMap((s) => s.events ?? []) ?? []
    expect(events).toContainEqual({ second: 600, label: 'datacentre-outage (offline)' })
    expect(next.summary.byState.OFFLINE).toBeGreaterThan(0)
    client.request.destroy()
  })

  it('takes only the topics a page asks for, and refuses one it does not have rather than stream nothing', async () => {
    const refused = await h.app.inject({ url: '/console/api/events?topics=fleet,nothing-of-that-name', headers: { authorization: BASIC } })
    expect(refused.statusCode).toBe(400)
    expect(json<{ errors: Array<{ code: string; message: string }> }>(refused).errors[0]).toMatchObject({ code: 'E_NOT_IN_ENUM', message: 'The query parameter "topics" must be one of "fleet", "journal", got "nothing-of-that-name".' })
    const fleet = await openStream(h.origin, '?topics=fleet')
    await admin(h.app, 'POST', '/clock/advance', { seconds: 5 })
    await fleet.upTo(2)
    expect(new Set(fleet.events.map((e) => e.event))).toEqual(new Set(['fleet']))
    fleet.request.destroy()
  })

  it('takes a topic named many times once, and answers HEAD with the stream\'s head and no stream', async () => {
    const hub = h.built.streams
    while (hub.clientCount() > 0) await once(hub, 'detach')
    const many = await openStream(h.origin, `?topics=${Array.from({ length: 1000 }, () => 'fleet').join(',')}`)
    await admin(h.app, 'POST', '/clock/advance', { seconds: 5 })
    await many.upTo(2)
    // One fleet event a tick, not one per time the topic was named.
    const firstTwo = many.events.slice(0, 2).map((e) => e.event)
    expect(firstTwo).toEqual(['fleet', 'fleet'])
    expect((many.events[1].data as FleetEvent).summary.virtualMs).not.toBe((many.events[0].data as FleetEvent).summary.virtualMs)
    many.request.destroy()
    while (hub.clientCount() > 0) await once(hub, 'detach')
    const head = await h.app.inject({ method: 'HEAD', url: '/console/api/events', headers: { authorization: BASIC } })
    expect(head.statusCode).toBe(200)
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(head.body).toBe('')
    // The GET's answer has no end: a HEAD says no length (RFC 9110 8.6), where it said 0.
    expect(head.headers['content-length']).toBeUndefined()
    expect(hub.clientCount()).toBe(0)
  })

  it('ends a stream opened with a session when the session ends (log-out), and keeps one opened with Basic', async () => {
    const login = await h.app.inject({
      method: 'POST',
      url: '/console/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ user: USER, password: PASSWORD }).toString()
    })
    const cookie = sessionOf(login)
    const request = get(`${h.origin}/console/api/events?topics=fleet`, { headers: { cookie } })
    const [response] = (await once(request, 'response')) as [IncomingMessage]
    expect(response.statusCode).toBe(200)
    const ended = once(response, 'end')
    response.resume()
    const basic = await openStream(h.origin, '?topics=fleet')
    h.built.streams.tick()
    expect(response.readableEnded).toBe(false)
    await h.app.inject({ method: 'POST', url: '/console/logout', headers: { cookie, 'x-fleetsim-console': '1' } })
    h.built.streams.tick()
    await ended
    h.built.streams.tick()
    expect(basic.ended).toBe(false)
    basic.request.destroy()
  })

  it('forgets a page that goes away, and stops ticking with the last one, leaving no timer behind', async () => {
    const hub = h.built.streams
    while (hub.clientCount() > 0) await once(hub, 'detach')
    const timersBefore = activeTimers()
    const clients = await Promise.all([openStream(h.origin), openStream(h.origin), openStream(h.origin)])
    await Promise.all(clients.map((c) => c.upTo(1)))
    expect(hub.clientCount()).toBe(3)
    expect(hub.ticking()).toBe(true)
    for (const client of clients) client.request.destroy()
    while (hub.clientCount() > 0) await once(hub, 'detach')
    expect(hub.ticking()).toBe(false)
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore)
  })

  it('ends every stream when the app closes', async () => {
    const other = await consoleHarness({ agents: 10 })
    const client = await openStream(other.origin)
    await client.upTo(1)
    await other.close()
    await client.upTo(Infinity)
    expect(client.ended).toBe(true)
  })
})

describe('the stream hub', () => {
  it('sends at most one event per topic and tick, however often the topic changed in between', () => {
    let version = 0
    const topic: StreamTopic = {
      event: 'counter',
      subscribe() {
        let sent = -1
        return () => {
          if (version === sent) return undefined
          sent = version
          return { version }
        }
      }
    }
    const hub = new EventHub({ tickMs: 0 })
    hub.addTopic(topic)
    const response = fakeResponse()
    hub.attach(response)
    for (let k = 0; k < 100; k++) version++
    hub.tick()
    hub.tick()
    for (let k = 0; k < 50; k++) version++
    hub.tick()
    const events = response.text().match(/^event: counter$/gm) ?? []
    // The first state, one event for the first hundred changes, none for a quiet tick, one for the next fifty.
    expect(events.length).toBe(3)
    expect(response.text()).toContain('data: {"version":150}')
    hub.close()
  })

  it('sends a fleet event per tick at most while REST requests stop agents', async () => {
    const h = await consoleHarness({ agents: 200, listen: false })
    try {
      const hub = new EventHub({ tickMs: 0 })
      const { fleetTopic } = await import('../../src/console/fleet-topic.js')
      const { FleetHistory } = await import('../../src/console/fleet-history.js')
      hub.addTopic(fleetTopic(h.engine, new FleetHistory(h.engine)))
      const response = fakeResponse()
      hub.attach(response)
      const uuids = [...h.engine.indices()].slice(0, 20).map((i) => h.engine.uuid(i))
      for (const uuid of uuids) expect((await rest(h.app, 'POST', `stopagent?agentUuids=${uuid}`)).statusCode).toBe(200)
      hub.tick()
      const events = response.text().match(/^event: fleet$/gm) ?? []
      expect(events.length).toBe(2)
      hub.close()
    } finally {
      await h.close()
    }
  })
})
