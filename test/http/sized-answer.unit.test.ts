/**
 * sizedItemsAnswer (src/http/reply.ts) counts an answer's UTF-8 bytes part by part, so the fast
 * path can send the length without making the answer one string: the count must be the whole
 * answer's, for any items, links and format.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { itemsAnswer, sizedItemsAnswer } from '../../src/http/reply.js'

describe('sizedItemsAnswer', () => {
  it('is itemsAnswer, and its length in UTF-8 bytes', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', 'é', '名前', '😀', '<&>"\''))
    fc.assert(
      fc.property(
        fc.constantFrom('json' as const, 'xml' as const),
        fc.array(text, { maxLength: 4 }),
        fc.option(fc.array(fc.record({ rel: text, href: text }), { maxLength: 2 }), { nil: undefined }),
        (format, items, links) => {
          const sized = sizedItemsAnswer(format, 'agentinfo', items, links)
          expect(sized.text).toBe(itemsAnswer(format, 'agentinfo', items, links))
          expect(sized.bytes).toBe(Buffer.byteLength(sized.text))
        }
      )
    )
  })

  it('counts a character whose halves are in two items (XML items are joined with nothing between)', () => {
    const sized = sizedItemsAnswer('xml', 'agentinfo', ['<values>\ud83d', '\ude00</values>'])
    expect(sized.bytes).toBe(Buffer.byteLength(sized.text))
  })
})
