import { describe, expect, it } from 'vitest'
import { editDistance, suggest } from '../../src/lib/suggest.js'

describe('suggest', () => {
  it('finds the nearest candidate within a third of the word', () => {
    expect(suggest('agentinf', ['agentinfo', 'appinfo', 'stopagent'])).toBe('agentinfo')
    expect(suggest('online', ['ONLINE', 'OFFLINE'])).toBe('ONLINE')
    expect(suggest('frobnicate', ['serve', 'run'])).toBeUndefined()
  })

  it('falls back to the longest candidate of three letters or more that the word starts with', () => {
    expect(suggest('outdir', ['out', 'duration', 'sample', 'workers'])).toBe('out')
    expect(suggest('agentinfobyname', ['agent', 'agentinfo'])).toBe('agentinfo')
    expect(suggest('ab-something', ['ab', 'run'])).toBeUndefined()
  })

  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('agnet', 'agent')).toBe(1)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('', 'abc')).toBe(3)
  })

  // A client's 1 MB path reached the 404's suggestion: measured against every operation name
  // it took seconds and a table of a million rows per name.
  it('gives no suggestion for a word far longer than every candidate, without measuring it', () => {
    expect(suggest('a'.repeat(1_000_000), ['agentinfo', 'appinfo'])).toBeUndefined()
    expect(suggest('agentinfo-and-much-more-text', ['agentinfo'])).toBeUndefined()
  })
})
