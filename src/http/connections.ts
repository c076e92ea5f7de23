/**
 * The server's connections from accept to close, below HTTP:
 * - at accept, a limit per client address (--max-connections-per-client): past it the socket is
 *   destroyed before TLS or HTTP spends anything on it, so one client's idle sockets cannot
 *   take every connection the server has (--max-connections counts everyone's);
 * - on the HTTPS port, the first bytes decide whether the connection speaks TLS (tls-probe.ts),
 *   and a connection that has not completed its TLS handshake within `handshakeMs` of accept is
 *   destroyed (a TCP health check, a port scanner, a client that connects and waits); one that
 *   began with a load balancer's PROXY protocol header has its TLS socket marked, and its
 *   requests refused (proxy-protocol.ts);
 * - a connection whose client stopped reading its answer is reset after `sendMs` without
 *   progress (Node's request and headers timeouts end once the request is read, and such a
 *   client held its connection, and its place under --max-connections, for as long as it liked);
 * - plain HTTP, with `endedMs`: a client that shuts its side of the connection after its request
 *   (`printf 'GET …' | nc -N`, a script that closes its output) gets its answers, then the
 *   connection closes, and at most `endedMs` after its side ended (answerHalfClosed);
 * - at --max-connections, a connection idle between requests makes room for a new one
 *   (`reclaimIdle`, called by markConnections, limits.ts): closed, the one idle longest, rather
 *   than the new one refused, as nginx reuses its idle keep-alive connections when it runs out;
 * - at shutdown (`close`), connections without a request in flight (idle keep-alive ones,
 *   half-open ones that never finished TLS or a request head) are destroyed at once, the others
 *   as soon as their answers are sent, and whatever is left when the grace period ends.
 *
 * After TLS, the time to send a request head is Node's --headers-timeout, answered with 408 by
 * the client-error handler (client-errors.ts), which then destroys the connection too.
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { markProxied, type ProxyVersion } from './proxy-protocol.js'
import { probeFirstBytes } from './tls-probe.js'
import { isLingering } from './lingering-close.js'

export interface ConnectionOptions {
  /** connections one remote address may hold at once, counted from accept */
  perClient: number
  /** ms an answer may wait on a client that reads none of it before the connection is reset */
  sendMs: number
  /** HTTPS only: ms from accept to a completed TLS handshake; undefined for plain HTTP */
  handshakeMs?: number
  /** plain HTTP only: ms a connection whose client ended its side waits for its answers (answerHalfClosed) */
  endedMs?: number
  /**
   * Told how many connections the per-client limit refused, and from which addresses (the
   * first few), at most once per REFUSALS_REPORT_MS: a flood is one log line, not thousands.
   */
  onRefused?: (report: { refused: number; addresses: string[] }) => void
}

export interface Connections {
  /** open connections, counted from accept (TLS handshakes included) */
  open(): number
  /**
   * Closes the connection idle the longest between requests, to make room for a new one; whether
   * there was one. Idle: served before, nothing in flight or still to send, not a byte read since
   * its last answer, for RECLAIM_IDLE_MS at least, and not closing already (a connection ending
   * after a `Connection: close` answer, or lingering, frees no more room when picked again). Its
   * client sees it close (FIN) as at the keep-alive timeout, with the same race: a request it
   * sends at that moment is lost, and a client retries an idempotent one on a new connection.
   */
  reclaimIdle(): boolean
  /**
   * Stops accepting, destroys the connections without a request in flight, waits for the
   * others' answers for at most `graceMs`, then destroys whatever is left. Resolves once every
   * connection is closed.
   */
  close(graceMs: number): Promise<void>
}

interface Connection {
  /** the accepted TCP socket */
  readonly raw: Socket
  /** the socket HTTP reads: `raw` for plain HTTP, the TLS socket once the handshake is done */
  http: Socket | undefined
  /** requests received on it and not yet answered */
  inFlight: number
  /** whether a request was received on it: before the first, its time is --headers-timeout's business */
  served: boolean
  /** when its last answer left with none in flight after it (performance.now()) */
  idleSince: number
  /** `raw.bytesRead` then: more since means a next request is coming in */
  bytesAtIdle: number
  /** closed by reclaimIdle, which does not pick it again */
  reclaimed: boolean
  /** HTTPS: it began with a PROXY protocol header of this version (tls-probe.ts), its requests are refused */
  proxied?: ProxyVersion
}

