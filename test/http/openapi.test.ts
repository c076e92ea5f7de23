import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { connect, type AddressInfo } from 'node:net'
import { OPERATIONS } from '../../src/protocol/operations.js'
import { harness, REST, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await harness(2)
})
afterAll(() => h.close())

describe('the OpenAPI document', () => {
  it('describes every operation at /openapi.json without credentials', async () => {
    const response = await h.app.inject({ url: '/openapi.json' })
    expect(response.statusCode).toBe(200)
    const paths = Object.keys(response.json().paths)
    for (const operation of Object.keys(OPERATIONS)) expect(paths).toContain(`${REST}/${operation}`)
  })

  it("names the server it was asked of as its server's defaults: scheme, host and port", async () => {
    const defaultsOf = async (host: string, path = '/openapi.json') => {
      const response = await h.app.inject({ url: path, headers: { host } })
      const document = path.endsWith('.yaml') ? (parseYaml(response.body) as Served) : (response.json() as Served)
      return Object.fromEntries(Object.entries(document.servers[0].variables).map(([name, variable]) => [name, variable.default]))
    }
    // inject's connection is plain HTTP, as `fleetsim serve --http` is.
    expect(await defaultsOf('127.0.0.1:8080')).toEqual({ scheme: 'http', host: '127.0.0.1', port: '8080' })
    expect(await defaultsOf('[::1]:9000', '/openapi.yaml')).toEqual({ scheme: 'http', host: '[::1]', port: '9000' })
    expect(await defaultsOf('fleetsim.example')).toEqual({ scheme: 'http', host: 'fleetsim.example', port: '80' })
    // No Host at all (HTTP/1.0): the port the request came to.
    await h.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = h.app.server.address() as AddressInfo
    const socket = connect(port, '127.0.0.1')
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()))
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write('GET /openapi.json HTTP/1.0\r\n\r\n')
    await new Promise((resolve) => socket.once('end', resolve))
    const served = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Served
    expect(served.servers[0].variables.port.default).toBe(String(port))
    expect(served.servers[0].variables.host.default).toBe('127.0.0.1')
    // The document built once is not changed by what one request was served.
    expect((h.app.swagger() as unknown as Served).servers[0].variables.port.default).toBe('9443')
  })
})

interface Served {
  servers: Array<{ variables: Record<string, { default: string }> }>
}
