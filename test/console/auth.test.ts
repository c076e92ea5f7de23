/**
 * Who gets into the console and what it refuses: a login form with a session cookie, HTTP
 * Basic with the admin credentials, pages sent to the form and the API answered 401 without
 * them, changes that could come from another site refused, and the REST API's own header
 * authentication untouched.
 */
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { safeNext } from '../../src/console/login.js'
import { AUTH, BASIC, CONSOLE_HEADERS, REST, consoleHarness, json, rest, sessionOf, type ConsoleHarness } from './helpers.js'

type Envelope = { servicename: string; errors: Array<{ status: number; code: string; message: string }> }

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

describe('console authentication', () => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await consoleHarness({ listen: false })
  })
  afterAll(async () => {
    await h?.close()
  })

  const login = (user: string, password: string, extra: Record<string, string> = {}) =>
    h.app.inject({ method: 'POST', url: '/console/login', headers: FORM, payload: form({ user, password, ...extra }) })

  it('sends a page request without a login to the login form, with the page to come back to', async () => {
    const response = await h.app.inject({ url: '/console/agents?state=ERROR' })
    expect(response.statusCode).toBe(303)
    expect(response.headers.location).toBe('/console/login?next=%2Fconsole%2Fagents%3Fstate%3DERROR')
  })

  it('answers an API request without a login with 401 in the admin error envelope, and no Basic challenge', async () => {
    const response = await h.app.inject({ url: '/console/api/agents' })
    expect(response.statusCode).toBe(401)
    expect(response.headers['www-authenticate']).toBeUndefined()
    const body = json<Envelope>(response)
    expect(body.servicename).toBe('console')
    expect(body.errors[0]).toMatchObject({ status: 401, code: 'E_CONSOLE_UNAUTHORIZED' })
    expect(body.errors[0].message).toContain('/console/login')
  })

  it('refuses a wrong password at the login form and sets no cookie', async () => {
    const response = await login('admin', 'not-the-password')
    expect(response.statusCode).toBe(401)
    expect(response.headers['set-cookie']).toBeUndefined()
    expect(response.body).toContain('Wrong user name or password')
  })

  it('logs the admin credentials in with an HttpOnly, SameSite=Strict cookie for /console that opens the pages', async () => {
    const response = await login('admin', 'secret', { next: '/console/agents' })
    expect(response.statusCode).toBe(303)
    expect(response.headers.location).toBe('/console/agents')
    const cookie = String(response.headers['set-cookie'])
    expect(cookie).toMatch(/^fleetsim_console=[\w-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=28800$/)
    const page = await h.app.inject({ url: '/console/fleet', headers: { cookie: sessionOf(response) } })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('<h1>Fleet</h1>')
  })

  it('refuses a session token it did not hand out', async () => {
    const response = await h.app.inject({ url: '/console/api/agents', headers: { cookie: 'fleetsim_console=made-up' } })
    expect(response.statusCode).toBe(401)
  })

  it('lets a script in with the admin credentials by HTTP Basic, and refuses wrong ones', async () => {
    expect((await h.app.inject({ url: '/console/api/agents', headers: { authorization: BASIC } })).statusCode).toBe(200)
    const wrong = `Basic ${Buffer.from('admin:nope').toString('base64')}`
    expect((await h.app.inject({ url: '/console/api/agents', headers: { authorization: wrong } })).statusCode).toBe(401)
    expect((await h.app.inject({ url: '/console/fleet', headers: { authorization: wrong } })).statusCode).toBe(303)
  })

  it('refuses a change without the console header as possibly cross-site, and changes nothing', async () => {
    const response = await h.app.inject({ method: 'POST', url: '/console/api/admin/clock', headers: { authorization: BASIC, 'content-type': 'application/json' }, payload: '{"paused":false}' })
    expect(response.statusCode).toBe(403)
    const error = json<Envelope>(response).errors[0]
    expect(error.code).toBe('E_CONSOLE_CROSS_SITE')
    expect(error.message).toContain('X-Fleetsim-Console')
    expect(h.engine.clockState().paused).toBe(true)
  })

  it('refuses a change sent from another site\'s page even with the header', async () => {
    const response = await h.app.inject({ method: 'POST', url: '/console/api/admin/clock', headers: { ...CONSOLE_HEADERS, origin: 'https://elsewhere.example', 'content-type': 'application/json' }, payload: '{"paused":false}' })
    expect(response.statusCode).toBe(403)
    expect(json<Envelope>(response).errors[0].message).toContain('another site')
    expect(h.engine.clockState().paused).toBe(true)
  })

  it('takes a change from its own origin with the header', async () => {
    const response = await h.app.inject({ method: 'POST', url: '/console/api/admin/clock', headers: { ...CONSOLE_HEADERS, host: 'localhost:80', origin: 'http://localhost:80', 'content-type': 'application/json' }, payload: '{"speed":2}' })
    expect(response.statusCode).toBe(200)
    expect(h.engine.clockState().speed).toBe(2)
  })

  it('refuses a login form posted from another site', async () => {
    const response = await h.app.inject({ method: 'POST', url: '/console/login', headers: { ...FORM, origin: 'https://elsewhere.example' }, payload: form({ user: 'admin', password: 'secret' }) })
    expect(response.statusCode).toBe(403)
    expect(response.headers['set-cookie']).toBeUndefined()
  })

  it('sends a login only back to console pages, never to another site', async () => {
    for (const next of ['https://elsewhere.example/', '//elsewhere.example/console/', '/console/login', '/__admin/fleet']) {
      const response = await login('admin', 'secret', { next })
      expect(response.headers.location, next).toBe('/console/fleet')
    }
  })

  it('sends a login back to a page whose path is not printable ASCII, percent-encoded, with its cookie', async () => {
    for (const [next, location] of [
      ['/console/agents/東', '/console/agents/%E6%9D%B1'],
      ['/console/\r\nX:1', '/console/%0D%0AX:1']
    ]) {
      const response = await login('admin', 'secret', { next })
      expect({ next, status: response.statusCode, location: response.headers.location }).toEqual({ next, status: 303, location })
      expect(response.headers['set-cookie']).toBeDefined()
    }
    const get = await h.app.inject({ url: `/console/login?next=${encodeURIComponent('/console/東')}`, headers: { authorization: BASIC } })
    expect([get.statusCode, get.headers.location]).toEqual([303, '/console/%E6%9D%B1'])
    // No request brings one (its bytes are read as UTF-8), but a lone surrogate cannot be encoded.
    expect(safeNext('/console/\ud800')).toBe('/console/fleet')
  })

  it('answers a console path asked for with a method it is not served with 405 and Allow, in its envelope', async () => {
    const response = await h.app.inject({ method: 'OPTIONS', url: '/console/login' })
    expect([response.statusCode, response.headers.allow]).toEqual([405, 'GET, HEAD, POST'])
    expect((response.json() as Envelope).errors[0]).toEqual({ status: 405, code: 'E_PATH_METHOD_NOT_ALLOWED', message: '"/console/login" is not served with OPTIONS: use GET, HEAD or POST.' })
    expect((await h.app.inject({ method: 'POST', url: '/console/nothing' })).statusCode).toBe(404)
  })

  it('tells a login posted in another type to send the form or JSON, and takes JSON', async () => {
    const response = await h.app.inject({ method: 'POST', url: '/console/login', headers: { 'content-type': 'text/plain' }, payload: 'user=admin' })
    expect(response.statusCode).toBe(415)
    expect((response.json() as Envelope).errors[0].message).toBe(
      'Content-Type "text/plain" is not supported: send the body as application/x-www-form-urlencoded (as the login form posts it) or application/json, with the fields user, password and next.'
    )
    const json = await h.app.inject({ method: 'POST', url: '/console/login', headers: { 'content-type': 'application/json' }, payload: { user: 'admin', password: 'secret' } })
    expect(json.statusCode).toBe(303)
    expect(sessionOf(json)).not.toBe('')
  })

  it('ends the session at log-out', async () => {
    const cookie = sessionOf(await login('admin', 'secret'))
    const refused = await h.app.inject({ method: 'POST', url: '/console/logout', headers: { cookie } })
    expect(refused.statusCode).toBe(403)
    const out = await h.app.inject({ method: 'POST', url: '/console/logout', headers: { cookie, 'x-fleetsim-console': '1' } })
    expect(out.statusCode).toBe(200)
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0')
    expect((await h.app.inject({ url: '/console/fleet', headers: { cookie } })).statusCode).toBe(303)
  })

  it('leaves the REST API on its own headers: neither the console cookie nor Basic opens it', async () => {
    const cookie = sessionOf(await login('admin', 'secret'))
    expect((await h.app.inject({ url: `${REST}/appinfo.json`, headers: { cookie } })).statusCode).toBe(401)
    expect((await h.app.inject({ url: `${REST}/appinfo.json`, headers: { authorization: BASIC } })).statusCode).toBe(401)
    expect((await rest(h.app, 'GET', 'appinfo.json')).statusCode).toBe(200)
  })

  it('serves its own files, the chart and uPlot without a login, and nothing else of uPlot\'s package', async () => {
    for (const path of ['/console/assets/console.css', '/console/assets/fleet.js', '/console/chart/fleet-chart.js', '/console/vendor/uplot/uPlot.iife.min.js', '/console/vendor/uplot/uPlot.min.css']) {
      expect((await h.app.inject({ url: path })).statusCode, path).toBe(200)
    }
    expect((await h.app.inject({ url: '/console/vendor/uplot/uPlot.esm.js' })).statusCode).toBe(404)
    expect((await h.app.inject({ url: '/console/assets/../../package.json' })).statusCode).toBe(404)
  })


  it('names its pages when asked for one it does not have', async () => {
    const response = await h.app.inject({ url: '/console/dashboard', headers: { authorization: BASIC } })
    expect(response.statusCode).toBe(404)
    const error = json<Envelope>(response).errors[0]
    expect(error.code).toBe('E_UNKNOWN_CONSOLE_PATH')
    expect(error.message).toContain('/console/fleet, /console/agents')
  })

  it('keeps its pages out of other sites\' frames and scripts, the login form too', async () => {
    const page = await h.app.inject({ url: '/console/fleet', headers: { authorization: BASIC } })
    const login = await h.app.inject({ url: '/console/login' })
    const refused = await h.app.inject({ method: 'POST', url: '/console/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'user=admin&password=wrong' })
    for (const answer of [page, login, refused]) {
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'")
      expect(answer.headers['content-security-policy']).toContain("script-src 'self'")
      expect(answer.headers['x-content-type-options']).toBe('nosniff')
    }
    expect(login.statusCode).toBe(200)
    expect(refused.statusCode).toBe(401)
  })

  it('is not in the request journal, but the REST calls it makes are', async () => {
    h.built.traffic.journal.clear()
    await h.app.inject({ url: '/console/api/agents', headers: { authorization: BASIC } })
    await h.app.inject({ url: '/console/nothing-here', headers: { authorization: BASIC } })
    await h.app.inject({ method: 'GET', url: '/console/api/rest/appinfo.json', headers: CONSOLE_HEADERS })
    expect(h.built.traffic.journal.entries().map((e) => e.operation)).toEqual(['appinfo'])
  })
})

describe('the console API over a socket', () => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await consoleHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  /** A GET with the path sent as written (fetch and inject would resolve its dot segments first). */
  const rawGet = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${h.origin}${path}`, { headers: { authorization: BASIC } }, (response) => {
        let body = ''
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      })
      request.on('error', reject)
      request.path = path
      request.end()
    })

  it('passes the target\'s answer back with its headers: Allow on a 405, as the admin API sends it', async () => {
    const direct = await h.app.inject({ method: 'DELETE', url: '/__admin/clock', headers: AUTH })
    const forwarded = await h.app.inject({ method: 'DELETE', url: '/console/api/admin/clock', headers: CONSOLE_HEADERS })
    expect(direct.statusCode).toBe(405)
    expect(forwarded.statusCode).toBe(405)
    expect(forwarded.headers.allow).toBe(direct.headers.allow)
    expect(forwarded.headers['content-type']).toBe(direct.headers['content-type'])
    expect(forwarded.body).toBe(direct.body)
  })

  it('forwards only within /__admin/ and the operations: a dot segment that would leave them is refused', async () => {
    for (const path of [
      '/console/api/rest/%2e%2e/%2e%2e/%2e%2e/__admin/clock',
      '/console/api/admin/%2e%2e/%2e%2e/manager/mvc/restservice/appinfo.json',
      '/console/api/admin/../../metrics',
      '/console/api/rest/.%2E/x',
      // A backslash is a slash to the URL parser.
      '/console/api/rest/..\\..\\..\\__admin\\clock',
      '/console/api/admin/..\\..\\manager\\mvc\\restservice\\appinfo',
      '/console/api/admin/..%5Cclock'
    ]) {
      const { status, body } = await rawGet(path)
      expect({ path, status, code: (JSON.parse(body) as Envelope).errors[0].code }).toEqual({ path, status: 404, code: 'E_CONSOLE_PATH_OUTSIDE' })
    }
    // A dot inside a name is no segment of its own.
    expect((await rawGet('/console/api/rest/appinfo.json')).status).toBe(200)
  })

  it('refuses a file path that would leave its folder, or holds a NUL byte, saying why', async () => {
    for (const path of ['/console/assets/%2e%2e/x', '/console/chart/%2E%2E/%2e%2e/package.json', '/console/assets/a%00b']) {
      const { status, body } = await rawGet(path)
      expect(status, path).toBe(400)
      expect((JSON.parse(body) as Envelope).errors[0], path).toMatchObject({ code: 'E_BAD_REQUEST', message: expect.stringContaining('names no file of the console: a file\'s path has no ".." segment or NUL byte') })
    }
  })
})

describe('serve --no-console', () => {
  it('serves nothing at /console, and says it is off and by which flag', async () => {
    const h = await consoleHarness({ listen: false, settings: { console: false } })
    try {
      for (const url of ['/console', '/console/fleet']) {
        const response = await h.app.inject({ url, headers: { authorization: BASIC, ...AUTH, accept: 'application/json' } })
        expect(response.statusCode).toBe(404)
        expect(json<Envelope>(response).errors[0]).toMatchObject({
          code: 'E_UNKNOWN_PATH',
          message: `Nothing is served at "${url}": this simulator was started with --no-console; start it without that flag to serve it.`
        })
      }
      // Not a path of the console: the usual answer.
      const other = await h.app.inject({ url: '/consoles', headers: { accept: 'application/json' } })
      expect(json<Envelope>(other).errors[0].message).toContain('the operations live under')
    } finally {
      await h.close()
    }
  })
})
