import type { Socket } from 'node:net'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { proxyHeader, startsWithProxySignature } from '../../src/http/proxy-protocol.js'
import { probeFirstBytes } from '../../src/http/tls-probe.js'

const V1 = Buffer.from('PROXY TCP4 192.0.2.1 198.51.100.1 51234 443\r\n', 'latin1')
const V2 = Buffer.concat([Buffer.from('0d0a0d0a000d0a515549540a2111000c', 'hex'), Buffer.alloc(12, 7)])
const CLIENT_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x00, 0xc8, 0x01])

describe('proxyHeader', () => {
  it('finds a whole version 1 or 2 header and its length', () => {
    expect(proxyHeader(Buffer.concat([V1, CLIENT_HELLO]))).toEqual({ version: 1, length: V1.length })
    expect(proxyHeader(Buffer.concat([V2, CLIENT_HELLO]))).toEqual({ version: 2, length: 28 })
  })

  it('says partial for the beginning of one, signature or line cut anywhere', () => {
    for (const cut of [1, 5, 6, V1.length - 1]) expect(proxyHeader(V1.subarray(0, cut)), `v1 ${cut}`).toEqual({ version: 1, length: 'partial' })
    for (const cut of [1, 11, 12, 15, 16, 27]) expect(proxyHeader(V2.subarray(0, cut)), `v2 ${cut}`).toEqual({ version: 2, length: 'partial' })
  })

  it('says malformed for a version 1 line without its end within 107 bytes', () => {
    expect(proxyHeader(Buffer.from(`PROXY ${'x'.repeat(200)}`, 'latin1'))).toEqual({ version: 1, length: 'malformed' })
  })

  it('tells a whole signature from the beginning of one (an unreadable request that starts with "PRO" is not a PROXY header)', () => {
    expect(startsWithProxySignature(V1.subarray(0, 6))).toBe(true)
    expect(startsWithProxySignature(V2.subarray(0, 12))).toBe(true)
    expect(startsWithProxySignature(Buffer.from('PROX'))).toBe(false)
    expect(startsWithProxySignature(V2.subarray(0, 11))).toBe(false)
  })

  it('finds none before a request, a TLS record or nothing', () => {
    for (const bytes of ['GET / HTTP/1.1\r\n', 'PROPFIND / HTTP/1.1\r\n', 'POST / HTTP/1.1\r\n', '\r\n\r\nGET']) expect(proxyHeader(Buffer.from(bytes)), bytes).toBeUndefined()
    expect(proxyHeader(CLIENT_HELLO)).toBeUndefined()
  })
})

describe('probeFirstBytes after a PROXY protocol header', () => {
  /** Feeds `pieces` one by one; what the probe hands to TLS, and the bytes left for it to read. */
  async function probe(pieces: Buffer[]): Promise<{ proxied: number | undefined; unread: Buffer } | undefined> {
    const socket = new PassThrough()
    let handed: { proxied: number | undefined } | undefined
    probeFirstBytes(socket as unknown as Socket, { tls: (proxied) => (handed = { proxied }) })
    for (const piece of pieces) {
      socket.write(piece)
      await new Promise((resolve) => setImmediate(resolve))
    }
    return handed === undefined ? undefined : { ...handed, unread: (socket.read() as Buffer | null) ?? Buffer.alloc(0) }
  }

  it('takes the header off, however it is cut, and hands the client\'s bytes to TLS with its version', async () => {
    for (const [version, header] of [[1, V1], [2, V2]] as const) {
      const whole = Buffer.concat([header, CLIENT_HELLO])
      for (const cuts of [[], [3], [header.length], [2, 13, header.length + 2]]) {
        const pieces = [0, ...cuts, whole.length].slice(1).map((end, k, ends) => whole.subarray(k === 0 ? 0 : ends[k - 1], end))
        expect(await probe(pieces), `v${version} cut at ${cuts.join(',')}`).toEqual({ proxied: version, unread: CLIENT_HELLO })
      }
    }
  })

  it('hands a connection without one to TLS unchanged', async () => {
    expect(await probe([CLIENT_HELLO])).toEqual({ proxied: undefined, unread: CLIENT_HELLO })
  })
})
