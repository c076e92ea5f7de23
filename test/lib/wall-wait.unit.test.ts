import { afterEach, describe, expect, it, vi } from 'vitest'
import { MAX_TIMER_MS, waitWall } from '../../src/lib/wall-wait.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('waitWall', () => {
  it('waits past the longest timer Node holds (a 30-day stall), rather than 1 ms', async () => {
    vi.useFakeTimers()
    let done = false
    void waitWall(30 * 86_400_000).then(() => (done = true))
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(30 * 86_400_000 - MAX_TIMER_MS - 1)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(done).toBe(true)
  })

  it('waits a short time as one timer', async () => {
    vi.useFakeTimers()
    let done = false
    void waitWall(5).then(() => (done = true))
    await vi.advanceTimersByTimeAsync(4)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(done).toBe(true)
  })

  it('ends when its signal is aborted, its timer cleared (a client that left was held until the wait ended)', async () => {
    vi.useFakeTimers()
    const left = new AbortController()
    let done = false
    void waitWall(60_000, left.signal).then(() => (done = true))
    await vi.advanceTimersByTimeAsync(1_000)
    expect(done).toBe(false)
    left.abort()
    await vi.advanceTimersByTimeAsync(0)
    expect(done).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  })
})
