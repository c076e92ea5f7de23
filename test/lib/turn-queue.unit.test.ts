import { describe, expect, it } from 'vitest'
import { TurnQueue } from '../../src/lib/turn-queue.js'

/** A promise with its resolve, to decide from the test when a section ends. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe('a queue of turns', () => {
  it('starts a section only after the one before it has ended, even when that one awaits', async () => {
    const queue = new TurnQueue()
    const log: string[] = []
    const first = gate()
    const a = queue.run(async () => {
      log.push('a starts')
      await first.opened
      log.push('a ends')
    })
    const b = queue.run(() => log.push('b runs'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(log).toEqual(['a starts'])
    first.open()
    await Promise.all([a, b])
    expect(log).toEqual(['a starts', 'a ends', 'b runs'])
  })

  it('gives each caller its own section result', async () => {
    const queue = new TurnQueue()
    const results = await Promise.all([queue.run(() => 1), queue.run(async () => 'two'), queue.run(() => [3])])
    expect(results).toEqual([1, 'two', [3]])
  })

  it('rejects only the caller of a failed section, and the next section still runs', async () => {
    const queue = new TurnQueue()
    const failed = queue.run(() => {
      throw new Error('section failed')
    })
    const next = queue.run(() => 'next ran')
    await expect(failed).rejects.toThrow('section failed')
    await expect(next).resolves.toBe('next ran')
  })

  it('reports settled once every section queued so far has ended, failed ones included', async () => {
    const queue = new TurnQueue()
    const slow = gate()
    let ended = false
    void queue.run(() => slow.opened.then(() => (ended = true)))
    queue.run(() => Promise.reject(new Error('ignored'))).catch(() => undefined)
    const settled = queue.settled()
    await new Promise((resolve) => setImmediate(resolve))
    expect(ended).toBe(false)
    slow.open()
    await settled
    expect(ended).toBe(true)
  })
})
