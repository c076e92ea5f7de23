/**
 * Identity.nameContains finds generated names containing a text without building them: it must
 * agree with building every name and asking `includes`, for texts inside the role and site,
 * across the dashes, in the digits, and past the six digits of the millionth agent.
 */
import { describe, expect, it } from 'vitest'
import { Identity, digitsContaining, digitsStartingWith, numbersContaining } from '../../src/fleet/identity.js'

const identity = new Identity(7)
const indices = [...Array.from({ length: 3000 }, (_, i) => i), 99_998, 99_999, 999_998, 999_999, 1_000_000, 1_234_566, 12_345_677]

function naive(text: string): number[] {
  return indices.filter((i) => identity.name(i).includes(text))
}

function fast(text: string): number[] {
  const contains = identity.nameContains(text)
  return indices.filter((i) => contains(i))
}

describe('searching generated names', () => {
  const sample = identity.name(1234)
  const [role, site] = sample.split('-')
  const texts = [
    role,
    site,
    `${role}-`,
    `-${site}-`,
    `${site}-00`,
    `${site}-0012`,
    `${role}-${site}-001235`,
    `${site.slice(1)}-001`,
    '-',
    '0',
    '42',
    '000042',
    '1000000',
    '1234567',
    '99',
    `${role.slice(-1)}-${site[0]}`,
    'e',
    'zzz',
    '-1',
    '-12345678',
    `${sample}x`
  ]

  for (const text of texts) {
    it(`finds exactly the names containing "${text}"`, () => {
      expect(fast(text)).toEqual(naive(text))
    })
  }
})

describe('the digits of a name', () => {
  it('are at least six, zeros first', () => {
    expect(digitsContaining('00')(42)).toBe(true)
    expect(digitsContaining('0000420')(42)).toBe(false)
    expect(digitsStartingWith('0000')(42)).toBe(true)
    expect(digitsStartingWith('00004')(42)).toBe(true)
    expect(digitsStartingWith('1')(42)).toBe(false)
  })

  it('grow past six for the millionth agent and after', () => {
    expect(digitsContaining('1000000')(1_000_000)).toBe(true)
    expect(digitsStartingWith('10')(1_000_000)).toBe(true)
    expect(digitsStartingWith('0')(1_000_000)).toBe(false)
    expect(digitsContaining('345')(12_345_678)).toBe(true)
  })
})

describe('numbers containing some digits', () => {
  it('are exactly those whose digits contain them, in order, each once', () => {
    const contains = (digits: string) => (n: number) => String(n).padStart(6, '0').includes(digits)
    for (const [digits, last] of [['004', 20_000], ['00', 3000], ['1000', 1_200_000], ['999', 1_001_000], ['0000001', 1_000_001], ['12345678', 2_000_000]] as const) {
      const all = Array.from({ length: last }, (_, k) => k + 1)
      expect(numbersContaining(digits, last), digits).toEqual(all.filter(contains(digits)))
    }
  })
})
