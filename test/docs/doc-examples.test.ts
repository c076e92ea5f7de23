/**
 * The docs' agent examples against a real default fleet: the generated regions are what
 * `npm run docs:examples` writes today, and every agent a documented request names exists in a
 * default fleet or is one the docs create themselves (addagent's `web-01`).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningFleetsim } from '../../src/embed.js'
import { call, docExamples, startDefaultFleet } from '../../scripts/lib/doc-examples.js'
import { withRegions } from '../../scripts/lib/doc-regions.js'
import { fences } from './fences.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const read = (file: string) => readFileSync(`${root}${file}`, 'utf8')
const files = ['README.md', ...readdirSync(`${root}docs`).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)]

/** Requests the docs show: inline code starting with an HTTP method, and curl commands in shell blocks. */
function requestsIn(file: string, markdown: string): string[] {
  const spans = [...markdown.matchAll(/`((?:GET|POST|PUT|DELETE) [^`]+)`/g)].map((match) => match[1])
  const shell = fences(file, markdown)
    .filter((fence) => ['sh', 'bash', 'shell'].includes(fence.info[0] ?? ''))
    .flatMap((fence) => fence.lines.join('\n').replace(/\\\n/g, ' ').split('\n'))
    .filter((line) => line.includes('curl '))
  return [...spans, ...shell]
}

/** The agent (or template) names a request looks up; placeholders (`<u1>`, `{&agentname}`) are not names. */
function namesLookedUp(request: string): string[] {
  const value = `([^&\\s'"\`?/]+)`
  const patterns = [`[?&]agentname=${value}`, `[?&]agentName=${value}`, `/__admin/agents/${value}/`, `viewagentortemplate(?:\\?name=|/)${value}`]
  return patterns
    .flatMap((pattern) => [...request.matchAll(new RegExp(pattern, 'g'))].flatMap((match) => match[1].split(',')))
    .filter((name) => !/[<{]/.test(name))
}

/** Names the docs' own request bodies give (`"name": "web-01"`): created by the examples, so looking them up is fine. */
function namesCreated(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/"name":\s*"([^"]+)"/g)].map((match) => match[1]))
}

let sim: RunningFleetsim
beforeAll(async () => {
  sim = await startDefaultFleet()
})
afterAll(async () => {
  await sim?.close()
})

describe('the docs', () => {
  it('name in requests only agents of a default fleet or agents their own examples add', async () => {
    const created = new Set(files.flatMap((file) => [...namesCreated(read(file))]))
    const unknown: string[] = []
    for (const file of files) {
      for (const request of requestsIn(file, read(file))) {
        for (const name of namesLookedUp(request)) {
          if (created.has(name)) continue
          const { status } = await call(sim, 'GET', `/manager/mvc/restservice/agentinfo.json?agentname=${encodeURIComponent(name)}`)
          if (status !== 200) unknown.push(`${file}: ${name} (in ${request.trim()}) is not an agent of a default fleet`)
        }
      }
    }
    expect(unknown).toEqual([])
  })

  it('show the examples a real default fleet gives today (else: npm run docs:examples)', async () => {
    // After the names check: the override that generating the examples makes changes the fleet.
    const examples = await docExamples(sim)
    for (const [file, regions] of Object.entries(examples)) {
      const text = read(file)
      expect(text, `${file} is out of date: run npm run docs:examples`).toBe(withRegions(file, text, regions))
    }
  })
})
