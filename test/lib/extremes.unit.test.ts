import { describe, expect, it } from 'vitest'
import { maxOf, minOf } from '../../src/lib/extremes.js'

describe('maxOf and minOf', () => {
  it('take more values than Math.max(...values) can (it overflows the stack past about 120,000)', () => {
    const values = Array.from({ length: 500_000 }, (_, k) => (k * 7919) % 500_000)
    expect(() => Math.max(...values)).toThrow(RangeError)
    expect(maxOf(values)).toBe(499_999)
    expect(minOf(values)).toBe(0)
  })

  it('answer their bound for no values, as Math.max(bound, ...[]) does', () => {
    expect(maxOf([], 1)).toBe(1)
    expect(maxOf([])).toBe(-Infinity)
    expect(minOf([])).toBe(Infinity)
    expect(maxOf([3, 9, 2], 5)).toBe(9)
  })
})
