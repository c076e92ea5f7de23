/**
 * A streamed answer (src/http/reply.ts, ChunkedStream): its chunks are made one a turn, and those
 * of bytes that lie end to end in one slab (chunk-writer.ts) are pushed together, up to
 * STREAM_RUN_BYTES, so that a long list is not a socket write per chunk.
 */
import { describe, expect, it } from 'vitest'
import { STREAM_SLAB_BYTES } from '../../src/http/chunk-writer.js'
import { cursorOf, ListBytes } from '../../src/http/list-bytes.js'
import { ChunkedStream, STREAM_CHUNK_CHARS, STREAM_RUN_BYTES, textChunks } from '../../src/http/reply.js'

/** A list of `items` items of about 200 bytes each, written as bytes (a list streamed to one request). */
function listOf(items: number) {
  const envelope = { head: '{"values":[', separator: ',', tail: ']}' }
  const item = (index: number) => `{"n":${index},"pad":"${'x'.repeat(180)}","é":true}`
  const list = new ListBytes(envelope, cursorOf(Array.from({ length: items }, (_, k) => k)), (out, index) => {
    out.text(item(index))
    return 'ONLINE'
  })
  const whole = envelope.head + Array.from({ length: items }, (_, k) => item(k)).join(',') + envelope.tail
  return { list, whole }
}

/** Every push the stream made, and the answer they join to. */
async function pushes(stream: ChunkedStream): Promise<{ sizes: number[]; joined: string }> {
  const parts: Buffer[] = []
  for await (const part of stream) parts.push(Buffer.isBuffer(part) ? part : Buffer.from(part as string))
  return { sizes: parts.map((part) => part.length), joined: Buffer.concat(parts).toString() }
}

describe('a streamed answer', () => {
  it('pushes the chunks of a list that lie end to end in one slab together, the answer unchanged', async () => {
    const { list, whole } = listOf(20_000)
    const first = list.take().chunk
    const { sizes, joined } = await pushes(new ChunkedStream(list, first))
    expect(joined).toBe(whole)
    // The first chunk alone (the answer starts with it), then runs of up to a slab.
    expect(sizes[0]).toBe(first.length)
    expect(Math.max(...sizes.slice(1))).toBeLessThanOrEqual(STREAM_RUN_BYTES)
    expect(STREAM_RUN_BYTES).toBe(STREAM_SLAB_BYTES)
    const bytes = Buffer.byteLength(whole)
    // Pushed a chunk at a time, they were about bytes / STREAM_CHUNK_CHARS (some 250 here).
    expect(sizes.length).toBeLessThan(bytes / (STREAM_RUN_BYTES / 2))
    expect(bytes / STREAM_CHUNK_CHARS).toBeGreaterThan(200)
  })

  it('pushes text chunks as they come', async () => {
    const parts = Array.from({ length: 50 }, (_, k) => String(k % 10).repeat(STREAM_CHUNK_CHARS / 2))
    const { sizes, joined } = await pushes(new ChunkedStream(textChunks(parts[Symbol.iterator]())))
    expect(joined).toBe(parts.join(''))
    expect(sizes.length).toBe(25)
  })

  it('stops making the list when it is destroyed', async () => {
    const { list } = listOf(20_000)
    const stream = new ChunkedStream(list)
    let taken = 0
    const take = list.take.bind(list)
    list.take = () => (taken++, take())
    stream.read()
    await new Promise((resolve) => setTimeout(resolve, 20))
    stream.destroy()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const after = taken
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(taken).toBe(after)
    expect(taken).toBeLessThan(200)
  })
})
