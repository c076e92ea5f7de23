import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { ListAnswer } from '../../src/http/answer-cache.js'
import { ListBodies } from '../../src/http/list-bodies.js'

const chunksOf = (...texts: string[]) => texts.map((text) => Buffer.from(text))

/** A response as ListAnswer watches one: it closes, having finished (every byte handed to the socket) or not. */
function response(): ServerResponse & { close(finished: boolean): void } {
  const emitter = new EventEmitter() as EventEmitter & { close(finished: boolean): void }
  emitter.close = (finished) => {
    if (finished) emitter.emit('finish')
    emitter.emit('close')
  }
  return emitter as unknown as ServerResponse & { close(finished: boolean): void }
}

describe('ListBodies', () => {
  it('joins chunks into memory with room to spare, and joins the next list into memory given back', () => {
    const bodies = new ListBodies(1 << 20)
    const first = bodies.join(chunksOf('abc', 'defg'), 7)
    expect(first.body.toString()).toBe('abcdefg')
    expect(first.memory.length).toBeGreaterThan(7)
    bodies.giveBack(first.memory)
    expect(bodies.held).toBe(first.memory.length)
    const second = bodies.join(chunksOf('xyz', 'w'), 4)
    expect(second.memory).toBe(first.memory)
    expect(second.body.toString()).toBe('xyzw')
    expect(bodies.held).toBe(0)
  })

  it('takes the shortest memory given back that holds the list, and makes new memory when none does', () => {
    const bodies = new ListBodies(1 << 20)
    const long = bodies.join(chunksOf('x'.repeat(1000)), 1000).memory
    const short = bodies.join(chunksOf('x'.repeat(100)), 100).memory
    bodies.giveBack(long)
    bodies.giveBack(short)
    expect(bodies.join(chunksOf('y'.repeat(90)), 90).memory).toBe(short)
    expect(bodies.join(chunksOf('y'.repeat(2000)), 2000).memory).not.toBe(long)
    expect(bodies.join(chunksOf('y'.repeat(500)), 500).memory).toBe(long)
  })

  it('holds no more than its bound of memory given back: the oldest goes to the GC', () => {
    const bodies = new ListBodies(2500)
    const memories = [1000, 1000, 1000].map((bytes) => bodies.join(chunksOf('z'.repeat(bytes)), bytes).memory)
    for (const memory of memories) bodies.giveBack(memory)
    expect(bodies.held).toBeLessThanOrEqual(2500)
    expect(bodies.join(chunksOf('z'), 1).memory).not.toBe(memories[0])
  })
})

describe('a kept list (ListAnswer) and its memory', () => {
  const kept = (bodies: ListBodies) => {
    const { body, memory } = bodies.join(chunksOf('<list/>'), 7)
    return { answer: new ListAnswer(body, '/list', { bytes: memory, bodies }), memory }
  }

  it('gives its memory back once the cache dropped it and every response it was written to finished', () => {
    const bodies = new ListBodies(1 << 20)
    const { answer, memory } = kept(bodies)
    const [one, two] = [response(), response()]
    answer.sendingTo(one)
    answer.sendingTo(two)
    answer.dropped()
    expect(bodies.held).toBe(0)
    one.close(true)
    expect(bodies.held).toBe(0)
    two.close(true)
    expect(bodies.held).toBe(memory.length)
  })

  it('gives its memory back when dropped after its responses finished', () => {
    const bodies = new ListBodies(1 << 20)
    const { answer, memory } = kept(bodies)
    const one = response()
    answer.sendingTo(one)
    one.close(true)
    expect(bodies.held).toBe(0)
    answer.dropped()
    expect(bodies.held).toBe(memory.length)
    // Once only.
    answer.dropped()
    expect(bodies.held).toBe(memory.length)
  })

  it('never gives its memory back after a response closed before it finished (its socket may still hold the bytes)', () => {
    const bodies = new ListBodies(1 << 20)
    const { answer } = kept(bodies)
    const [gone, read] = [response(), response()]
    answer.sendingTo(gone)
    answer.sendingTo(read)
    gone.close(false)
    read.close(true)
    answer.dropped()
    expect(bodies.held).toBe(0)
  })
})
