/** A streamed list made once for the requests that come while it is made (src/http/shared-list.ts). */
import { EventEmitter, once } from 'node:events'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { text } from 'node:stream/consumers'
import { describe, expect, it } from 'vitest'
import { cursorOf, ListBytes } from '../../src/http/list-bytes.js'
import { STREAM_CHUNK_CHARS, textChunks } from '../../src/http/reply.js'
import { runFrom, SHARED_CHUNK_BYTES, SharedList, type StatedChunks } from '../../src/http/shared-list.js'
import { SlabPool } from '../../src/http/slab-pool.js'

/** Text parts as the byte chunks a list is made of (ListBytes), without states; `recycled` counts recycle() calls. */
function chunksOf(parts: Iterator<string>, recycled = { times: 0 }): StatedChunks {
  const chunks = textChunks(parts)
  return {
    states: [],
    take: () => {
      const { chunk, last } = chunks.take()
      return { chunk: Buffer.from(chunk), last }
    },
    stop: chunks.stop,
    recycle: () => void recycled.times++
  }
}

/** Parts enough for many chunks, counting how many were made and whether making was stopped. */
function counted(parts = 40, size = STREAM_CHUNK_CHARS / 2) {
  const made = { parts: 0, stopped: false }
  function* generate(): Generator<string> {
    try {
      for (let k = 0; k < parts; k++) {
        made.parts++
        yield String(k % 10).repeat(size - 1) + 'é'
      }
    } finally {
      made.stopped = made.parts < parts
    }
  }
  const whole = Array.from({ length: parts }, (_, k) => String(k % 10).repeat(size - 1) + 'é').join('')
  return { made, parts: generate(), whole }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('SharedList', () => {
  it('makes the list once and gives every reader all of it, one that came late too', async () => {
    const { made, parts, whole } = counted()
    const ends: Array<string | undefined> = []
    const list = new SharedList(chunksOf(parts), (chunks) => ends.push(chunks && Buffer.concat(chunks).toString()))
    const first = text(list.reader())
    for (let k = 0; k < 5; k++) await turn()
    expect(made.parts).toBeGreaterThan(0)
    expect(list.open).toBe(true)
    const late = text(list.reader())
    expect(await first).toBe(whole)
    expect(await late).toBe(whole)
    expect(made.parts).toBe(40)
    // Its end is told with every chunk, the whole list.
    expect(ends).toEqual([whole])
    expect(list.open).toBe(false)
  })

  it('stops making the list once every reader has gone', async () => {
    const { made, parts } = counted(400)
    const ends: Array<string | undefined> = []
    const list = new SharedList(chunksOf(parts), (chunks) => ends.push(chunks && Buffer.concat(chunks).toString()))
    const readers = [list.reader(), list.reader()]
    for (const reader of readers) reader.on('data', () => undefined)
    await turn()
    readers[0].destroy()
    await turn()
    expect(list.open).toBe(true)
    readers[1].destroy()
    for (let k = 0; k < 5; k++) await turn()
    expect(made.stopped).toBe(true)
    expect(made.parts).toBeLessThan(400)
    expect(ends).toEqual([undefined])
    expect(list.open).toBe(false)
  })

  it('fails every reader when making the list fails', async () => {
    function* failing(): Generator<string> {
      yield 'x'.repeat(STREAM_CHUNK_CHARS)
      throw new Error('the fleet went away')
    }
    const ends: Array<string | undefined> = []
    const list = new SharedList(chunksOf(failing()), (chunks) => ends.push(chunks && Buffer.concat(chunks).toString()))
    const readers = [text(list.reader()), text(list.reader())]
    for (const reader of readers) await expect(reader).rejects.toThrow('the fleet went away')
    expect(ends).toEqual([undefined])
  })

  it('recycles the list once it is made and every response it was sent to has finished', async () => {
    const recycled = { times: 0 }
    const list = new SharedList(chunksOf(counted(20).parts, recycled), () => undefined)
    const responses = [new EventEmitter(), new EventEmitter()]
    const bodies = responses.map((response) => text(list.reader(response as ServerResponse)))
    await Promise.all(bodies)
    expect(recycled.times).toBe(0)
    responses[0].emit('finish')
    expect(recycled.times).toBe(0)
    responses[1].emit('finish')
    for (const response of responses) response.emit('close')
    expect(recycled.times).toBe(1)
  })

  it('never recycles a list one of whose responses closed before it finished, or that went to a reader without one', async () => {
    for (const spoil of ['closed early', 'no response'] as const) {
      const recycled = { times: 0 }
      const list = new SharedList(chunksOf(counted(20).parts, recycled), () => undefined)
      const finished = new EventEmitter()
      const bodies = [text(list.reader(finished as ServerResponse))]
      if (spoil === 'no response') bodies.push(text(list.reader()))
      const cut = new EventEmitter()
      if (spoil === 'closed early') bodies.push(text(list.reader(cut as ServerResponse)))
      await Promise.all(bodies)
      // As a real response does: one that finished closes after, one cut short only closes.
      cut.emit('close')
      finished.emit('finish')
      finished.emit('close')
      expect(recycled.times, spoil).toBe(0)
    }
  })
})

/** Chunks cut one after another from `memory`, `sizes` bytes each, as ChunkWriter cuts them from a slab. */
function cut(memory: Buffer, sizes: readonly number[]): Buffer[] {
  let at = 0
  return sizes.map((size) => memory.subarray(at, (at += size)))
}

describe('runFrom', () => {
  const memory = Buffer.from(Array.from({ length: 100 }, (_, k) => k))

  it('takes the chunks that lie end to end in one memory as one buffer over them, up to the limit', () => {
    const chunks = cut(memory, [10, 20, 30, 40])
    const run = runFrom(chunks, 0, 60)
    expect(run.chunks).toBe(3)
    expect([...run.bytes]).toEqual([...memory.subarray(0, 60)])
    // A view, not a copy: the memory is the slab's.
    expect(run.bytes.buffer).toBe(memory.buffer)
    expect(runFrom(chunks, 3, 60)).toEqual({ bytes: chunks[3], chunks: 1 })
  })

  it('stops at a chunk of other memory, or one that does not follow on', () => {
    const other = Buffer.alloc(10, 7)
    const gap = [memory.subarray(0, 10), memory.subarray(20, 30)]
    expect(runFrom([memory.subarray(0, 10), other], 0, 1000).chunks).toBe(1)
    expect(runFrom(gap, 0, 1000)).toEqual({ bytes: gap[0], chunks: 1 })
  })

  it('takes a first chunk longer than the limit whole, alone', () => {
    const chunks = cut(memory, [80, 10])
    expect(runFrom(chunks, 0, 50)).toEqual({ bytes: chunks[0], chunks: 1 })
  })
})

describe('SharedList hands a reader its chunks in runs', () => {
  it('pushes the chunks of one slab as one buffer a batch, each byte where it was', async () => {
    const memory = Buffer.alloc(16 * SHARED_CHUNK_BYTES)
    for (let k = 0; k < memory.length; k++) memory[k] = (k * 7) % 251
    const chunks = cut(memory, Array.from({ length: 16 }, () => SHARED_CHUNK_BYTES))
    let next = 0
    const source: StatedChunks = {
      states: [],
      take: () => ({ chunk: chunks[next++], last: next === chunks.length }),
      stop: () => undefined,
      recycle: () => undefined
    }
    const list = new SharedList(source, () => undefined)
    const pushed: Buffer[] = []
    const reader = list.reader()
    reader.on('data', (chunk: Buffer) => pushed.push(chunk))
    await once(reader, 'end')
    // 16 chunks of 64 KiB in two pushes of a batch (512 KiB) each: two writes to a socket, not 16.
    expect(pushed.map((chunk) => chunk.length)).toEqual([8 * SHARED_CHUNK_BYTES, 8 * SHARED_CHUNK_BYTES])
    expect(Buffer.concat(pushed).equals(memory)).toBe(true)
  })
})

/**
 * Lists made once for their requests and sent over real sockets, their memory used again by the
 * lists after them (slab-pool.ts). List `round` is RUN_ITEMS items naming the round, so a chunk
 * written over by a later list while a client still read it shows in that client's body.
 */
describe('SharedList over sockets, its memory used again', () => {
  const RUN_ITEMS = 40_000
  const expected = (round: number) => '[' + Array.from({ length: RUN_ITEMS }, (_, i) => `"r${round}-${i}-${'x'.repeat(i % 40)}"`).join(',') + ']'

  async function serve(pool: SlabPool) {
    const lists = new Map<number, SharedList>()
    const server = createServer((req, res) => {
      const round = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('round'))
      let list = lists.get(round)
      if (list === undefined || !list.open) {
        const indices = cursorOf(Array.from({ length: RUN_ITEMS }, (_, i) => i))
        const bytes = new ListBytes({ head: '[', separator: ',', tail: ']' }, indices, (out, i) => (out.ascii(`"r${round}-${i}-${'x'.repeat(i % 40)}"`), 'ONLINE'), {
          slabs: pool,
          chunkBytes: SHARED_CHUNK_BYTES
        })
        list = new SharedList(bytes, () => lists.delete(round))
        lists.set(round, list)
      }
      res.writeHead(200)
      list.reader(res).pipe(res)
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    return { server, port: (server.address() as AddressInfo).port }
  }

  /** A client reading the list for `round`: `slow` pauses between chunks, `cutAfter` hangs up after so many bytes. */
  function get(port: number, round: number, how: { slow?: boolean; cutAfter?: number } = {}): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: `/?round=${round}` }, (res: IncomingMessage) => {
        const chunks: Buffer[] = []
        let bytes = 0
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          bytes += chunk.length
          if (how.cutAfter !== undefined && bytes >= how.cutAfter) {
            req.destroy()
            resolve('cut')
          } else if (how.slow === true) {
            res.pause()
            setTimeout(() => res.resume(), 2)
          }
        })
        res.on('end', () => resolve(Buffer.concat(chunks).toString()))
        res.on('error', reject)
      })
      req.on('error', (error) => (how.cutAfter === undefined ? reject(error) : resolve('cut')))
      req.end()
    })
  }

  it('gives every client its own list whole while the lists after it are written into memory used again', async () => {
    const pool = new SlabPool()
    const { server, port } = await serve(pool)
    try {
      // Each round's slow client still reads while the next round's list is made and sent.
      let slow: Promise<string> = Promise.resolve(expected(0))
      let slowRound = 0
      for (let round = 1; round <= 4; round++) {
        const fast = [get(port, round), get(port, round)]
        const slowNow = get(port, round, { slow: true })
        for (const body of await Promise.all(fast)) expect(body === expected(round), `round ${round}, a fast client`).toBe(true)
        expect((await slow) === expected(slowRound), `round ${slowRound}, the slow client`).toBe(true)
        slow = slowNow
        slowRound = round
      }
      expect((await slow) === expected(slowRound)).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(pool.size).toBeGreaterThan(0)

      // A list one client hung up on is not used again: that client's socket may have held its chunks.
      const before = pool.size
      const [whole, cut] = await Promise.all([get(port, 9), get(port, 9, { cutAfter: 100_000 })])
      expect(whole === expected(9)).toBe(true)
      expect(cut).toBe('cut')
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(pool.size).toBeLessThan(before)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
