import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type AddressInfo } from 'node:net'
import { tooDeepAt } from '../../src/http/body-depth.js'
import { AUTH, REST, harness, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(3)
})
afterAll(() => h.close())

const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET') => h.app.inject({ method, url, headers: { ...AUTH, ...headers } })
const JSON_ACCEPT = { accept: 'application/json' }
const XML_ACCEPT = { accept: 'application/xml' }

describe('an unknown operation under <app-path>/restservice/', () => {
  it('answers 404 naming it and suggesting the nearest operation with the JSON suffix the client used', async () => {
    const response = await get(`${REST}/agentinf.json`)
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.json()).toEqual({
      servicename: 'agentinf.json',
      errors: [{ status: 404, code: 'E_UNKNOWN_OPERATION', message: 'Unknown operation "agentinf.json": did you mean agentinfo.json? (GET /openapi.json lists the operations.)' }]
    })
  })

  it('sends back at most 200 characters of a long path it names, where 1 MB paths came back whole', async () => {
    const long = 'x'.repeat(100_000)
    for (const url of [`${REST}/${long}`, `/__admin/${long}`, `/console/${long}`, `/${long}`]) {
      const response = await get(url, JSON_ACCEPT)
      expect(response.statusCode, url.slice(0, 40)).toBe(404)
      expect(response.body.length, url.slice(0, 40)).toBeLessThan(2_000)
    }
    expect((await get(`${REST}/${long}`, JSON_ACCEPT)).json().servicename).toBe(`${'x'.repeat(200)}…`)
  })

  it('answers in XML with the .xml suffix the client used', async () => {
    const response = await get(`${REST}/agentinf.xml`)
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toMatch(/^application\/xml/)
    expect(response.body).toContain('<result servicename="agentinf.xml"><errors><status>404</status>')
    expect(response.body).toContain('<message>Unknown operation &quot;agentinf.xml&quot;: did you mean agentinfo.xml? (GET /openapi.json lists the operations.)</message><code>E_UNKNOWN_OPERATION</code>')
  })

  it('suggests without a suffix when the client used none, in the format of the accept header', async () => {
    const json = await get(`${REST}/stopagnet`, JSON_ACCEPT, 'POST')
    expect(json.json().errors[0].message).toBe('Unknown operation "stopagnet": did you mean stopagent? (GET /openapi.json lists the operations.)')
    const xml = await get(`${REST}/AgentInfo`, XML_ACCEPT)
    expect(xml.headers['content-type']).toMatch(/^application\/xml/)
    expect(xml.body).toContain('did you mean agentinfo?')
  })

  it('drops the suffix from the suggestion when the operation meant takes none', async () => {
    const response = await get(`${REST}/stopagnt.json`, {}, 'POST')
    expect(response.json().errors[0].message).toBe('Unknown operation "stopagnt.json": did you mean stopagent? (GET /openapi.json lists the operations.)')
  })

  it('says where the operations are when no operation is near the name', async () => {
    const response = await get(`${REST}/nosuchop`, JSON_ACCEPT)
    expect(response.json().errors[0]).toEqual({
      status: 404,
      code: 'E_UNKNOWN_OPERATION',
      message: 'Unknown operation "nosuchop": the operations live at /manager/mvc/restservice/<operation>; GET /openapi.json lists them.'
    })
  })

  it('says that an operation without a suffix takes none', async () => {
    const response = await get(`${REST}/stopagent.json`, {}, 'POST')
    expect(response.statusCode).toBe(404)
    // The envelope names the operation, as every other answer of it does.
    expect(response.json().servicename).toBe('stopagent')
    expect(response.json().errors[0]).toMatchObject({
      code: 'E_UNKNOWN_OPERATION',
      message:
        'Operation "stopagent" takes no .json/.xml suffix (only agentinfo, agentmanager, appinfo, certificateinfo do): call /manager/mvc/restservice/stopagent and name the format with the accept header.'
    })
  })

  // A trailing slash alone is served as the operation (test/http/trailing-slash.test.ts).
  it('answers a path that goes on past an operation with 404 saying where the operation is, not 405', async () => {
    const response = await get(`${REST}/agentinfo/extra`, JSON_ACCEPT)
    expect(response.statusCode).toBe(404)
    expect(response.headers.allow).toBeUndefined()
    expect(response.json()).toEqual({
      servicename: 'agentinfo',
      errors: [
        {
          status: 404,
          code: 'E_UNKNOWN_OPERATION',
          message: 'Nothing is served at "/manager/mvc/restservice/agentinfo/extra": operation "agentinfo" is at /manager/mvc/restservice/agentinfo, with its parameters in the query string.'
        }
      ]
    })
  })

  it('still answers another method on an operation with 405 and Allow', async () => {
    const response = await get(`${REST}/agentinfo.json`, {}, 'POST')
    expect(response.statusCode).toBe(405)
    expect(response.headers.allow).toBe('GET, HEAD')
  })

  it('says the path names no operation when it ends at /restservice', async () => {
    for (const url of [`${REST}/`, REST]) {
      const response = await get(url, JSON_ACCEPT)
      expect(response.statusCode, url).toBe(404)
      expect(response.json().errors[0], url).toEqual({
        status: 404,
        code: 'E_UNKNOWN_OPERATION',
        message: 'The path names no operation: call /manager/mvc/restservice/<operation>, e.g. /manager/mvc/restservice/appinfo.json; GET /openapi.json lists the operations.'
      })
    }
  })
})

