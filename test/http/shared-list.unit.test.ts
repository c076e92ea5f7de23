/** A streamed list made once for the requests that come while it is made (src/http/shared-list.ts). */
import { text } from 'node:stream/consumers'
import { describe, expect, it } from 'vitest'
import { STREAM_CHUNK_CHARS, textChunks } from '../../src/http/reply.js'
import { SharedList, type StatedChunks } from '../../src/http/shared-list.js'

/** Text parts as the byte chunks a list is made of (ListBytes), without states. */
function chunksOf(parts: Iterator<string>): StatedChunks {
  const chunks = textChunks(parts)
  return {
    states: [],
    take: () => {
      const { chunk, last } = chunks.take()
      return { chunk: Buffer.from(chunk), last }
    },
    stop: chunks.stop
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
    const ends: boolean[] = []
    const list = new SharedList(chunksOf(parts), (whole) => ends.push(whole))
    const first = text(list.reader())
    for (let k = 0; k < 5; k++) await turn()
    expect(made.parts).toBeGreaterThan(0)
    expect(list.open).toBe(true)
    const late = text(list.reader())
    expect(await first).toBe(whole)
    expect(await late).toBe(whole)
    expect(made.parts).toBe(40)
    expect(ends).toEqual([true])
    expect(list.open).toBe(false)
  })

  it('stops making the list once every reader has gone', async () => {
    const { made, parts } = counted(400)
    const ends: boolean[] = []
    const list = new SharedList(chunksOf(parts), (whole) => ends.push(whole))
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
    expect(ends).toEqual([false])
    expect(list.open).toBe(false)
  })

  it('fails every reader when making the list fails', async () => {
    function* failing(): Generator<string> {
      yield 'x'.repeat(STREAM_CHUNK_CHARS)
      throw new Error('the fleet went away')
    }
    const ends: boolean[] = []
    const list = new SharedList(chunksOf(failing()), (whole) => ends.push(whole))
    const readers = [text(list.reader()), text(list.reader())]
    for (const reader of readers) await expect(reader).rejects.toThrow('the fleet went away')
    expect(ends).toEqual([false])
  })
})
