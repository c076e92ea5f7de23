/**
 * The OpenAPI document: docs/openapi.json and the files generated with it are what
 * `npm run openapi:write` writes today, /openapi.yaml is the same document, and Redocly CLI's
 * recommended rules (redocly.yaml) find no error and no warning in it.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import type { RunningFleetsim } from '../../src/embed.js'
import { call, startDefaultFleet } from '../../scripts/lib/doc-examples.js'
import { openApiFiles } from '../../scripts/lib/openapi-document.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const run = promisify(execFile)

let sim: RunningFleetsim
beforeAll(async () => {
  sim = await startDefaultFleet()
}, 60_000)
afterAll(() => sim.close())

describe('the OpenAPI document', () => {
  it('is committed as npm run openapi:write writes it, with its examples and client types', async () => {
    const files = await openApiFiles(sim)
    for (const [file, wanted] of Object.entries(files)) {
      expect(readFileSync(`${root}${file}`, 'utf8'), `${file} is out of date: run npm run openapi:write`).toBe(wanted)
    }
  })

  it('is offered as YAML at /openapi.yaml, the same document as /openapi.json', async () => {
    const json = await call(sim, 'GET', '/openapi.json')
    const yaml = await call(sim, 'GET', '/openapi.yaml')
    expect(yaml.status).toBe(200)
    expect(parseYaml(yaml.body)).toEqual(JSON.parse(json.body))
  })

  it('declares each list parameter in the spec\'s form: comma-delimited, agentstate repeated', async () => {
    const document = JSON.parse((await call(sim, 'GET', '/openapi.json')).body) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; style?: string; explode?: boolean; schema?: { type?: string } }> }>>
    }
    const forms = new Map<string, Set<string>>()
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query' || parameter.schema?.type !== 'array') continue
          const form = `${parameter.style} explode=${parameter.explode}`
          forms.set(parameter.name, (forms.get(parameter.name) ?? new Set()).add(form))
        }
      }
    }
    expect(Object.fromEntries([...forms].map(([name, set]) => [name, [...set]]))).toEqual({
      agentname: ['form explode=false'],
      // "several states are given by repeating the parameter" (the spec, agentinfo)
      agentstate: ['form explode=true'],
      agentUuids: ['form explode=false'],
      subTemplateNames: ['form explode=false'],
      labelNames: ['form explode=false'],
      expirein: ['form explode=false']
    })
  })

  it('names every property that is no XML name <field name="…"> in XML, inside unions too (viewagentortemplate\'s "the service")', async () => {
    const document = JSON.parse((await call(sim, 'GET', '/openapi.json')).body) as unknown
    const unnamed: string[] = []
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((child, k) => walk(child, `${where}[${k}]`))
      if (typeof node !== 'object' || node === null) return
      const properties = (node as { properties?: unknown }).properties
      if (typeof properties === 'object' && properties !== null) {
        for (const [key, value] of Object.entries(properties)) {
          const xmlName = (value as { xml?: { name?: string } }).xml?.name
          if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key) && xmlName !== 'field') unnamed.push(`${where}.properties[${JSON.stringify(key)}]`)
        }
      }
      for (const [key, value] of Object.entries(node)) walk(value, `${where}.${key}`)
    }
    walk(document, '$')
    expect(unnamed).toEqual([])
    // The walk found something to check: agentinfo's and viewagentortemplate's items both hold "the service".
    expect(JSON.stringify(document).match(/"the service":\{[^}]*"xml":\{"name":"field"\}/g)?.length ?? 0).toBeGreaterThan(1)
  })

  it('documents the journal\'s endpoints, HEAD /__admin/health and the optional REST-TENANT header of every operation', async () => {
    const document = JSON.parse((await call(sim, 'GET', '/openapi.json')).body) as {
      paths: Record<string, Record<string, { operationId: string; tags: string[]; parameters?: Array<{ name: string; in: string; required?: boolean }>; responses: Record<string, { content?: Record<string, unknown> }> }>>
    }
    const admin = Object.fromEntries(
      Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).filter(([, op]) => op.tags.includes('admin')).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op]))
    )
    expect(Object.keys(admin)).toEqual(expect.arrayContaining(['GET /__admin/requests', 'DELETE /__admin/requests', 'GET /__admin/requests/{id}', 'GET /__admin/report', 'GET /__admin/health', 'HEAD /__admin/health']))
    expect(admin['GET /__admin/requests'].parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['query:operation', 'query:status', 'query:since', 'query:after', 'query:limit'])
    expect(Object.keys(admin['DELETE /__admin/requests'].responses)).toContain('204')
    expect(Object.keys(admin['DELETE /__admin/requests'].responses)).not.toContain('200')
    expect(Object.keys(admin['GET /__admin/report'].responses['200'].content ?? {})).toEqual(['application/json', 'text/html'])
    expect(admin['HEAD /__admin/health'].responses['200'].content).toBeUndefined()
    const rest = Object.values(document.paths).flatMap((item) => Object.values(item)).filter((op) => op.tags.includes('restservice'))
    expect(rest.length).toBeGreaterThan(20)
    for (const op of rest) expect(op.parameters?.find((p) => p.name === 'REST-TENANT'), op.operationId).toMatchObject({ in: 'header', required: false })
  })

  it('passes redocly lint with the recommended rules, without errors or warnings', async () => {
    const bin = `${root}node_modules/.bin/redocly`
    // lint exits non-zero on errors; the summary line names warnings too.
    const { stdout, stderr } = await run(bin, ['lint', 'docs/openapi.json', '--config', 'redocly.yaml', '--format', 'json'], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 60_000
    })
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string }> }
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`), stderr).toEqual([])
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
  }, 60_000)
})