describe('a path outside <app-path>/restservice/', () => {
  it('names the application path the operations live under and the path to call, in JSON', async () => {
    const response = await get('/wrong/mvc/restservice/agentinfo.json')
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual({
      servicename: '',
      errors: [
        {
          status: 404,
          code: 'E_UNKNOWN_PATH',
          message:
            'Nothing is served at "/wrong/mvc/restservice/agentinfo.json": the operations live under /manager/mvc/restservice/ (this simulator\'s --app-path is /manager/mvc); call /manager/mvc/restservice/agentinfo.json.'
        }
      ]
    })
  })

  it('names the application path in XML when the client asks for XML', async () => {
    const response = await get('/manager/agentinfo.xml')
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toMatch(/^application\/xml/)
    expect(response.body).toContain(
      '<message>Nothing is served at &quot;/manager/agentinfo.xml&quot;: the operations live under /manager/mvc/restservice/ (this simulator&apos;s --app-path is /manager/mvc); call /manager/mvc/restservice/agentinfo.xml.</message><code>E_UNKNOWN_PATH</code>'
    )
  })

  it('gives an example operation when the path names none', async () => {
    const response = await get('/', JSON_ACCEPT)
    expect(response.json().errors[0].message).toBe(
      'Nothing is served at "/": the operations live under /manager/mvc/restservice/ (this simulator\'s --app-path is /manager/mvc); e.g. GET /manager/mvc/restservice/appinfo.json, and GET /openapi.json lists them.'
    )
  })
})

describe('a path outside the operations asked for with a method it is not served with', () => {
  it('answers 405 with Allow naming the methods it is served with, not 404', async () => {
    for (const [method, url, allow] of [
      ['POST', '/metrics', 'GET, HEAD'],
      ['DELETE', '/metrics', 'GET, HEAD'],
      ['PUT', '/openapi.json', 'GET, HEAD']
    ] as const) {
      const response = await h.app.inject({ method, url, headers: { ...AUTH, ...JSON_ACCEPT } })
      expect({ method, url, status: response.statusCode, allow: response.headers.allow }).toEqual({ method, url, status: 405, allow })
      expect(response.json().errors[0]).toEqual({ status: 405, code: 'E_PATH_METHOD_NOT_ALLOWED', message: `"${url}" is not served with ${method}: use GET or HEAD.` })
    }
  })

  it('answers QUERY without Content-Type as every other method it is not served with (405, 404), not 400 for the missing type', async () => {
    for (const [url, status, allow, code] of [
      [`${REST}/appinfo.json`, 405, 'GET, HEAD', 'E_METHOD_NOT_ALLOWED'],
      ['/metrics', 405, 'GET, HEAD', 'E_PATH_METHOD_NOT_ALLOWED'],
      ['/__admin/fleet', 405, 'GET, HEAD', 'E_PATH_METHOD_NOT_ALLOWED'],
      [`${REST}/nope.json`, 404, undefined, 'E_UNKNOWN_OPERATION']
    ] as const) {
      const response = await h.app.inject({ method: 'QUERY' as 'GET', url, headers: { ...AUTH, ...JSON_ACCEPT } })
      expect({ url, status: response.statusCode, allow: response.headers.allow, code: response.json().errors[0].code }).toEqual({ url, status, allow, code })
    }
    // Without credentials, as PATCH: the admin API's credential check answers first (401).
    for (const url of ['/__admin/fleet', '/__admin/nothing', '/console/api/nothing', `${REST}/appinfo.json`]) {
      const query = await h.app.inject({ method: 'QUERY' as 'GET', url, headers: JSON_ACCEPT })
      const patch = await h.app.inject({ method: 'PATCH', url, headers: JSON_ACCEPT })
      expect({ url, status: query.statusCode, body: query.json() }).toEqual({ url, status: patch.statusCode, body: JSON.parse(patch.body.replaceAll('PATCH', 'QUERY')) })
    }
    expect((await h.app.inject({ method: 'QUERY' as 'GET', url: '/__admin/fleet' })).statusCode).toBe(401)
  })

  it('still answers 404 for a path served with no method', async () => {
    const response = await h.app.inject({ method: 'POST', url: '/nothing', headers: { ...AUTH, ...JSON_ACCEPT } })
    expect([response.statusCode, response.json().errors[0].code]).toEqual([404, 'E_UNKNOWN_PATH'])
  })
})

