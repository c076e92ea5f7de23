/**
 * JSON laid out for reading in the docs: a value that fits on one line stays on it
 * (`{ "key": value, … }`); a longer object or array opens a block whose items are packed onto
 * lines two spaces in, as many to a line as fit, and an item too long for a line of its own
 * is laid out the same way.
 */

/** The docs' fenced blocks stay readable without scrolling at this width. */
export const DOC_WIDTH = 130

function flat(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[ ${value.map(flat).join(', ')} ]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    return entries.length === 0 ? '{}' : `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${flat(item)}`).join(', ')} }`
  }
  return JSON.stringify(value)
}

function lines(value: unknown, indent: number, prefix: string, suffix: string, width: number): string[] {
  const pad = ' '.repeat(indent)
  const one = `${pad}${prefix}${flat(value)}${suffix}`
  if (one.length <= width || value === null || typeof value !== 'object') return [one]
  const items: Array<[string, unknown]> = Array.isArray(value) ? value.map((item) => ['', item]) : Object.entries(value).map(([key, item]) => [`${JSON.stringify(key)}: `, item])
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
  const inner = ' '.repeat(indent + 2)
  const out = [`${pad}${prefix}${open}`]
  let line = ''
  const flush = () => {
    if (line !== '') out.push(line)
    line = ''
  }
  for (const [index, [key, item]] of items.entries()) {
    const comma = index < items.length - 1 ? ',' : ''
    const text = `${key}${flat(item)}${comma}`
    if (line !== '' && line.length + 1 + text.length <= width) line += ` ${text}`
    else if (inner.length + text.length <= width) {
      flush()
      line = `${inner}${text}`
    } else {
      flush()
      out.push(...lines(item, indent + 2, key, comma, width))
    }
  }
  flush()
  out.push(`${pad}${close}${suffix}`)
  return out
}

/** `value` as JSON text laid out within `width` columns where the values allow. */
export function layoutJson(value: unknown, width = DOC_WIDTH): string {
  return lines(value, 0, '', '', width).join('\n')
}
