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
})