describe('a request no route takes, with a body', () => {
  it('gets its 404 or 405 whatever the body holds: the body is not parsed', async () => {
    const deep = `${'['.repeat(300_000)}${']'.repeat(300_000)}`
    for (const [method, url, type, payload, status, code] of [
      ['POST', '/nope', 'application/json', '{bad', 404, 'E_UNKNOWN_PATH'],
      ['POST', '/nope', 'application/json', deep, 404, 'E_UNKNOWN_PATH'],
      ['POST', `${REST}/nope`, 'application/xml', '<a><b></a>', 404, 'E_UNKNOWN_OPERATION'],
      ['POST', `${REST}/agentinfo.json`, 'application/json', '{bad', 405, 'E_METHOD_NOT_ALLOWED'],
      ['POST', '/__admin/health', 'application/xml', '<speed>2</speed>', 405, 'E_PATH_METHOD_NOT_ALLOWED'],
      ['PUT', '/metrics', 'text/csv', 'a,b', 405, 'E_PATH_METHOD_NOT_ALLOWED']
    ] as const) {
      const response = await h.app.inject({ method, url, headers: { ...AUTH, ...JSON_ACCEPT, 'content-type': type }, payload })
      expect({ url, type, status: response.statusCode, code: response.json().errors[0].code }).toEqual({ url, type, status, code })
    }
  })

  it('is answered without credentials before its body is read, and the connection goes on', async () => {
    await h.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = h.app.server.address() as AddressInfo
    const socket = connect(port, '127.0.0.1')
    const received: Buffer[] = []
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    await new Promise((resolve) => socket.once('connect', resolve))
    const body = '{"a":'.repeat(50_000)
    socket.write(`POST /nope HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
    socket.write(`GET ${REST}/appinfo.json HTTP/1.1\r\nhost: x\r\nREST_USER: ${AUTH.REST_USER}\r\nREST_PASSWORD: ${AUTH.REST_PASSWORD}\r\n\r\n`)
    await new Promise<void>((resolve) => {
      const check = () => (Buffer.concat(received).toString().includes('mgrUptime') ? resolve() : socket.once('data', check))
      check()
    })
    socket.destroy()
    const text = Buffer.concat(received).toString()
    expect(text.startsWith('HTTP/1.1 404')).toBe(true)
    expect(text).toContain('E_UNKNOWN_PATH')
    expect(text.match(/HTTP\/1\.1 200/g)).toHaveLength(1)
  })
})

describe('a JSON body nested deeper than is read', () => {
  it('is refused before it is parsed, saying how deep it may be', async () => {
    const response = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: { ...AUTH, ...JSON_ACCEPT, 'content-type': 'application/json' }, payload: `{"name":${'['.repeat(65)}${']'.repeat(65)}}` })
    expect(response.statusCode).toBe(400)
    expect(response.json().errors[0]).toEqual({
      status: 400,
      code: 'E_BODY_TOO_DEEP',
      message:
        'The request body nests arrays and objects more than 64 deep (the 65th opens at character 72). No body of this interface nests more than a few levels: send the fields the operation takes (docs/protocol.md).'
    })
  })

  it('counts only the brackets outside strings', () => {
    expect(tooDeepAt(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeUndefined()
    expect(tooDeepAt(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(64)
    expect(tooDeepAt(`{"a":"${'['.repeat(100)}","b":"\\"${'{'.repeat(100)}"}`)).toBeUndefined()
    expect(tooDeepAt(`["\\\\",${'['.repeat(64)}`)).toBe(69)
  })
})
