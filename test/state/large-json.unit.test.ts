import { describe, expect, it } from 'vitest'
import { jsonPieces, parseJsonBytes } from '../../src/state/large-json.js'

const withProtoKey = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object

/** Values covering what JSON.stringify treats specially. */
const SAMPLES: Array<[string, unknown]> = [
  ['a nested object', { a: [1, 2, { b: 'c', d: [[], {}] }], e: null, f: true, g: false }],
  ['text needing escapes', { quote: '"', backslash: '\\', control: '\u0000\u001f\n\t', lone: '\ud800', emoji: '😀', umlaut: 'Grüße' }],
  ['numbers', [0, -0, 1.5, -2e-7, 1e21, Number.MAX_SAFE_INTEGER, Number.NaN, Number.POSITIVE_INFINITY]],
  ['members JSON leaves out', { keep: 1, gone: undefined, fn: () => 1, sym: Symbol('s'), also: 2 }],
  ['array items JSON writes as null', [undefined, () => 1, Symbol('s'), 3]],
  ['an array with holes', [1, , 3]], // eslint-disable-line no-sparse-arrays
  ['values with toJSON', { when: new Date(Date.UTC(2026, 0, 2)), custom: { toJSON: (key: string) => `key ${key}` } }],
  ['boxed primitives', [Object(1), Object('s'), Object(false)]],
  ['a __proto__ key', withProtoKey],
  ['an empty object', {}],
  ['a bare string', 'just text'],
  ['deep nesting', JSON.parse('['.repeat(500) + ']'.repeat(500))]
]

describe('jsonPieces', () => {
  it.each(SAMPLES)('writes %s as JSON.stringify does', (_name, value) => {
    expect([...jsonPieces(value, 8)].join('')).toBe(JSON.stringify(value))
  })

  it('cuts a large value into pieces near the asked length', () => {
    const value = { items: Array.from({ length: 1000 }, (_, i) => ({ id: i, text: 'x'.repeat(100) })) }
    const pieces = [...jsonPieces(value, 4096)]
    expect(pieces.length).toBeGreaterThan(20)
    // A piece passes the length by at most one leaf (here a short member).
    for (const piece of pieces) expect(piece.length).toBeLessThan(4096 + 200)
    expect(pieces.join('')).toBe(JSON.stringify(value))
  })

  it('refuses a circular structure, as JSON.stringify does', () => {
    const loop: Record<string, unknown> = { a: 1 }
    loop.self = { back: loop }
    expect(() => [...jsonPieces(loop)]).toThrow(TypeError)
  })

  it('writes a shared (not circular) object each time it appears', () => {
    const shared = { s: 1 }
    expect([...jsonPieces([shared, shared])].join('')).toBe('[{"s":1},{"s":1}]')
  })

  it('refuses a BigInt, as JSON.stringify does', () => {
    expect(() => [...jsonPieces({ n: 1n })]).toThrow(TypeError)
  })
})

describe('parseJsonBytes', () => {
  const bytes = (text: string) => new TextEncoder().encode(text)

  it.each(SAMPLES)('reads %s as JSON.parse does', (_name, value) => {
    const text = JSON.stringify(value)
    expect(parseJsonBytes(bytes(text))).toEqual(JSON.parse(text))
  })

  it.each([
    ['white space everywhere', ' \n\t{ "a" : [ 1 , 2 ] ,\r\n "b" : { } } \n'],
    ['escapes', '["\\u00fc\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\"\\\\"]'],
    ['exponents and signs', '[1E3,-1e-3,0.5e+2,-0]'],
    ['a duplicate key (the last wins)', '{"a":1,"a":2}'],
    ['a bare literal', 'null']
  ])('reads %s as JSON.parse does', (_name, text) => {
    expect(parseJsonBytes(bytes(text))).toEqual(JSON.parse(text))
  })

  it('keeps a __proto__ key as an own property and never as the prototype', () => {
    const value = parseJsonBytes(bytes('{"__proto__": {"polluted": true}}')) as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('reads text within a larger buffer', () => {
    const all = bytes('xx{"a":"ü"}yy')
    expect(parseJsonBytes(all.subarray(2, all.byteLength - 2))).toEqual({ a: 'ü' })
  })

  it('reads nesting deeper than a recursive reader could', () => {
    const depth = 200_000
    let value = parseJsonBytes(bytes('['.repeat(depth) + ']'.repeat(depth)))
    let levels = 0
    while (Array.isArray(value) && value.length > 0) {
      value = value[0]
      levels++
    }
    expect(levels).toBe(depth - 1)
  })

  it.each([
    ['an empty text', ''],
    ['a missing value', '{"a":}'],
    ['a trailing comma', '[1,]'],
    ['a missing colon', '{"a" 1}'],
    ['an unquoted key', '{a:1}'],
    ['an unterminated string', '["abc'],
    ['an unclosed array', '[1,2'],
    ['text after the value', '{} {}'],
    ['a bad literal', 'nul'],
    ['a bad number', '[01]'],
    ['a bad escape', '["\\x"]'],
    ['a raw control character in a string', '["a\u0001b"]']
  ])('refuses %s with a SyntaxError, as JSON.parse does', (_name, text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError)
    expect(() => parseJsonBytes(bytes(text))).toThrow(SyntaxError)
  })

  it('names the byte offset of the problem', () => {
    expect(() => parseJsonBytes(bytes('{"a":1,"b":?}'))).toThrow('at byte 11 of the JSON text')
  })
})
