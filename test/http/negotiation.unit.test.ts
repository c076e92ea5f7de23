import { describe, expect, it } from 'vitest'
import { negotiate } from '../../src/protocol/negotiation.js'

describe('response format negotiation', () => {
  it('answers XML without accept header, suffix or body type', () => {
    expect(negotiate(undefined, undefined, undefined)).toBe('xml')
  })

  it('lets the suffix replace the headers', () => {
    expect(negotiate('json', 'application/xml', 'application/xml')).toBe('json')
  })

  it('follows the accept header', () => {
    expect(negotiate(undefined, 'application/json', undefined)).toBe('json')
    expect(negotiate(undefined, 'text/xml', undefined)).toBe('xml')
  })

  it('picks the accepted type with the highest q', () => {
    expect(negotiate(undefined, 'application/xml;q=0.5, application/json', undefined)).toBe('json')
  })

  it('falls back to the request body type for a wildcard accept', () => {
    expect(negotiate(undefined, '*/*', 'application/json; charset=utf-8')).toBe('json')
    expect(negotiate(undefined, '*/*', undefined)).toBe('xml')
  })

  it('finds nothing acceptable for an accept of only other types', () => {
    expect(negotiate(undefined, 'text/html', undefined)).toBeNull()
  })

  it('takes q=0 as "not acceptable", beside a wildcard too (RFC 9110, 12.4.2)', () => {
    expect(negotiate(undefined, 'application/xml;q=0, */*', undefined)).toBe('json')
    expect(negotiate(undefined, 'application/json;q=0, */*', 'application/json')).toBe('xml')
    expect(negotiate(undefined, 'application/json;q=0, application/*', 'application/json')).toBe('xml')
    expect(negotiate(undefined, '*/*;q=0', undefined)).toBeNull()
    expect(negotiate(undefined, 'application/json;q=0, application/xml;q=0, */*', undefined)).toBeNull()
  })

  it('gives each type the q of the most specific range that names it', () => {
    // text/* names XML (text/xml) and not JSON, whatever the body.
    expect(negotiate(undefined, 'text/*', 'application/json')).toBe('xml')
    expect(negotiate(undefined, 'application/json;q=0.5, */*', undefined)).toBe('xml')
    expect(negotiate(undefined, 'application/json;q=0.5, */*;q=0.4', undefined)).toBe('json')
    // A type named by its own type wins a tie with a wildcard; of two named, the first.
    expect(negotiate(undefined, 'application/json, text/plain, */*', 'application/xml')).toBe('json')
    expect(negotiate(undefined, 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', undefined)).toBe('xml')
    expect(negotiate(undefined, 'application/xml, application/json', undefined)).toBe('xml')
  })

  it('takes an accept of no ranges (`,`) as no preference, as no accept', () => {
    expect(negotiate(undefined, ' , ', 'application/json')).toBe('json')
    expect(negotiate(undefined, ',', undefined)).toBe('xml')
  })

  it('reads a q that is no number as 1 and one above 1 as 1', () => {
    expect(negotiate(undefined, 'application/json;q=abc', undefined)).toBe('json')
    expect(negotiate(undefined, 'application/json;q=, application/xml;q=0.5', undefined)).toBe('json')
    expect(negotiate(undefined, 'application/xml;q=2, application/json', undefined)).toBe('xml')
  })
})
