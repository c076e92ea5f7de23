import { describe, expect, it } from 'vitest'
import { hash32 } from '../../src/fleet/random.js'
import { pickAgents, rankOrder } from '../../src/fleet/selection.js'

/** The count pick as a sort of every candidate by rank, then index: what the heap must equal. */
function bySorting(candidates: number[], count: number, seed: number, key: number, stream: number): number[] {
  return candidates
    .map((i) => ({ i, rank: hash32(seed, i, key, stream) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .slice(0, count)
    .map((r) => r.i)
    .sort((a, b) => a - b)
}

describe('a count pick', () => {
  it('takes the candidates of the lowest seeded rank, as sorting them all would, in index order', () => {
    for (const [size, count, seed] of [
      [5000, 10, 1],
      [5000, 1, 7],
      [1000, 999, 3],
      [20_000, 2500, 42],
      [37, 36, 5]
    ]) {
      // Every third agent, as a selector leaves gaps.
      const candidates = Array.from({ length: size }, (_, k) => k * 3)
      const picked = pickAgents(candidates, { kind: 'count', count }, seed, 1000, 4)
      expect(picked, `${count} of ${size}`).toEqual(bySorting(candidates, count, seed, 1000, 4))
      expect(picked).toHaveLength(count)
    }
  })

  it('takes every candidate when there are no more than it counts', () => {
    expect(pickAgents([4, 9, 11], { kind: 'count', count: 3 }, 1, 0, 0)).toEqual([4, 9, 11])
    expect(pickAgents([4, 9], { kind: 'count', count: 3 }, 1, 0, 0)).toEqual([4, 9])
  })
})

describe('the rank order of a pick', () => {
  it('is the agents by seeded rank, ties by index, as sorting them would give', () => {
    for (const [n, seed] of [[0, 1], [1, 1], [5000, 3], [70_000, 9]]) {
      const sorted = Array.from({ length: n }, (_, i) => i).sort((a, b) => hash32(seed, a, 1000, 4) - hash32(seed, b, 1000, 4) || a - b)
      expect([...rankOrder(n, seed, 1000, 4)], `${n}`).toEqual(sorted)
    }
  })

  it('walked from its front to the first matching agents, is the count pick among the matching ones', () => {
    const order = rankOrder(5000, 7, 1003, 4)
    const matching = (i: number) => i % 7 === 2
    const walked = [...order].filter(matching).slice(0, 25).sort((a, b) => a - b)
    const candidates = Array.from({ length: 5000 }, (_, i) => i).filter(matching)
    expect(walked).toEqual(pickAgents(candidates, { kind: 'count', count: 25 }, 7, 1003, 4))
  })
})
