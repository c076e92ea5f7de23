import { describe, expect, it } from 'vitest'
import { formatSeconds, parseDuration, parseRate } from '../../src/lib/units.js'
import { editDistance, suggest } from '../../src/lib/suggest.js'
import { globToRegExp } from '../../src/scenario/selector.js'

describe('scenario units', () => {
  it.each([
    ['500ms', 0.5],
    ['10s', 10],
    ['5m', 300],
    ['2h', 7200],
    ['1d', 86400],
    ['1h30m', 5400],
    ['90', 90],
    [45, 45],
    [0, 0]
  ])('reads the duration %j as %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds)
  })

  it.each([
    ['1.1h', 3960],
    ['4.1m', 246],
    ['8.3m', 498],
    ['1h0.1m', 3606],
    ['0.3d', 25920],
    ['1100ms', 1.1],
    ['0.0000001s', 1e-7]
  ])('reads the decimal duration %j as exactly %d seconds (1.1h was 3960.0000000000005, refused as not whole)', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds)
  })

  it.each(['1h1h', '30m1h', '1s500ms1s', '5m5m'])('rejects the duration %j: units largest first, each once, as Prometheus reads them', (text) => {
    expect(parseDuration(text)).toBeUndefined()
  })

  it.each([['1d2h3m4s5ms', 93784.005], ['2h5s', 7205]])('reads %j with its units largest first', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds)
  })

  it.each(['soon', '5 minutes', '-5s', '', '5x', 'm5', -1, null, true])('rejects the duration %j', (text) => {
    expect(parseDuration(text)).toBeUndefined()
  })

  it('reads rates per second', () => {
    expect(parseRate('3/h')).toBeCloseTo(3 / 3600)
    expect(parseRate('0.5/m')).toBeCloseTo(0.5 / 60)
    expect(parseRate('2/d')).toBeCloseTo(2 / 86400)
    expect(parseRate(0)).toBe(0)
    expect(parseRate('3 per hour')).toBeUndefined()
    expect(parseRate(3)).toBeUndefined()
  })

  it('formats seconds for messages', () => {
    expect(formatSeconds(5400)).toBe('1h30m')
    expect(formatSeconds(0.25)).toBe('250ms')
    expect(formatSeconds(12)).toBe('12s')
  })

  it('suggests close names only', () => {
    expect(editDistance('modse', 'modes')).toBe(1)
    expect(suggest('stgaes', ['stages', 'timeline'])).toBe('stages')
    expect(suggest('online', ['ONLINE', 'OFFLINE'])).toBe('ONLINE')
    expect(suggest('colour', ['agents', 'seed'])).toBeUndefined()
  })

  it('matches globs on whole names', () => {
    expect(globToRegExp('Windows*').test('Windows Server 2022')).toBe(true)
    expect(globToRegExp('6.3.*').test('6.3.12')).toBe(true)
    expect(globToRegExp('6.3.*').test('6.4.1')).toBe(false)
    expect(globToRegExp('web-??').test('web-01')).toBe(true)
    expect(globToRegExp('web-??').test('web-001')).toBe(false)
  })
})
