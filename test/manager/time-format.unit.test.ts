import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatLocalMinute, LOCAL_MINUTE_BYTES, writeLocalMinute } from '../../src/manager/time-format.js'

function plain(epochMs: number): string {
  const iso = new Date(epochMs).toISOString()
  const t = iso.indexOf('T')
  return `${iso.slice(0, t)} ${iso.slice(t + 1, t + 6)}`
}

describe('formatLocalMinute', () => {
  it('formats YYYY-MM-DD HH:MM in UTC, the same whichever minutes were formatted before', () => {
    const base = Date.parse('2026-06-01T23:59:30Z')
    // More distinct minutes than the cache holds, revisited out of order, across a day boundary
    // and before 1970.
    const times = [base, base + 29_999, base + 30_000, base - 86_400_000 * 30, -90_000, -1, 0, 59_999, 60_000]
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < 12; k++) times.push(base + k * 61_000 + round)
    }
    for (const t of [...times, ...times.reverse()]) expect(formatLocalMinute(t)).toBe(plain(t))
    expect(formatLocalMinute(Date.parse('2026-06-01T00:00:59.999Z'))).toBe('2026-06-01 00:00')
  })

  it('is what Date writes for any time Date can hold (leap years, centuries, years before 1 and after 9999)', () => {
    const edges = ['2000-02-29T12:00:00Z', '1900-03-01T00:00:00Z', '2100-02-28T23:59:00Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z'].map(Date.parse)
    for (const t of edges) expect(formatLocalMinute(t)).toBe(plain(t))
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (t) => formatLocalMinute(t) === plain(t)),
      { numRuns: 20_000 }
    )
  })

  it('writes a year before 0 or past 9999 with its sign and six digits, the date whole', () => {
    expect(formatLocalMinute(Date.parse('+275760-09-13T00:00:00Z'))).toBe('+275760-09-13 00:00')
    expect(formatLocalMinute(Date.parse('-000001-12-31T23:59:00Z'))).toBe('-000001-12-31 23:59')
    expect(formatLocalMinute(Date.parse('+010000-01-01T00:00:00Z'))).toBe('+010000-01-01 00:00')
  })

  it('gives an empty string for a time that is not finite', () => {
    expect(formatLocalMinute(Number.NaN)).toBe('')
    expect(formatLocalMinute(Number.POSITIVE_INFINITY)).toBe('')
  })
})

describe('writeLocalMinute', () => {
  const written = (t: number) => {
    const into = Buffer.alloc(LOCAL_MINUTE_BYTES + 4, 0x2a)
    const end = writeLocalMinute(into, 2, t)
    return { end, text: end === -1 ? undefined : into.toString('latin1', 2, end), before: into[1], after: into[end === -1 ? 2 : end] }
  }

  it("writes formatLocalMinute's form as ASCII bytes for years 0 to 9999, and nothing around them", () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.parse('0000-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }), (t) => {
        const { end, text, before, after } = written(t)
        return end === 2 + LOCAL_MINUTE_BYTES && text === formatLocalMinute(t) && before === 0x2a && after === 0x2a
      }),
      { numRuns: 20_000 }
    )
    expect(written(Date.parse('2000-02-29T12:34:56Z')).text).toBe('2000-02-29 12:34')
  })

  it('writes nothing and says -1 for a year past 9999 or before 0, or a time that is not finite', () => {
    for (const t of [Date.parse('+010000-01-01T00:00:00Z'), Date.parse('-000001-12-31T23:59:00Z'), Number.NaN, Number.NEGATIVE_INFINITY]) {
      const { end, after } = written(t)
      expect(end).toBe(-1)
      expect(after).toBe(0x2a)
    }
  })
})
