import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { trackConnections, type Connections } from '../../src/http/connections.js'

let server: Server | undefined
let connections: Connections | undefined
const sockets: Socket[] = []

afterEach(async () => {
  vi.useRealTimers()
  for (const socket of sockets.splice(0)) socket.destroy()
  await connections?.close(0)
  server = undefined
  connections = undefined
})

/** A plain HTTP server on 127.0.0.1 whose connections are tracked; its port. */
async function listen(options: Parameters<typeof trackConnections>[1]): Promise<number> {
  server = createServer((_request, response) => response.end('ok'))
  connections = trackConnections(server, options)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return (server.address() as { port: number }).port
}

async function open(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port })
  socket.on('error', () => undefined)
  sockets.push(socket)
  await once(socket, 'connect')
  return socket
}

describe('trackConnections', () => {
  it('refuses connections past the per-client limit at accept and reports them once per ten seconds, not once each', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const reports: { refused: number; addresses: string[] }[] = []
    const port = await listen({ perClient: 2, sendMs: 60_000, onRefused: (report) => reports.push(report) })
    await open(port)
    await open(port)
    await vi.waitFor(() => expect(connections!.open()).toBe(2))
    const refused = await Promise.all([open(port), open(port), open(port)])
    await Promise.all(refused.map((socket) => (socket.destroyed ? undefined : once(socket, 'close'))))
    expect(connections!.open()).toBe(2)
    expect(reports).toEqual([])
    vi.advanceTimersByTime(10_000)
    expect(reports).toEqual([{ refused: 3, addresses: ['127.0.0.1'] }])
  })

  it('closes idle connections at once on close, without waiting for the grace period', async () => {
    const port = await listen({ perClient: 10, sendMs: 60_000 })
    const idle = await Promise.all([open(port), open(port)])
    await vi.waitFor(() => expect(connections!.open()).toBe(2))
    const closed = idle.map((socket) => once(socket, 'close'))
    // A grace far beyond the test's time: only idle connections closing at once lets this end.
    await connections!.close(600_000)
    await Promise.all(closed)
    expect(connections!.open()).toBe(0)
  })
})
