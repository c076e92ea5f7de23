/**
 * Why a request's credentials did not pass, for the 401's message: the mistakes clients make
 * (headers named `REST-USER` or `X-REST-User`, credentials in the query string or in an
 * `Authorization` header, one header of the two) said as such, so a client author reads what to
 * fix rather than "missing or wrong". It never says which of two values sent was wrong: that
 * would tell a guesser a user name is right.
 */
import type { IncomingHttpHeaders } from 'node:http'

const USER = 'rest_user'
const PASSWORD = 'rest_password'
/** Header names (lower case, as Node gives them) a client may have meant for REST_USER or REST_PASSWORD. */
const NEAR_NAME = /^(?:x[-_])?rest[-_. ]?(?:user(?:name)?|pass(?:word)?|pwd)$/
/** Query parameters carrying credentials, any case. */
const IN_QUERY = /(?:^|[?&])(?:rest[-_]?)?(?:user(?:name)?|pass(?:word)?)=/i

/**
 * `rawHeaders`: the headers as sent, name and value in turn (IncomingMessage.rawHeaders). Node
 * joins a header sent twice into one value (`admin, admin`), which then read as a wrong password.
 */
export function credentialProblem(headers: IncomingHttpHeaders, url: string, rawHeaders: readonly string[] = []): string {
  const twice = [USER, PASSWORD].filter((name) => sentTimes(rawHeaders, name) > 1)
  if (twice.length > 0) return `the request sends ${twice.map((name) => name.toUpperCase()).join(' and ')} more than once, and the values are read joined ("a, b"): send each header once`
  const hasUser = typeof headers[USER] === 'string'
  const hasPassword = typeof headers[PASSWORD] === 'string'
  if (hasUser && hasPassword) return 'the user name or password is wrong'
  const missing = [hasUser ? undefined : 'REST_USER', hasPassword ? undefined : 'REST_PASSWORD'].filter((name) => name !== undefined)
  const near = nearNames(headers)
  const query = url.indexOf('?')
  const lacks = `the request has no ${missing.join(' or ')} header`
  if (near.length > 0) {
    // Some proxies drop header names with an underscore (nginx without underscores_in_headers).
    return `${lacks}, but has ${near.map((name) => JSON.stringify(name)).join(' and ')}: the header names are REST_USER and REST_PASSWORD, with an underscore (a proxy in between may drop names with underscores)`
  }
  if (query !== -1 && IN_QUERY.test(url.slice(query))) return `${lacks}; credentials in the query string are not read: send them as headers`
  if (headers.authorization !== undefined) return `${lacks}; an Authorization header is not read: send REST_USER and REST_PASSWORD headers instead`
  return lacks
}

/**
 * The credentials a request sent under names the manager does not read, when it lacks REST_USER
 * or REST_PASSWORD: headers named near them (`rest-user`, `x-rest-password`), or an
 * Authorization header; undefined otherwise. A request with both (nearly every one) costs two
 * property reads: the journal asks of every request it records.
 */
export function misnamedCredentials(headers: IncomingHttpHeaders): string | undefined {
  if (headers[USER] !== undefined && headers[PASSWORD] !== undefined) return undefined
  const near = nearNames(headers)
  if (near.length > 0) return `credentials in ${near.map((name) => JSON.stringify(name)).join(' and ')}, not REST_USER and REST_PASSWORD`
  if (headers.authorization !== undefined) return 'credentials in an Authorization header, not REST_USER and REST_PASSWORD'
  return undefined
}

/** The request's header names near REST_USER or REST_PASSWORD, but not them. */
function nearNames(headers: IncomingHttpHeaders): string[] {
  return Object.keys(headers).filter((name) => name !== USER && name !== PASSWORD && NEAR_NAME.test(name))
}

function sentTimes(rawHeaders: readonly string[], name: string): number {
  let times = 0
  for (let k = 0; k < rawHeaders.length; k += 2) if (rawHeaders[k].toLowerCase() === name) times++
  return times
}
