/**
 * Regressions: hostile scenarios uploaded to PUT /__admin/scenario, again and again, get 400 with
 * the scenario problem, and the server answers the next request (issue 13, finding 3: the second
 * 10,000-deep upload ended the process; an alias bomb was a 500 E_INTERNAL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { billionLaughs } from '../scenario/helpers.js'
import { AUTH, REST, admin, adminHarness, type AdminHarness } from './helpers.js'

let h: AdminHarness
// A body limit above the scenario's own 1 MiB, so an oversized scenario reaches the loader.
beforeAll(async () => {
  h = await adminHarness({ agents: 20, bodyLimit: 4 * 1024 * 1024 })
})
afterAll(() => h.close())

const YAML = { 'content-type': 'application/yaml' }
const JSON_TYPE = { 'content-type': 'application/json' }
const TIMES = 4

const hostile = [
  ['10,000 nested flow lists', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, YAML, { issue: 'FSC_TOO_DEEP', line: 1, column: 65 }, /nest more than 64 levels deep here .*flatten the structure/],
  ['10,000 nested JSON arrays', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, JSON_TYPE, { issue: 'FSC_TOO_DEEP', line: 1, column: 65 }, /nest more than 64 levels deep/],
  ['10,000 block lists', `${'- '.repeat(10_000)}x\n`, YAML, { issue: 'FSC_TOO_DEEP', line: 1, column: 129 }, /nest more than 64 levels deep/],
  ['block mappings 1,000 levels deep', `${Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} x\n`, YAML, { issue: 'FSC_TOO_DEEP', line: 65 }, /nest more than 64 levels deep/],
  ['an alias bomb', billionLaughs(), YAML, { issue: 'FSC_ALIAS', line: 6 }, /aliases stand for \d+ values, more than the 10000 a scenario may repeat .*use fewer aliases/],
  ['1,001 anchors', `${Array.from({ length: 1001 }, (_, i) => `- &a${i} x`).join('\n')}\n`, YAML, { issue: 'FSC_ALIAS', line: 1001 }, /&a1000 makes more than the 1000 anchors \(&name\) and aliases \(\*name\) a scenario may have/],
  ['an alias without anchor', 'description: x\nfleet: *none\n', YAML, { issue: 'FSC_ALIAS', line: 2, column: 8 }, /alias \*none has no anchor &none before it/],
  ['a 2 MiB scenario', `description: big\n# ${'x'.repeat(2 * 1024 * 1024)}\n`, YAML, { issue: 'FSC_TOO_LARGE', line: null }, /the scenario is 2097172 bytes, more than the 1048576 bytes \(1 MiB\) a scenario may have; shorten it/]
] as const

describe('hostile scenario uploads', () => {
  it.each(hostile)(`refuses %s with 400 and the scenario problem, ${TIMES} times in a row`, async (_what, body, headers, item, message) => {
    for (let i = 0; i < TIMES; i++) {
      const response = await admin(h.app, 'PUT', '/scenario', body, headers)
      expect(response.statusCode).toBe(400)
      const { servicename, errors } = response.json()
      expect(servicename).toBe('admin')
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatchObject({ status: 400, code: 'E_INVALID_SCENARIO', path: '', ...item })
      expect(errors[0].message).toMatch(message)
      expect(errors[0].message).toMatch(/^admin-upload/)
    }
  })

  it('answers 1,000 unknown keys with the first 100 problems and a count of the rest', async () => {
    const text = `description: x\n${Array.from({ length: 1000 }, (_, i) => `k${i}: 1`).join('\n')}\n`
    const response = await admin(h.app, 'PUT', '/scenario', text, YAML)
    expect(response.statusCode).toBe(400)
    const { errors } = response.json()
    expect(errors).toHaveLength(101)
    expect(errors[100]).toMatchObject({ code: 'E_INVALID_SCENARIO', issue: 'FSC_MORE', message: expect.stringMatching(/^admin-upload and 900 more problems, not listed/) })
  })

  it('keeps the running fleet and serves the next requests', async () => {
    for (const [, body, headers] of hostile) await admin(h.app, 'PUT', '/scenario', body, headers)
    expect(h.engine.counts().agents).toBe(20)
    const loaded = await admin(h.app, 'PUT', '/scenario', 'description: after the storm\nfleet: { agents: 12 }\n', YAML)
    expect(loaded.statusCode).toBe(200)
    expect(h.engine.counts().agents).toBe(12)
    const info = await h.app.inject({ url: `${REST}/appinfo.json`, headers: AUTH })
    expect(info.statusCode).toBe(200)
  })

  it('answers 413 to a scenario past --body-limit, before reading it', async () => {
    const small = await adminHarness({ agents: 1 })
    try {
      const response = await admin(small.app, 'PUT', '/scenario', `description: big\n# ${'x'.repeat(2 * 1024 * 1024)}\n`, YAML)
      expect(response.statusCode).toBe(413)
      expect(response.json().errors[0].code).toBe('E_BODY_TOO_LARGE')
    } finally {
      await small.close()
    }
  })
})
