/**
 * Chooses the response format. In order:
 * 1. the `.json` / `.xml` suffix of the operation (agentinfo, agentmanager, appinfo,
 *    certificateinfo) replaces the headers;
 * 2. the `accept` header: the JSON or XML media type with the highest q wins (the earlier one
 *    on a tie); wildcards (`*∕*`, `application/*`, `text/*`) express no preference;
 * 3. with no preference, the request's own `Content-Type` (a JSON body gets a JSON answer);
 * 4. otherwise XML, as the real manager answers a request without `accept` (facts notes).
 * An `accept` that names only other types (e.g. `text/html`) gets 406.
 */
export type Format = 'json' | 'xml'

export const JSON_TYPE = 'application/json; charset=utf-8'
export const XML_TYPE = 'application/xml; charset=utf-8'

/** `undefined`: no preference; `null`: nothing acceptable. */
type Preference = Format | undefined | null

const cache = new Map<string, Preference>()

export function preferenceOf(accept: string): Preference {
  let preference = cache.get(accept)
  if (preference === undefined && !cache.has(accept)) {
    preference = parseAccept(accept)
    // Accept strings come from clients; a small bound keeps a hostile client from growing it.
    if (cache.size < 256) cache.set(accept, preference)
  }
  return preference
}

function parseAccept(accept: string): Preference {
  let best: Format | undefined
  let bestQ = 0
  let wildcard = false
  for (const range of accept.split(',')) {
    const [rawType, ...params] = range.split(';')
    const type = rawType.trim().toLowerCase()
    if (type === '') continue
    let q = 1
    for (const param of params) {
      const [k, v] = param.split('=')
      if (k.trim().toLowerCase() === 'q') q = Number(v) || 0
    }
    if (q <= 0) continue
    const format = formatOfType(type)
    if (format !== undefined) {
      if (q > bestQ) {
        best = format
        bestQ = q
      }
    } else if (type === '*/*' || type === 'application/*' || type === 'text/*') {
      wildcard = true
    }
  }
  if (best !== undefined) return best
  return wildcard ? undefined : null
}

/** The format of a concrete media type, or undefined for any other type. */
export function formatOfType(mediaType: string): Format | undefined {
  const type = mediaType.split(';')[0].trim().toLowerCase()
  if (type === 'application/json' || type.endsWith('+json')) return 'json'
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml'
  return undefined
}

/** `null` when the client accepts neither JSON nor XML. */
export function negotiate(suffix: Format | undefined, accept: string | undefined, contentType: string | undefined): Format | null {
  if (suffix !== undefined) return suffix
  if (accept !== undefined && accept !== '') {
    const preference = preferenceOf(accept)
    if (preference !== undefined) return preference
  }
  if (contentType !== undefined) return formatOfType(contentType) ?? 'xml'
  return 'xml'
}
