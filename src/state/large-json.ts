/**
 * JSON texts larger than one JavaScript string can hold (V8: about 512 Mi UTF-16 units). The
 * state file's header is one JSON text holding everything the manager stores; within the
 * stored-data limits it may pass that size, where `JSON.stringify` throws "Invalid string
 * length" and `JSON.parse` cannot even be handed the text.
 *
 * - `jsonPieces` writes a value as a series of strings whose concatenation is exactly what
 *   `JSON.stringify(value)` returns: objects and arrays are walked element by element, each
 *   leaf is stringified on its own.
 * - `parseJsonBytes` reads UTF-8 JSON from bytes into what `JSON.parse` returns for the same
 *   text: the structure is walked byte by byte, each string and number leaf is decoded alone.
 *
 * Both keep their own stack instead of recursing, so nesting depth is bounded by memory, not
 * by the call stack.
 */

type Frame =
  | { kind: 'array'; array: readonly unknown[]; index: number }
  | { kind: 'object'; object: Record<string, unknown>; keys: string[]; index: number; written: number }

/** What JSON.stringify leaves out of objects (and writes as null in arrays). */
function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol'
}

/** Boxed primitives are written as their value, as JSON.stringify does. */
function isBoxed(value: object): boolean {
  return value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt
}

/** `value.toJSON(key)` when it has one (a Date, for instance), as JSON.stringify calls it. */
function jsonValue(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON(key: string): unknown }).toJSON(key)
  }
  return value
}

/**
 * The JSON text of `value` in pieces of about `pieceLength` UTF-16 units (a piece may run past
 * it by one leaf). Throws TypeError, as JSON.stringify does, for a circular structure, a
 * BigInt, or a value that has no JSON text (undefined, a function).
 */
export function* jsonPieces(value: unknown, pieceLength = 1 << 20): Generator<string, void, undefined> {
  const stack: Frame[] = []
  // The containers being written: meeting one again is a cycle.
  const open = new Set<object>()
  let out = ''

  const write = (item: unknown): void => {
    if (Array.isArray(item)) {
      if (open.has(item)) throw new TypeError('Converting circular structure to JSON')
      open.add(item)
      out += '['
      stack.push({ kind: 'array', array: item, index: 0 })
    } else if (typeof item === 'object' && item !== null && !isBoxed(item)) {
      if (open.has(item)) throw new TypeError('Converting circular structure to JSON')
      open.add(item)
      out += '{'
      stack.push({ kind: 'object', object: item as Record<string, unknown>, keys: Object.keys(item), index: 0, written: 0 })
    } else {
      out += JSON.stringify(item)
    }
  }

  const top = jsonValue(value, '')
  if (isSkipped(top)) throw new TypeError(`${typeof top} has no JSON text`)
  write(top)
  while (stack.length > 0) {
    if (out.length >= pieceLength) {
      yield out
      out = ''
    }
    const frame = stack[stack.length - 1]
    if (frame.kind === 'array') {
      if (frame.index === frame.array.length) {
        out += ']'
        stack.pop()
        open.delete(frame.array)
        continue
      }
      if (frame.index > 0) out += ','
      const index = frame.index++
      const item = jsonValue(frame.array[index], String(index))
      if (isSkipped(item)) out += 'null'
      else write(item)
    } else {
      if (frame.index === frame.keys.length) {
        out += '}'
        stack.pop()
        open.delete(frame.object)
        continue
      }
      const key = frame.keys[frame.index++]
      const item = jsonValue(frame.object[key], key)
      if (isSkipped(item)) continue
      out += `${frame.written++ > 0 ? ',' : ''}${JSON.stringify(key)}:`
      write(item)
    }
  }
  if (out !== '') yield out
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
/** The literals by their first byte. */
const LITERALS: ReadonlyMap<number | undefined, [string, unknown]> = new Map([
  [0x74, ['true', true]],
  [0x66, ['false', false]],
  [0x6e, ['null', null]]
])

/** Characters JSON strings must escape below U+0020. */
const CONTROL = /[\u0000-\u001f]/ // eslint-disable-line no-control-regex

/** Digits, signs, the decimal point and the exponent: the bytes a number leaf is made of. */
function isNumberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45
}

