/**
 * The console's live updates: one Server-Sent Events stream per open page
 * (`GET /console/api/events`), fed by topics.
 *
 * The hub ticks at most every TICK_MS (4 times a second) and only while at least one client is
 * connected; on each tick every client's readers are asked for what changed since they last
 * sent, and only that goes out. So an event goes out when something changed, at a bounded rate,
 * whatever the request rate; a page that goes away (its socket closes) is dropped at once, and
 * the timer stops with the last client. A comment line every HEARTBEAT_MS keeps proxies from
 * closing a quiet stream.
 *
 * Adding to the stream (e.g. journal entries): write a StreamTopic and pass it to `addTopic`
 * before clients connect (the console plugin does so for its topics). `subscribe()` is called
 * once per client and returns that client's reader; the reader is called on every tick with
 * the tick number and returns the event's data (sent as JSON under the topic's event name),
 * or undefined when this client has seen everything. Work shared by all clients (a query of
 * the fleet) can be memoised per tick number; a client's own position (the last journal entry
 * it was sent) lives in the reader's closure. A client may ask for a subset of topics with
 * `?topics=fleet,journal`; by default it gets all of them.
 */
import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'

/** Shortest wall time between two ticks: at most four events per topic per second. */
export const TICK_MS = 250
/** A comment line this often keeps idle proxies from closing the stream. */
export const HEARTBEAT_MS = 15_000
/** How long a browser waits before reconnecting after the stream broke. */
const RETRY_MS = 2000

export interface StreamTopic {
  /** the SSE event name, e.g. `fleet` */
  readonly event: string
  /** a new client's reader: what to send on this tick, or undefined for nothing new */
  subscribe(): (tick: number) => unknown
}

interface Client {
  readonly response: ServerResponse
  readonly readers: Array<{ event: string; read: (tick: number) => unknown }>
  lastWrite: number
  /** whether the client may still be sent events (its session is live); absent: for as long as it listens */
  readonly allowed: (() => boolean) | undefined
}

export interface EventHubOptions {
  /** wall ms between ticks; 0: no timer, the owner calls tick() (tests) */
  tickMs?: number
  /** wall clock, epoch ms */
  now?: () => number
}

/** The head of a stream's answer (and of HEAD's, which gets no stream). */
export const STREAM_HEAD = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // Reverse proxies (nginx) would otherwise buffer the stream.
  'x-accel-buffering': 'no',
  connection: 'keep-alive'
})

/** Emits 'attach' and 'detach' (with the number of clients left) as clients come and go. */
export class EventHub extends EventEmitter<{ attach: [clients: number]; detach: [clients: number] }> {
  private readonly topics = new Map<string, StreamTopic>()
  private readonly clients = new Set<Client>()
  private timer: NodeJS.Timeout | undefined
  private tickNumber = 0
  private closed = false
  private readonly tickMs: number
  private readonly now: () => number

  constructor(options: EventHubOptions = {}) {
    super()
    this.tickMs = options.tickMs ?? TICK_MS
    this.now = options.now ?? Date.now
  }

  addTopic(topic: StreamTopic): void {
    if (this.topics.has(topic.event)) throw new Error(`the console stream already has a topic "${topic.event}"`)
    this.topics.set(topic.event, topic)
  }

  topicNames(): string[] {
    return [...this.topics.keys()]
  }

  /** Clients connected now. */
  clientCount(): number {
    return this.clients.size
  }

  /** Whether the tick timer is running (it runs only while clients are connected). */
  ticking(): boolean {
    return this.timer !== undefined
  }

  /**
   * Streams to this response until it closes: writes the SSE head, sends every topic's current
   * state at once (a page shows its figures without waiting for a tick), then what changes.
   * `allowed`: asked at every tick; once it says no (the session that opened the stream ended or
   * expired), the stream is ended, and the page's reconnection meets the login.
   */
  attach(response: ServerResponse, topics: readonly string[] = this.topicNames(), allowed?: () => boolean): void {
    if (this.closed) {
      response.writeHead(503).end()
      return
    }
    response.writeHead(200, STREAM_HEAD)
    response.write(`retry: ${RETRY_MS}\n\n`)
    const readers = topics.flatMap((name) => {
      const topic = this.topics.get(name)
      return topic === undefined ? [] : [{ event: name, read: topic.subscribe() }]
    })
    const client: Client = { response, readers, lastWrite: this.now(), allowed }
    this.clients.add(client)
    // 'close' fires when the browser goes away or the response is ended: either way, forget it.
    response.on('close', () => this.detach(client))
    this.send(client, this.tickNumber)
    this.start()
    this.emit('attach', this.clients.size)
  }

  /** Ends every stream and stops the timer; later attachments are refused. */
  close(): void {
    this.closed = true
    for (const client of [...this.clients]) client.response.end()
    this.stop()
  }

  /** One tick: every client gets what changed for it. Exposed for tests that drive the hub. */
  tick(): void {
    this.tickNumber++
    const now = this.now()
    for (const client of this.clients) {
      // Ended, it is forgotten on its 'close' (a Set deletes safely while iterated).
      if (client.allowed?.() === false) {
        client.response.end()
        continue
      }
      // A client that cannot keep up is skipped: its reader still knows what it has not sent.
      if (client.response.writableNeedDrain) continue
      this.send(client, this.tickNumber)
      if (now - client.lastWrite >= HEARTBEAT_MS) this.write(client, ': keep-alive\n\n')
    }
  }

  private send(client: Client, tick: number): void {
    for (const { event, read } of client.readers) {
      const data = read(tick)
      if (data !== undefined) this.write(client, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    }
  }

  private write(client: Client, text: string): void {
    client.lastWrite = this.now()
    client.response.write(text)
  }

  private detach(client: Client): void {
    if (!this.clients.delete(client)) return
    if (this.clients.size === 0) this.stop()
    this.emit('detach', this.clients.size)
  }

  private start(): void {
    if (this.timer !== undefined || this.clients.size === 0 || this.tickMs === 0) return
    this.timer = setInterval(() => this.tick(), this.tickMs)
    // The stream is no reason to keep the process alive.
    this.timer.unref()
  }

  private stop(): void {
    if (this.timer === undefined) return
    clearInterval(this.timer)
    this.timer = undefined
  }
}
