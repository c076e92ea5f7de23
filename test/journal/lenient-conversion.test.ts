import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH, CA, REST, agentBody, call, harness, type Harness } from '../http/helpers.js'

const XML_HEADERS = { ...AUTH, 'content-type': 'application/xml', accept: 'application/xml' }
const xmlAgent = (name: string, port: string, logToFile: string) =>
  `<agent><name>${name}</name><global-config><address>192.0.2.9</address><port>${port}</port><ca-fingerprint>${CA.fingerprint}</ca-fingerprint><is-log-to-file>${logToFile}</is-log-to-file></global-config></agent>`

describe('lenient conversion in the default mode', () => {
  let h: Harness
  beforeAll(async () => {
    h = await harness(5)
  })
  afterAll(() => h.close())

  const lastEntry = () => h.built.traffic.journal.entries().at(-1)

  it('accepts a JSON port as text and a JSON boolean as yes, and records both fields', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('lenient-json', { port: '4041', 'is-log-to-file': 'yes' }))
    expect(response.statusCode).toBe(200)
    expect(h.fleet.config(h.fleet.findByName('lenient-json') as number)).toMatchObject({ port: 4041, isLogToFile: true })
    expect(lastEntry()?.violations).toEqual([
      { rule: 'lenient-conversion', detail: '"global-config.port" "4041" read as 4041, "global-config.is-log-to-file" "yes" read as true' }
    ])
  })

  it('reads the JSON numbers 1 and 0 as booleans', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('lenient-zero', { 'is-log-to-file': 0 }))
    expect(response.statusCode).toBe(200)
    expect(h.fleet.config(h.fleet.findByName('lenient-zero') as number).isLogToFile).toBe(false)
    expect(lastEntry()?.violations.map((v) => v.rule)).toEqual(['lenient-conversion'])
  })

  it('accepts on for an XML boolean and records it, but not the decimal text XML always carries', async () => {
    const response = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: XML_HEADERS, payload: xmlAgent('lenient-xml', '5555', 'on') })
    expect(response.statusCode).toBe(200)
    expect(h.fleet.config(h.fleet.findByName('lenient-xml') as number)).toMatchObject({ port: 5555, isLogToFile: true })
    expect(lastEntry()?.violations).toEqual([{ rule: 'lenient-conversion', detail: '"global-config.is-log-to-file" "on" read as true' }])
  })

  it('records nothing for a body of the defined types', async () => {
    expect((await call(h.app, 'POST', 'addagent', agentBody('typed', { 'is-log-to-file': false }))).statusCode).toBe(200)
    expect(lastEntry()?.violations).toEqual([])
  })

  it('accepts yes for a boolean query parameter, recorded by boolean-syntax', async () => {
    const response = await call(h.app, 'GET', `agentinfo?agentname=${h.fleet.name(0)}&agentwithmodules=yes`)
    expect(response.statusCode).toBe(200)
    expect(response.json().values[0].content.modules).toBeDefined()
    expect(lastEntry()?.violations).toEqual([{ rule: 'boolean-syntax', detail: '"agentwithmodules" is "yes"' }])
  })

  it('still refuses text that no converter reads as the type', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('lenient-bad', { 'is-log-to-file': 'maybe' }))
    expect(response.json().errors[0]).toMatchObject({ code: 'E_WRONG_TYPE', message: expect.stringContaining('"global-config.is-log-to-file"') })
  })

  it('names the rule in the client report', async () => {
    const report = await h.app.inject({ url: '/__admin/report', headers: AUTH })
    const row = report.json().violations.find((v: { rule: string }) => v.rule === 'lenient-conversion')
    expect(row).toMatchObject({ rule: 'lenient-conversion', count: 3, sentence: expect.stringContaining('numbers as numbers') })
  })
})

describe('lenient conversion with --strict', () => {
  let h: Harness
  beforeAll(async () => {
    h = await harness(5, { strict: true })
  })
  afterAll(() => h.close())

  it('refuses a JSON port as text, naming the field', async () => {
    const response = await call(h.app, 'POST', 'addagent', agentBody('strict-json', { port: '4041' }))
    expect(response.statusCode).toBe(400)
    expect(response.json().errors).toEqual([
      {
        status: 400,
        code: 'E_STRICT_LENIENT_CONVERSION',
        message: 'Strict mode, rule lenient-conversion: "global-config.port" "4041" read as 4041; send numbers as numbers and booleans as true or false.'
      }
    ])
    expect(h.fleet.findByName('strict-json')).toBeUndefined()
  })

  it('refuses on for an XML boolean', async () => {
    const response = await h.app.inject({ method: 'POST', url: `${REST}/addagent`, headers: XML_HEADERS, payload: xmlAgent('strict-xml', '4041', 'on') })
    expect(response.statusCode).toBe(400)
    expect(response.body).toContain('<code>E_STRICT_LENIENT_CONVERSION</code>')
  })

  it('refuses yes for a boolean query parameter', async () => {
    const response = await call(h.app, 'GET', `agentinfo?agentname=${h.fleet.name(0)}&agentwithmodules=yes`)
    expect(response.json().errors[0].code).toBe('E_STRICT_BOOLEAN_SYNTAX')
  })

  it('answers the same body with the defined types', async () => {
    expect((await call(h.app, 'POST', 'addagent', agentBody('strict-typed', { port: 4041, 'is-log-to-file': true }))).statusCode).toBe(200)
  })
})
