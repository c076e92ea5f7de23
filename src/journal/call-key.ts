/**
 * The call key of a journal entry: a digest of method, operation, parameters (in any order)
 * and body, equal when a client makes the same call again (the report's retries).
 */
import { createHash } from 'node:crypto'
import { parseQuery } from './rules.js'

/** Equal for the same call made again: method, operation, parameters (any order) and body. */
export function callKey(method: string, operation: string, rawQuery: string, body: unknown): string {
  const params = [...parseQuery(rawQuery)].map(([k, v]) => `${k}=${v.join('\u0000')}`).sort()
  return createHash('sha1')
    .update(`${method} ${operation}\n${params.join('&')}\n${body === undefined ? '' : bodyText(body)}`)
    .digest('hex')
    .slice(0, 16)
}

/** Text put on the work list as is (punctuation and keys), as opposed to a value to write. */
class Literal {
  constructor(readonly text: string) {}
}

const COMMA = new Literal(',')
const CLOSE_ARRAY = new Literal(']')
const CLOSE_OBJECT = new Literal('}')

/**
 * A parsed body as JSON.stringify writes it, without recursion: a client may send a body
 * nested 100,000 deep (it gets 400), and JSON.stringify overflows the stack on it, which lost
 * the request's journal entry. A work list of values and punctuation, last first.
 */
export function bodyText(body: unknown): string {
  const out: string[] = []
  const todo: unknown[] = [body]
  while (todo.length > 0) {
    const item = todo.pop()
    if (item instanceof Literal) {
      out.push(item.text)
    } else if (item === null || typeof item !== 'object') {
      // Parsed bodies hold strings, numbers, booleans and null; anything else as JSON has it in an array.
      out.push(JSON.stringify(item) ?? 'null')
    } else if (Array.isArray(item)) {
      out.push('[')
      todo.push(CLOSE_ARRAY)
      for (let i = item.length - 1; i >= 0; i--) {
        todo.push(item[i])
        if (i > 0) todo.push(COMMA)
      }
    } else {
      const record = item as Record<string, unknown>
      const keys = Object.keys(record)
      out.push('{')
      todo.push(CLOSE_OBJECT)
      for (let i = keys.length - 1; i >= 0; i--) {
        todo.push(record[keys[i]], new Literal(`${JSON.stringify(keys[i])}:`))
        if (i > 0) todo.push(COMMA)
      }
    }
  }
  return out.join('')
}
