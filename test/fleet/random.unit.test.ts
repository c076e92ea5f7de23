import { describe, expect, it } from 'vitest'
import { hash32, permute32, uniform, unpermute32 } from '../../src/fleet/random.js'

describe('counter-based randomness', () => {
  it('gives the same draw for the same key and a different one for another key', () => {
    expect(uniform(1, 5, 7, 2)).toBe(uniform(1, 5, 7, 2))
    expect(uniform(1, 5, 7, 2)).not.toBe(uniform(1, 5, 8, 2))
    expect(uniform(1, 5, 7, 2)).not.toBe(uniform(2, 5, 7, 2))
  })

  it('draws uniformly enough for a simulation', () => {
    const buckets = new Array(10).fill(0)
    for (let i = 0; i < 100_000; i++) buckets[Math.floor(uniform(9, i, 0, 1) * 10)]++
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(500)
  })

  it('keys on counters beyond 32 bits', () => {
    expect(hash32(1, 2 ** 32 + 5)).not.toBe(hash32(1, 5))
  })

  it('turns a permuted index back into the index', () => {
    for (const value of [0, 1, 41, 65535, 65536, 999_999, 2 ** 32 - 1]) {
      expect(unpermute32(permute32(value, 1234), 1234)).toBe(value)
    }
    expect(permute32(1, 1234)).not.toBe(permute32(1, 4321))
  })
})
