import { describe, expect, it } from 'vitest'
import { ANSWERS_A_ROUND, WARM_ROUNDS, measureFastPath } from '../../bench/fast-path.js'

describe('npm run bench:fast-path', () => {
  it('times answers the fast path built, each eviction size in its own rounds, and fails if fastify answered any', async () => {
    const figures = await measureFastPath({ agents: 2000, rounds: 2, evict: [0, 65_536], format: 'xml' })
    expect(figures.answers).toBe((WARM_ROUNDS + 2 * 2) * ANSWERS_A_ROUND)
    // serve's default journal keeps the last of them, up to 10,000 entries and 32 MiB
    expect(figures.journalled).toBeGreaterThan(1000)
    expect(figures.journalled).toBeLessThanOrEqual(10_000)
    expect(figures.bytesPerAnswer).toBeGreaterThan(500)
    expect(figures.byEviction.map((f) => f.evictBytes)).toEqual([0, 65_536])
    for (const f of figures.byEviction) {
      expect(f.rounds).toHaveLength(2)
      expect(f.usPerAnswer).toBeGreaterThan(0)
    }
  }, 120_000)

  it('takes the clock paused and a journal of none, as serve does', async () => {
    const figures = await measureFastPath({ agents: 2000, rounds: 1, evict: [0], format: 'json', speed: 0, journalSize: 0 })
    expect(figures.answers).toBe((WARM_ROUNDS + 1) * ANSWERS_A_ROUND)
    expect(figures.journalled).toBe(0)
  }, 120_000)
})
