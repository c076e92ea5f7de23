/**
 * Who may use the console, and which requests may change the simulation.
 *
 * Two ways in, both with the admin credentials (--admin-user/--admin-password): the login form
 * at /console/login, which sets a session cookie (session.ts), and HTTP Basic authentication on
 * every request, for scripts and tests. The REST API's header authentication is untouched.
 *
 * Cross-site requests: the cookie is SameSite=Strict, so another site's page cannot make the
 * browser send it; and every request that changes something (any method but GET and HEAD) must
 * carry the header `X-Fleetsim-Console`, which an HTML form cannot send and a script on another
 * origin cannot send without a CORS preflight the console never grants. The header is required
 * with Basic authentication too, because browsers resend cached Basic credentials to any site's
 * requests. An `Origin` other than the console's own is refused as well.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyRequest } from 'fastify'
import type { AuthCheck } from '../protocol/auth.js'
import type { Session, SessionStore } from './session.js'

export const SESSION_COOKIE = 'fleetsim_console'
/** The header every state-changing console request must carry (any value). */
export const CONSOLE_HEADER = 'x-fleetsim-console'

/** The value of one cookie in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/** Set-Cookie for a new session: HttpOnly, SameSite=Strict, Secure over TLS, limited to /console. */
export function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`
}

/** Set-Cookie that removes the session cookie. */
export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`
}

/** User and password of an `Authorization: Basic …` header, or undefined. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  if (header === undefined) return undefined
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  if (match === null) return undefined
  const text = Buffer.from(match[1], 'base64').toString('utf8')
  const at = text.indexOf(':')
  return at === -1 ? undefined : { user: text.slice(0, at), password: text.slice(at + 1) }
}

/**
 * Whether a user and password are the admin credentials (timing-safe: the REST check's own
 * comparison). Given as text (a login form's, or Basic's decoded as UTF-8), handed to the check
 * as headers come: a character per byte of their UTF-8.
 */
export function credentialsMatch(adminCheck: AuthCheck, user: string, password: string): boolean {
  const asReceived = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
  return adminCheck({ rest_user: asReceived(user), rest_password: asReceived(password) })
}

export interface ConsoleUser {
  readonly user: string
  readonly via: 'session' | 'basic'
}

/** The console user of a request: a live session cookie, or valid Basic credentials; else undefined. */
export function consoleUser(headers: IncomingHttpHeaders, sessions: SessionStore, adminCheck: AuthCheck): ConsoleUser | undefined {
  const session: Session | undefined = sessions.get(readCookie(headers.cookie, SESSION_COOKIE))
  if (session !== undefined) return { user: session.user, via: 'session' }
  const basic = basicCredentials(headers.authorization)
  if (basic !== undefined && credentialsMatch(adminCheck, basic.user, basic.password)) return { user: basic.user, via: 'basic' }
  return undefined
}

/** Methods that only read. */
export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD'
}

/** Whether the request names an Origin other than this server (a page of another site sent it). */
export function foreignOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin
  if (origin === undefined) return false
  // Browsers send "null" from sandboxed frames and some redirects: not this console's pages.
  if (origin === 'null') return true
  try {
    // Read the Host header with the Origin's scheme, so a default port written or not compares equal.
    const from = new URL(origin)
    return from.host !== new URL(`${from.protocol}//${request.headers.host ?? ''}`).host
  } catch {
    return true
  }
}

/**
 * Why a state-changing request is refused as possibly cross-site, or undefined when it may go
 * on: its Origin is another site's, or it lacks the console header.
 */
export function crossSiteReason(request: FastifyRequest): 'header' | 'origin' | undefined {
  if (foreignOrigin(request)) return 'origin'
  return request.headers[CONSOLE_HEADER] === undefined ? 'header' : undefined
}
