/**
 * The journal's ring of answer texts (src/journal/text-ring.ts): texts kept as UTF-8 bytes, first
 * in first out, read back exactly however the buffer wrapped or grew.
 */
import { describe, expect, it } from 'vitest'
import { NO_ROOM, TextRing } from '../../src/journal/text-ring.js'

const add = (ring: TextRing, text: string) => ring.add(Buffer.from(text))

describe('the text ring', () => {
  it('reads back every text held, of any characters, and refuses one no longer held', () => {
    const ring = new TextRing(8, 1 << 20)
    const texts = ['plain', 'é€ – 😀', '{"name":"a\\u2028b"}', '<a>&amp;</a>', 'x'.repeat(5000)]
    const numbers = texts.map((text) => add(ring, text))
    expect(numbers).toEqual([0, 1, 2, 3, 4])
    expect(numbers.map((n) => ring.text(n))).toEqual(texts)
    ring.dropOldest()
    expect(() => ring.text(0)).toThrow(/not held/)
    expect(ring.text(1)).toBe(texts[1])
    expect(ring.count).toBe(4)
  })

  it('grows from 64 KiB by doubling, the texts kept in order, up to its largest', () => {
    const ring = new TextRing(1000, 256 * 1024)
    const text = (k: number) => `${k}:`.padEnd(1000, String.fromCharCode(97 + (k % 26)))
    for (let k = 0; k < 200; k++) expect(add(ring, text(k))).toBe(k)
    expect(ring.capacity).toBe(256 * 1024)
    for (let k = 0; k < 200; k++) expect(ring.text(k)).toBe(text(k))
    // At its largest with 262 texts of 1,000 bytes: the next waits for the oldest to go.
    for (let k = 200; k < 262; k++) expect(add(ring, text(k))).toBe(k)
    expect(add(ring, text(262))).toBe(NO_ROOM)
    ring.dropOldest()
    expect(add(ring, text(262))).toBe(262)
  })

  it('wraps round to its start, and never writes over a text held', () => {
    const ring = new TextRing(100, 64 * 1024)
    // Lengths of 1 to 9,000 bytes drawn from a fixed sequence: texts end at every offset.
    let seed = 12345
    const lengths = Array.from({ length: 3000 }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), 1 + (seed % 9000)))
    const text = (k: number) => `${k}|`.padEnd(lengths[k], String.fromCharCode(65 + (k % 26))).slice(0, lengths[k])
    const held: number[] = []
    for (let k = 0; k < lengths.length; k++) {
      let n = add(ring, text(k))
      while (n === NO_ROOM) {
        ring.dropOldest()
        held.shift()
        n = add(ring, text(k))
      }
      expect(n).toBe(k)
      held.push(k)
      // Every text still held reads back whole after each add.
      for (const h of held) expect(ring.text(h)).toBe(text(h))
    }
    expect(ring.capacity).toBe(64 * 1024)
    expect(held.length).toBeGreaterThan(4)
  })

  it('holds at most maxTexts texts, and starts again from empty once they are dropped', () => {
    const ring = new TextRing(2, 1 << 20)
    expect([add(ring, 'a'), add(ring, 'b'), add(ring, 'c')]).toEqual([0, 1, NO_ROOM])
    ring.dropOldest()
    ring.dropOldest()
    expect(ring.count).toBe(0)
    expect(add(ring, 'c')).toBe(2)
    expect(ring.text(2)).toBe('c')
    expect(ring.fits(1 << 20)).toBe(true)
    expect(ring.fits((1 << 20) + 1)).toBe(false)
  })
})