type Container = { kind: 'array'; array: unknown[] } | { kind: 'object'; object: Record<string, unknown>; key: string }

/**
 * The value of the UTF-8 JSON text in `bytes`, as JSON.parse would return it for the decoded
 * text (a `__proto__` key becomes an own property, never the prototype). Throws SyntaxError
 * naming the byte offset of the first problem.
 */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = text.byteLength
  let at = 0

  const fail = (problem: string): never => {
    throw new SyntaxError(`${problem} at byte ${at} of the JSON text`)
  }
  const skipSpace = (): void => {
    for (;;) {
      const c = text[at]
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return
      at++
    }
  }
  const expect = (byte: number, what: string): void => {
    skipSpace()
    if (text[at] !== byte) fail(`expected ${what}`)
    at++
  }
  // A string leaf, from its opening quote. In UTF-8 the bytes of a quote and a backslash never
  // occur inside a multi-byte character, so searching bytes finds the closing quote; the
  // searches are Buffer.indexOf's (native), which matters for strings of many KiB.
  const readString = (): string => {
    const start = at
    let from = at + 1
    let escaped = false
    for (;;) {
      const quote = text.indexOf(QUOTE, from)
      if (quote < 0) {
        at = start
        return fail('unterminated string')
      }
      const backslash = text.subarray(from, quote).indexOf(BACKSLASH)
      if (backslash < 0) {
        at = quote + 1
        break
      }
      // An escape before the quote: skip the escaped character and look again after it.
      escaped = true
      from = from + backslash + 2
    }
    if (!escaped) {
      const plain = text.toString('utf8', start + 1, at - 1)
      // JSON.parse refuses raw control characters; leave those to it, below.
      if (!CONTROL.test(plain)) return plain
    }
    try {
      return JSON.parse(text.toString('utf8', start, at)) as string
    } catch {
      at = start
      return fail('invalid string')
    }
  }
  const readKey = (): string => {
    skipSpace()
    if (text[at] !== QUOTE) fail('expected a string key')
    const key = readString()
    expect(COLON, '":"')
    return key
  }
  const readScalar = (): unknown => {
    const c = text[at]
    if (c === QUOTE) return readString()
    const literal = LITERALS.get(c)
    if (literal !== undefined) {
      if (text.toString('latin1', at, at + literal[0].length) !== literal[0]) fail(`expected ${literal[0]}`)
      at += literal[0].length
      return literal[1]
    }
    const start = at
    while (at < end && isNumberByte(text[at])) at++
    if (at === start) fail(at >= end ? 'unexpected end' : `unexpected ${JSON.stringify(String.fromCharCode(c))}`)
    try {
      return JSON.parse(text.toString('latin1', start, at)) as number
    } catch {
      at = start
      return fail('invalid number')
    }
  }
  const place = (object: Record<string, unknown>, key: string, value: unknown): void => {
    // JSON.parse makes "__proto__" an own property; assigning it would set the prototype.
    if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true })
    else object[key] = value
  }

  const stack: Container[] = []
  for (;;) {
    // A value: a container opens (and its first member is read next), or a leaf is read.
    skipSpace()
    let value: unknown
    const c = text[at]
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      at++
      skipSpace()
      const empty = text[at] === (c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)
      if (empty) {
        at++
        value = c === OPEN_BRACE ? {} : []
      } else {
        stack.push(c === OPEN_BRACE ? { kind: 'object', object: {}, key: readKey() } : { kind: 'array', array: [] })
        continue
      }
    } else {
      value = readScalar()
    }
    // The value is complete: place it, then close every container it completes.
    for (;;) {
      const container = stack[stack.length - 1]
      if (container === undefined) {
        skipSpace()
        if (at !== end) fail('unexpected text after the value')
        return value
      }
      if (container.kind === 'array') container.array.push(value)
      else place(container.object, container.key, value)
      skipSpace()
      if (text[at] === COMMA) {
        at++
        if (container.kind === 'object') container.key = readKey()
        break
      }
      expect(container.kind === 'array' ? CLOSE_BRACKET : CLOSE_BRACE, container.kind === 'array' ? '"," or "]"' : '"," or "}"')
      stack.pop()
      value = container.kind === 'array' ? container.array : container.object
    }
  }
}
