/** Where text that should be UTF-8 is not: for messages that point at the byte to fix. */

/**
 * Where the first byte that breaks UTF-8's structure is: a continuation byte without a lead, or
 * a lead without its continuations. Undefined when the structure holds and the fault is finer
 * (an overlong form, a surrogate): node:buffer's isUtf8 finds those, and a message then gives
 * no position.
 */
export function firstBadUtf8Byte(bytes: Uint8Array): number | undefined {
  for (let at = 0; at < bytes.length; ) {
    const lead = bytes[at]
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0
    if (length === 0) return at
    for (let k = 1; k < length; k++) if (at + k >= bytes.length || (bytes[at + k] & 0xc0) !== 0x80) return at
    at += length
  }
  return undefined
}