/**
 * Answers clients that shut their side of the connection after their request. Node's default
 * aborts the requests in flight when the client's side ends, so any answer not sent in the turn
 * that read the request (a list, anything fastify answers after an await) was lost. With
 * `httpAllowHalfOpen` Node marks the last response in flight to end the connection once sent, or
 * ends it at once if none is (lib/_http_server.js, socketOnEnd). Undocumented, but read by Node's
 * HTTP server since its early versions and set by its own tests.
 *
 * A client that gave up (a timeout, a closed script) ends its side the same way, and its answer
 * may be long in coming (an update waiting on a paused clock, a fault rule's latency): such a
 * connection is destroyed `endedMs` after its client's side ended (trackConnections), so it cannot
 * hold its place under --max-connections-per-client until its answer comes, which on a paused
 * clock was never.
 *
 * Plain HTTP only: over TLS the connection's socket ends both sides when the client's ends,
 * unless the TLS server is made with `allowHalfOpen`, and then every client that hangs up before
 * or during the handshake (a port scanner, a load balancer's TCP check) left its socket open
 * until the handshake timeout. A TLS client that half-closes is rare: `openssl s_client` stops
 * reading when its input ends.
 */
function answerHalfClosed(server: Server): void {
  ;(server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true
}

const ignore = (): void => undefined
/**
 * How long a connection must have been idle to be closed for a new one: a client's pool reuses a
 * connection it has just used at once, and closed under it, the request it was sending is lost.
 */
const RECLAIM_IDLE_MS = 1000

/** Whether reclaimIdle may close a connection: idle between requests since before `idleBefore`, and open for more. */
function isIdle(connection: Connection, idleBefore: number): boolean {
  const http = connection.http
  return (
    http !== undefined &&
    connection.served &&
    !connection.reclaimed &&
    connection.inFlight === 0 &&
    connection.idleSince <= idleBefore &&
    connection.raw.bytesRead === connection.bytesAtIdle &&
    http.writable &&
    http.writableLength === 0 &&
    !isLingering(http)
  )
}

/** How often refusals are reported, and how many addresses a report names at most. */
const REFUSALS_REPORT_MS = 10_000
const REFUSALS_ADDRESSES = 10

/**
 * Takes over the server's 'connection' event (the listeners already there, HTTP's or TLS's, get
 * each connection once it is admitted) and tracks every connection until it closes. Call it
 * after every other 'connection' listener is in place.
 */
export function trackConnections(server: Server, options: ConnectionOptions): Connections {
  const { perClient, sendMs, handshakeMs, endedMs, onRefused } = options
  if (endedMs !== undefined) answerHalfClosed(server)
  const inner = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')
  const handOver = (raw: Socket) => {
    for (const listener of inner) listener.call(server, raw)
  }

  const all = new Set<Connection>()
  const perAddress = new Map<string, number>()
  const byHttpSocket = new WeakMap<Socket, Connection>()
  // Until its handshake is done, an HTTPS connection is known by its peer's address and port:
  // the TLS socket reports the same ones, and no other open connection to this port has them.
  const handshaking = new Map<string, { connection: Connection; deadline: NodeJS.Timeout }>()
  let closing = false
  /** resolves close() once the last connection has closed */
  let drained: (() => void) | undefined

  let refused = 0
  const refusedFrom = new Set<string>()
  let refusalsReport: NodeJS.Timeout | undefined
  const refuse = (raw: Socket, address: string) => {
    raw.destroy()
    if (onRefused === undefined) return
    refused++
    if (refusedFrom.size < REFUSALS_ADDRESSES) refusedFrom.add(address)
    refusalsReport ??= setTimeout(() => {
      onRefused({ refused, addresses: [...refusedFrom] })
      refused = 0
      refusedFrom.clear()
      refusalsReport = undefined
    }, REFUSALS_REPORT_MS).unref()
  }

  /** Destroys a connection from its top: the TLS socket takes its TCP socket with it. */
  const destroy = (connection: Connection) => (connection.http ?? connection.raw).destroy()

  server.on('connection', (raw: Socket) => {
    const address = raw.remoteAddress
    if (closing || address === undefined) {
      raw.destroy()
      return
    }
    const held = perAddress.get(address) ?? 0
    if (held >= perClient) {
      refuse(raw, address)
      return
    }
    perAddress.set(address, held + 1)
    const connection: Connection = { raw, http: undefined, inFlight: 0, served: false, idleSince: 0, bytesAtIdle: 0, reclaimed: false }
    all.add(connection)
    const peer = `${address} ${raw.remotePort}`
    raw.once('close', () => {
      all.delete(connection)
      if (all.size === 0) drained?.()
      const left = (perAddress.get(address) ?? 1) - 1
      if (left === 0) perAddress.delete(address)
      else perAddress.set(address, left)
      const pending = handshaking.get(peer)
      if (pending?.connection === connection) {
        clearTimeout(pending.deadline)
        handshaking.delete(peer)
      }
    })
    if (handshakeMs === undefined) {
      connection.http = raw
      byHttpSocket.set(raw, connection)
      if (endedMs !== undefined) {
        raw.once('end', () => {
          const deadline = setTimeout(() => raw.destroy(), endedMs).unref()
          raw.once('close', () => clearTimeout(deadline))
        })
      }
      handOver(raw)
      return
    }
    // Until TLS owns the socket, its errors (a reset during the probe) are nobody else's.
    raw.on('error', ignore)
    const deadline = setTimeout(() => raw.destroy(), handshakeMs)
    deadline.unref()
    handshaking.set(peer, { connection, deadline })
    probeFirstBytes(raw, {
      tls: (proxied) => {
        if (proxied !== undefined) connection.proxied = proxied
        handOver(raw)
      }
    })
  })

  if (handshakeMs !== undefined) {
    server.on('secureConnection', (socket: Socket) => {
      const peer = `${socket.remoteAddress} ${socket.remotePort}`
      const pending = handshaking.get(peer)
      if (pending === undefined) return
      clearTimeout(pending.deadline)
      handshaking.delete(peer)
      pending.connection.http = socket
      byHttpSocket.set(socket, pending.connection)
      // Its requests are answered with E_PROXY_PROTOCOL (refuseProxiedRequests).
      if (pending.connection.proxied !== undefined) markProxied(socket, pending.connection.proxied)
    })
  }

  // Prepended, so the count is up before the handler (which may answer at once) runs.
  server.prependListener('request', (request, response) => {
    const connection = byHttpSocket.get(request.socket)
    if (connection === undefined) return
    connection.inFlight++
    connection.served = true
    // The response's own 'close' is enough here, unlike the in-flight gauge (lib/response-done.ts):
    // a pipelined response dropped unsent when its client leaves never closes, but its count goes
    // with the connection, which closes with it.
    response.once('close', () => {
      connection.inFlight--
      if (connection.inFlight === 0) {
        connection.idleSince = performance.now()
        connection.bytesAtIdle = connection.raw.bytesRead
      }
      // At shutdown a connection goes once its last answer has left: end() flushes, then closes.
      if (closing && connection.inFlight === 0) connection.http?.destroySoon()
    })
  })

  // Node fires the socket timeout after this long without a byte going either way (it holds it
  // off while written bytes still leave) while a request is answered, and after the keep-alive
  // timeout between requests. With a listener, Node no longer destroys the socket itself.
  server.timeout = sendMs
  server.on('timeout', (socket: Socket) => {
    const connection = byHttpSocket.get(socket)
    // Before its first request the socket's timeout is this one too: a connection opened ahead
    // of its request (a pool's) is left to --headers-timeout and its 408, not cut without a word
    // when --send-timeout is the shorter.
    if (connection !== undefined && !connection.served) return
    // Idle: Node's own case, closed.
    if (connection === undefined || connection.inFlight === 0) return void socket.destroy()
    // An answer still in flight with nothing waiting to leave keeps its connection: an update
    // held by a paused clock, an event stream with nothing to say.
    if (!socket.writableNeedDrain && socket.writableLength === 0) return
    // A client that stopped reading: reset, not closed. A closed socket keeps the answer's unsent
    // bytes in the kernel, in FIN-WAIT-1, for as long as the client keeps its window shut (as
    // nginx's reset_timedout_connection, a reset frees them at once).
    connection.raw.resetAndDestroy()
    socket.destroy()
  })

  return {
    open: () => all.size,
    reclaimIdle: () => {
      const idleBefore = performance.now() - RECLAIM_IDLE_MS
      let oldest: Connection | undefined
      for (const connection of all) {
        if (!isIdle(connection, idleBefore)) continue
        if (oldest === undefined || connection.idleSince < oldest.idleSince) oldest = connection
      }
      if (oldest === undefined) return false
      oldest.reclaimed = true
      // Nothing unread and nothing to send: FIN, then closed.
      oldest.http?.destroySoon()
      return true
    },
    close: async (graceMs) => {
      closing = true
      clearTimeout(refusalsReport)
      // The listener closes once Node counts no connection; each one's 'close' (below) comes a
      // little later, so both are awaited.
      const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()))
      const allClosed = all.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve))
      for (const connection of all) if (connection.inFlight === 0) destroy(connection)
      const grace = setTimeout(() => {
        for (const connection of all) destroy(connection)
      }, graceMs)
      grace.unref()
      await Promise.all([listenerClosed, allClosed])
      clearTimeout(grace)
    }
  }
}
