/**
 * GET /console/login (the form), POST /console/login (user and password, form-encoded: a
 * session cookie and a redirect to the page asked for), POST /console/logout. The form is
 * plain HTML that works without a script.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AuthCheck } from '../protocol/auth.js'
import { apiError } from '../protocol/errors.js'
import { CONSOLE_HEADER, SESSION_COOKIE, clearedCookie, consoleUser, credentialsMatch, foreignOrigin, readCookie, sessionCookie } from './auth.js'
import { PAGE_HEADERS } from './layout.js'
import { document, html, raw } from './markup.js'
import { ASSETS, CONSOLE_PREFIX } from './paths.js'
import { SESSION_TTL_MS, type SessionStore } from './session.js'

export const LOGIN_PATH = `${CONSOLE_PREFIX}/login`
export const HOME_PATH = `${CONSOLE_PREFIX}/fleet`

/**
 * Where to go after logging in: a console path only, so the form is no open redirect. It goes
 * into a Location header, which takes printable ASCII only (Node refused the redirect with a
 * 500 for `/console/東` or a CR/LF): any other character is sent percent-encoded, as a browser
 * sends it; a path that cannot be (a lone surrogate) goes home.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith(`${CONSOLE_PREFIX}/`) || next.startsWith('//') || next.includes('\\') || next.startsWith(LOGIN_PATH)) return HOME_PATH
  try {
    return next.replace(/[^\x21-\x7e]/gu, (character) => encodeURIComponent(character))
  } catch {
    return HOME_PATH
  }
}

/** The login page's location for a request that needs a login. */
export function loginLocation(request: FastifyRequest): string {
  return `${LOGIN_PATH}?next=${encodeURIComponent(request.url)}`
}

function loginPage(next: string, error?: string): string {
  return document({
    title: 'Log in · fleetsim console',
    styles: [`${ASSETS}/console.css`],
    scripts: [],
    body: html`<main id="main" class="login">
  <h1>fleetsim console</h1>
  <form method="post" action="${LOGIN_PATH}" class="panel">
    <p>Log in with the admin credentials (<code>--admin-user</code>, <code>--admin-password</code>; by default the REST ones).</p>
    ${error === undefined ? raw('') : html`<p class="message error" role="alert" id="login-error">${error}</p>`}
    <input type="hidden" name="next" value="${next}">
    <label for="user">User</label>
    <input id="user" name="user" autocomplete="username" required autofocus${raw(error === undefined ? '' : ' aria-describedby="login-error"')}>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <button type="submit">Log in</button>
  </form>
</main>`
  })
}

function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').headers(PAGE_HEADERS).send(page)
}

export function loginRoutes(scope: FastifyInstance, sessions: SessionStore, adminCheck: AuthCheck): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })

  scope.get<{ Querystring: { next?: string } }>('/login', async (request, reply) => {
    const next = safeNext(request.query.next)
    if (consoleUser(request.headers, sessions, adminCheck) !== undefined) return reply.redirect(next, 303)
    return sendPage(reply, 200, loginPage(next))
  })

  // The one body of the console's own that may be other than JSON: a 415 names both types it takes (error-handler.ts).
  const form = { bodyTypes: 'application/x-www-form-urlencoded (as the login form posts it) or application/json, with the fields user, password and next' }
  scope.post<{ Body: Record<string, string> | undefined }>('/login', { config: form }, async (request, reply) => {
    const body = typeof request.body === 'object' && request.body !== null ? request.body : {}
    const next = safeNext(body.next)
    // A form on another site may post here; its Origin gives it away (SameSite keeps the
    // cookie from its later requests anyway).
    if (foreignOrigin(request)) throw apiError('E_CONSOLE_CROSS_SITE', { method: 'POST', path: LOGIN_PATH, reason: 'origin' })
    const user = typeof body.user === 'string' ? body.user : ''
    const password = typeof body.password === 'string' ? body.password : ''
    if (!credentialsMatch(adminCheck, user, password)) {
      request.log.warn({ user }, 'console login refused')
      return sendPage(reply, 401, loginPage(next, 'Wrong user name or password: use the admin credentials fleetsim was started with.'))
    }
    // A fresh token at every login: one that was known before cannot be carried over.
    sessions.end(readCookie(request.headers.cookie, SESSION_COOKIE))
    const { token } = sessions.create(user)
    reply.header('set-cookie', sessionCookie(token, request.protocol === 'https', Math.floor(SESSION_TTL_MS / 1000)))
    return reply.redirect(next, 303)
  })

  scope.post('/logout', async (request, reply) => {
    if (foreignOrigin(request)) throw apiError('E_CONSOLE_CROSS_SITE', { method: 'POST', path: `${CONSOLE_PREFIX}/logout`, reason: 'origin' })
    if (request.headers[CONSOLE_HEADER] === undefined) throw apiError('E_CONSOLE_CROSS_SITE', { method: 'POST', path: `${CONSOLE_PREFIX}/logout`, reason: 'header' })
    sessions.end(readCookie(request.headers.cookie, SESSION_COOKIE))
    reply.header('set-cookie', clearedCookie(request.protocol === 'https'))
    return { loggedOut: true, login: LOGIN_PATH }
  })
}
