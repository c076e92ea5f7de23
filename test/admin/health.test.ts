import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, REST, adminHarness, type AdminHarness } from './helpers.js'

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

let h: AdminHarness
beforeAll(async () => {
  // Every REST request faulted: the health check is not.
  h = await adminHarness({ settings: { errorRate: 1 } })
})
afterAll(() => h.close())

describe('GET /__admin/health', () => {
  it('answers 200 without credentials, with the status, version, uptime and time, never cached (it was a 401)', async () => {
    const response = await h.app.inject({ url: '/__admin/health' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(response.headers['cache-control']).toBe('no-store')
    const body = response.json()
    expect(body).toEqual({ status: 'healthy', message: 'fleetsim is ok', version: VERSION, uptimeInSeconds: expect.any(Number), timestamp: expect.any(String) })
    expect(Number.isInteger(body.uptimeInSeconds) && body.uptimeInSeconds >= 0).toBe(true)
    expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(60_000)
  })

  it('answers HEAD with 200 and no body, and ignores credentials, right or wrong', async () => {
    const head = await h.app.inject({ method: 'HEAD', url: '/__admin/health' })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    const wrong = await h.app.inject({ url: '/__admin/health', headers: { ...AUTH, REST_PASSWORD: 'wrong' } })
    expect(wrong.statusCode).toBe(200)
  })

  it('leaves every other admin endpoint behind the credentials, and is not faulted while the REST operations are', async () => {
    expect((await h.app.inject({ url: '/__admin/clock' })).statusCode).toBe(401)
    expect((await h.app.inject({ url: '/__admin/healthz' })).statusCode).toBe(401)
    const faulted = await h.app.inject({ url: `${REST}/appinfo.json`, headers: AUTH })
    expect(faulted.statusCode).toBeGreaterThanOrEqual(500)
    expect((await h.app.inject({ url: '/__admin/health' })).statusCode).toBe(200)
  })

  it('answers its errors in the admin envelope, JSON with servicename admin (past a limit it was XML with servicename "health")', async () => {
    const headers = Object.fromEntries(Array.from({ length: 1001 }, (_, index) => [`x-field-${index}`, 'a']))
    const response = await h.app.inject({ url: '/__admin/health', headers })
    expect(response.statusCode).toBe(431)
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(response.json()).toEqual({ servicename: 'admin', errors: [{ status: 431, message: expect.stringContaining('more than 1000 header fields'), code: 'E_HEADERS_TOO_LARGE' }] })
  })

  it('answers a wrong method with 405 and Allow, without credentials (it was a 401), and so every admin path with credentials (it was a 404)', async () => {
    const post = await h.app.inject({ method: 'POST', url: '/__admin/health' })
    expect(post.statusCode).toBe(405)
    expect(post.headers.allow).toBe('GET, HEAD')
    expect(post.json()).toMatchObject({ servicename: 'admin', errors: [{ status: 405, code: 'E_PATH_METHOD_NOT_ALLOWED' }] })
    const advance = await h.app.inject({ method: 'GET', url: '/__admin/clock/advance', headers: AUTH })
    expect(advance.statusCode).toBe(405)
    expect(advance.headers.allow).toBe('POST')
    // Behind the credentials still, and a path nothing serves stays a 404.
    expect((await h.app.inject({ method: 'GET', url: '/__admin/clock/advance' })).statusCode).toBe(401)
    expect((await h.app.inject({ url: '/__admin/nosuch', headers: AUTH })).json()).toMatchObject({ errors: [{ status: 404, code: 'E_UNKNOWN_ADMIN_PATH' }] })
  })

  it('is in the OpenAPI document as an admin operation without a security requirement or a 401', async () => {
    const document = (await h.app.inject({ url: '/openapi.json' })).json()
    const operation = document.paths['/__admin/health'].get
    expect(operation).toMatchObject({ operationId: 'adminHealth', tags: ['admin'], security: [] })
    expect(Object.keys(operation.responses)).toEqual(['200', '4XX', '5XX'])
    expect(operation.responses['200'].content['application/json'].schema.required).toEqual(['status', 'message', 'version', 'uptimeInSeconds', 'timestamp'])
  })
})
