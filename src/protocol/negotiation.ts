/**
 * Chooses the response format. In order:
 * 1. the `.json` / `.xml` suffix of the operation (agentinfo, agentmanager, appinfo,
 *    certificateinfo) replaces the headers;
 * 2. the `accept` header: of JSON and XML, the one whose most specific range has the highest q
 *    wins (parseAccept); q=0 excludes a type even beside a wildcard; wildcards (`*∕*`,
 *    `application/*`, `text/*`: XML only) naming both alike express no preference;
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

/** How an Accept range names a format: the most specific range naming it gives its q (RFC 9110, 12.5.1). */
const Match = {
  NONE: 0,
  /** `*∕*` */
  ANY: 1,
  /** `application/*`; for XML `text/*` too (text/xml is XML) */
  SUBTYPES: 2,
  /** the format's own type (`application/json`, `application/xml`, `text/xml`, `+json`, `+xml`) */
  EXACT: 3
} as const
type Match = (typeof Match)[keyof typeof Match]

function matchOf(type: string, format: Format): Match {
  if (formatOfType(type) === format) return Match.EXACT
  if (type === 'application/*' || (format === 'xml' && type === 'text/*')) return Match.SUBTYPES
  return type === '*/*' ? Match.ANY : Match.NONE
}

/**
 * The format the ranges of `accept` prefer: for each of JSON and XML, the q of the most specific
 * range that names it (q=0: not acceptable, RFC 9110 12.4.2, even beside a wildcard); the higher
 * q wins. On a tie, a format named by its own type wins over one a wildcard names, the earlier
 * named of two; two a wildcard names alike are no preference (undefined). A q that is no number
 * counts as 1, one above 1 as 1.
 */
function parseAccept(accept: string): Preference {
  const none = { match: Match.NONE as Match, q: 0, at: 0 }
  const named = { json: none, xml: none }
  let at = 0
  for (const range of accept.split(',')) {
    const [rawType, ...params] = range.split(';')
    const type = rawType.trim().toLowerCase()
    if (type === '') continue
    at++
    let q = 1
    for (const param of params) {
      const [k, v] = param.split('=')
      if (k.trim().toLowerCase() !== 'q') continue
      // Number('') and Number(' ') are 0: a q with no number counts as 1, as one that is not one.
      const value = v === undefined || v.trim() === '' ? NaN : Number(v)
      q = Number.isNaN(value) ? 1 : Math.min(1, Math.max(0, value))
    }
    for (const format of ['json', 'xml'] as const) {
      const match = matchOf(type, format)
      if (match > named[format].match) named[format] = { match, q, at }
    }
  }
  const { json, xml } = named
  // An accept of no ranges at all (`,`) states no preference; one whose ranges name neither, or refuse both, accepts nothing.
  if (json.q <= 0 && xml.q <= 0) return at === 0 ? undefined : null
  if (json.q !== xml.q) return json.q > xml.q ? 'json' : 'xml'
  if (json.match === Match.EXACT && xml.match === Match.EXACT) return json.at < xml.at ? 'json' : 'xml'
  if (json.match === Match.EXACT || xml.match === Match.EXACT) return json.match === Match.EXACT ? 'json' : 'xml'
  return undefined
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
