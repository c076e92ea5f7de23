import { describe, expect, it } from 'vitest'
import { AskedOnce } from '../../src/http/asked-once.js'

const url = (n: number) => `/manager/mvc/restservice/agentinfo?agentname=web-par-${String(n).padStart(6, '0')}`

describe('AskedOnce', () => {
  it('counts a URL asked for again among the last `capacity` notes, then forgets it', () => {
    const asked = new AskedOnce(3)
    expect(asked.askedAgain(url(1))).toBe(false)
    asked.note(url(2))
    asked.note(url(3))
    expect(asked.askedAgain(url(1))).toBe(true)
    // Taken: its next request is a first again.
    expect(asked.askedAgain(url(1))).toBe(false)
    expect(asked.askedAgain(url(1))).toBe(true)
  })

  it('forgets a URL once `capacity` notes came after it', () => {
    const asked = new AskedOnce(3)
    for (const n of [1, 2, 3, 4]) asked.note(url(n))
    expect(asked.askedAgain(url(1))).toBe(false)
    // Noted again just now by that miss; 2 is gone too, 4 is not.
    expect(asked.askedAgain(url(2))).toBe(false)
    expect(asked.askedAgain(url(4))).toBe(true)
  })

  it('a URL noted again counts from its last note', () => {
    const asked = new AskedOnce(3)
    asked.note(url(1))
    asked.note(url(2))
    asked.note(url(1))
    asked.note(url(3))
    asked.note(url(4))
    expect(asked.askedAgain(url(1))).toBe(true)
  })

  it('many URLs in turn: each counts for exactly `capacity` notes', () => {
    const capacity = 1024
    const asked = new AskedOnce(capacity)
    // Within the window every URL is found (no set gave up a slot early) ...
    for (let n = 0; n < capacity; n++) asked.note(url(n))
    let found = 0
    for (let n = 0; n < capacity; n++) if (asked.askedAgain(url(n))) found++
    expect(found).toBe(capacity)
    // ... and 2,000 agents in turn, each asked again after 1,999 others, keep nothing.
    const inTurn = new AskedOnce(capacity)
    let again = 0
    for (let round = 0; round < 3; round++) for (let n = 0; n < 2000; n++) if (inTurn.askedAgain(url(n))) again++
    expect(again).toBe(0)
  })

  it('counts nothing with a capacity of 0, and nothing after clear()', () => {
    const none = new AskedOnce(0)
    none.note(url(1))
    expect(none.askedAgain(url(1))).toBe(false)
    const asked = new AskedOnce(4)
    asked.note(url(1))
    asked.clear()
    expect(asked.askedAgain(url(1))).toBe(false)
  })

  it('tells apart URLs that differ in one character, wherever it is', () => {
    const asked = new AskedOnce(256)
    const base = url(123456)
    asked.note(base)
    for (let k = 0; k < base.length; k++) {
      const other = base.slice(0, k) + String.fromCharCode(base.charCodeAt(k) ^ 1) + base.slice(k + 1)
      expect(asked.askedAgain(other)).toBe(false)
    }
    expect(asked.askedAgain(base)).toBe(true)
  })
})
