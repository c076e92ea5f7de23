import { describe, expect, it } from 'vitest'
import { bodyText, charsetOf, codingError } from '../../src/http/body-text.js'
import { ApiError } from '../../src/protocol/errors.js'

const latin1Cafe = Buffer.from([0x63, 0x61, 0x66, 0xe9])

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run()
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message }
    throw error
  }
  throw new Error('not refused')
}

describe('bodyText', () => {
  it('reads UTF-8 when no charset is declared, and ISO-8859-1 when it is', () => {
    expect(bodyText(Buffer.from('café 東'), 'application/json')).toBe('café 東')
    expect(bodyText(latin1Cafe, 'application/xml; charset=ISO-8859-1')).toBe('café')
    expect(bodyText(latin1Cafe, 'application/xml; charset="latin1"')).toBe('café')
  })

  it('refuses bytes that are not UTF-8 rather than read them as U+FFFD, naming where they start', () => {
    expect(refusal(() => bodyText(latin1Cafe, 'application/json'))).toEqual({
      code: 'E_BODY_ENCODING',
      message: 'The request body is not valid UTF-8 (from byte 3): send it as UTF-8, or declare the charset it is in (charset=iso-8859-1).'
    })
    expect(refusal(() => bodyText(Buffer.from([0x7b, 0xff, 0xfe]), 'application/json; charset=utf-8')).code).toBe('E_BODY_ENCODING')
  })

  it('refuses a charset it does not read, naming those it does', () => {
    expect(refusal(() => bodyText(Buffer.from('x'), 'application/yaml; charset=utf-16'))).toEqual({
      code: 'E_UNSUPPORTED_CHARSET',
      message: 'The body\'s charset "utf-16" is not one this server reads: send it as utf-8 or iso-8859-1.'
    })
  })

  it('refuses a body in a content coding, whatever its case or list; identity is none', () => {
    for (const coding of ['gzip', 'GZIP', 'deflate', 'br', 'identity, gzip', 'x-unknown']) {
      expect(codingError(coding), coding).toMatchObject({ code: 'E_UNSUPPORTED_CONTENT_ENCODING', statusCode: 415 })
    }
    expect(codingError('gzip')?.message).toBe('The request body comes with Content-Encoding "gzip", which this server does not decode: send the body uncompressed, without a Content-Encoding header.')
    for (const none of [undefined, '', 'identity', ' Identity ']) expect(codingError(none), String(none)).toBeUndefined()
  })

  it('finds the charset parameter wherever it stands, in any case', () => {
    expect(charsetOf('text/xml;Charset=UTF-8')).toBe('utf-8')
    expect(charsetOf('application/json')).toBeUndefined()
    expect(charsetOf(undefined)).toBeUndefined()
  })
})
