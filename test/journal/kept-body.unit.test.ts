/**
 * What the journal keeps of a body (src/journal/kept-body.ts): its first bytes, cut on a UTF-8
 * character boundary, with the length it had and whether it was cut; secrets redacted.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { KEPT_BODY_BYTES, REDACTED, answerAsKept, bodyCharge, keepBytes, keepText, redactBody, redactSecrets } from '../../src/journal/kept-body.js'

const utf8 = (text: string) => Buffer.byteLength(text)

describe('the beginning of a body the journal keeps', () => {
  it('keeps a body that fits whole, with its length in bytes, not truncated', () => {
    expect(keepText('{"name":"web-01"}', 4096)).toEqual({ text: '{"name":"web-01"}', bytes: 17, truncated: false })
    expect(keepText('é'.repeat(10), 20)).toEqual({ text: 'é'.repeat(10), bytes: 20, truncated: false })
  })

  it('cuts a longer body at the cap, with the length it had and the truncated mark', () => {
    const text = 'x'.repeat(10_000)
    expect(keepText(text, 4096)).toEqual({ text: 'x'.repeat(4096), bytes: 10_000, truncated: true })
  })

  it('never cuts a character in two: a cut inside one moves back before it', () => {
    // 'é' takes 2 bytes, '€' 3, '😀' 4 (a surrogate pair in JavaScript).
    expect(keepText(`${'a'.repeat(9)}é`, 10)).toEqual({ text: 'a'.repeat(9), bytes: 11, truncated: true })
    expect(keepText(`${'a'.repeat(8)}€b`, 10)).toEqual({ text: 'a'.repeat(8), bytes: 12, truncated: true })
    expect(keepText(`${'a'.repeat(7)}😀`, 10)).toEqual({ text: 'a'.repeat(7), bytes: 11, truncated: true })
    expect(keepText(`${'a'.repeat(6)}😀b`, 10)).toEqual({ text: `${'a'.repeat(6)}😀`, bytes: 11, truncated: true })
  })

  it('keeps at most the cap in bytes, a prefix of the body, whatever its characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 1, max: 120 }), (text, cap) => {
        const kept = keepText(text, cap)
        expect(utf8(kept.text)).toBeLessThanOrEqual(cap)
        expect(text.startsWith(kept.text)).toBe(true)
        expect(kept.bytes).toBe(utf8(text))
        expect(kept.truncated).toBe(kept.text !== text)
        // Nothing is left out that would have fitted: the next character passes the cap.
        if (kept.truncated) expect(utf8(kept.text) + utf8(String.fromCodePoint(text.codePointAt(kept.text.length) ?? 0))).toBeGreaterThan(cap)
      })
    )
  })

  it('takes the length it is told (a Content-Length) rather than measuring a long body', () => {
    expect(keepText('y'.repeat(5000), 100, 5000)).toMatchObject({ bytes: 5000, truncated: true })
  })

  it('keeps the beginning of a chunk of bytes on a character boundary, with the length of the whole body', () => {
    const chunk = Buffer.from(`${'a'.repeat(99)}ü and more`)
    expect(keepBytes(chunk, 100, 1_000_000)).toEqual({ text: 'a'.repeat(99), bytes: 1_000_000, truncated: true })
    expect(keepBytes(Buffer.from('short'), 100, 5)).toEqual({ text: 'short', bytes: 5, truncated: false })
  })

  it('charges a kept body its object and one byte a character, two when one is beyond Latin-1', () => {
    expect(bodyCharge(keepText('abc', 100))).toBe(KEPT_BODY_BYTES + 3)
    expect(bodyCharge(keepText('aé', 100))).toBe(KEPT_BODY_BYTES + 2)
    expect(bodyCharge(keepText('a€', 100))).toBe(KEPT_BODY_BYTES + 4)
    expect(bodyCharge(undefined)).toBe(0)
  })
})

describe('secrets in a kept body', () => {
  it('replaces the values of JSON fields named like credentials, and no other', () => {
    expect(redactSecrets('{"name":"a","password":"s3\\"cret","Token":12,"apiKey":true,"passwordHint":"x"}')).toBe(
      `{"name":"a","password":"${REDACTED}","Token":"${REDACTED}","apiKey":"${REDACTED}","passwordHint":"x"}`
    )
  })

  it('replaces the text of XML elements named like credentials', () => {
    expect(redactSecrets('<a><REST_PASSWORD>pw</REST_PASSWORD><secret kind="x">s</secret><name>n</name></a>')).toBe(
      `<a><REST_PASSWORD>${REDACTED}</REST_PASSWORD><secret kind="x">${REDACTED}</secret><name>n</name></a>`
    )
  })

  it('replaces credentials in URLs an answer links to (the query as sent)', () => {
    expect(redactSecrets('{"href":"https://h/x/appinfo?a=1&REST_PASSWORD=pw&b=2"}')).toBe(`{"href":"https://h/x/appinfo?a=1&REST_PASSWORD=${REDACTED}&b=2"}`)
    expect(redactSecrets('<href>https://h/x/appinfo?a=1&amp;password=pw</href>')).toBe(`<href>https://h/x/appinfo?a=1&amp;password=${REDACTED}</href>`)
    // Keys as a client may write them: with a list's brackets, escaped, or both.
    for (const key of ['REST_PASSWORD[]', 'REST_PASSWORD%5B%5D', 'REST%5FPASSWORD', 'pass%77ord']) {
      expect(redactSecrets(`{"href":"https://h/x/appinfo?${key}=pw&b=2"}`), key).toBe(`{"href":"https://h/x/appinfo?${key}=${REDACTED}&b=2"}`)
    }
    expect(redactSecrets('{"href":"https://h/x/appinfo?agentname=pw&pwd2=x"}')).toBe('{"href":"https://h/x/appinfo?agentname=pw&pwd2=x"}')
  })

  it('reads a body of question marks or ampersands without an "=" in one pass (a look to its end from each took minutes for 1 MiB)', () => {
    for (const filler of ['?', '&', '?a', '&a']) {
      const body = filler.repeat(512 * 1024 / filler.length)
      expect(redactSecrets(body)).toBe(body)
    }
  })

  it('replaces a secret the cut left unfinished', () => {
    expect(redactBody(keepText(`{"password":"${'s'.repeat(100)}"}`, 20)).text).toBe(`{"password":"${REDACTED}"`)
  })

  it('searches an answer only when its request sent a credential, in its query or its body', () => {
    const answer = keepText('{"href":"https://h/x/appinfo?password=pw"}', 4096)
    expect(answerAsKept(answer, '/x/appinfo?password=pw', undefined).text).toBe(`{"href":"https://h/x/appinfo?password=${REDACTED}"}`)
    expect(answerAsKept(answer, '/x/appinfo', redactBody(keepText('{"token":"t"}', 4096))).text).toContain(REDACTED)
    // fleetsim's answers have no credential fields of their own: one asked without any is kept as it is.
    expect(answerAsKept(answer, '/x/appinfo', keepText('{"name":"a"}', 4096))).toBe(answer)
  })
})
