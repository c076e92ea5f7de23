/**
 * `npm run bench:built-load` on a small fleet: the four servers answer the `built` workload with
 * no failed request, the fleetsim process sending recorded answers sends fleetsim's own bytes
 * (and leaves every other request to its app), and the table names each row with its ratio.
 * Timings are not checked. A bad command line is refused with a sentence and the usage.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { RECORDED_NAME, builtLoadTable, busyName, measureBuiltLoad } from '../../bench/built-load.js'
import { busyFor } from '../../bench/lib/protocol.js'
import { AUTH_HEADERS, LIVELY_SCENARIO, REST } from '../../bench/lib/context.js'
import { fetchAnswer } from '../../bench/lib/load.js'
import { startTarget } from '../../bench/lib/target.js'
import { BUILT_VARIANTS, builtPath, recordBuiltAnswers } from '../../bench/suites/built.js'

describe('the built load benchmark', () => {
  it('runs the built workload on bare fastify, bare node:http (and its busy twin), fleetsim sending recorded answers and fleetsim', { timeout: 90_000 }, async () => {
    const result = await measureBuiltLoad({ variant: 'json', speed: 600, serveFlags: ['--journal-size', '0'], agents: 300, connections: 2, seconds: 0.5, rounds: 2, busy: [20] })
    expect(result.rows.map((row) => row.name)).toEqual(['bare fastify, JSON', 'bare node:http, JSON', `${busyName(20)}, JSON`, `${RECORDED_NAME}, JSON`, 'fleetsim, JSON'])
    for (const row of result.rows) {
      expect(row.requests).toBeGreaterThan(0)
      expect(row.errors + row.timeouts + row.non2xx).toBe(0)
      expect(row.serverCpuUsPerRequest).toBeGreaterThan(0)
    }
    // Every row but the baseline's own has its ratio to bare fastify, from both rounds.
    for (const row of result.rows.slice(1)) {
      expect(row.ratio).toBeGreaterThan(0)
      expect(String(row.params.roundsRatio).split(' / ')).toHaveLength(2)
    }
    expect(result.rows[4].params).toMatchObject({ variant: 'json', agents: 300, inTurn: 300, speed: 600, busyMicroseconds: '20' })
    const table = builtLoadTable(result)
    expect(table).toHaveLength(2 + 5)
    expect(table[6]).toMatch(/^\| fleetsim, JSON \| [\d.]+ \| [\d.]+ \| [\d.]+ \/ [\d.]+ \| \d+ µs \| [\d.]+ µs \|$/)
  })

  it('keeps the busy twin busy for at least the µs asked, each answer', () => {
    for (const microseconds of [0, 50, 500]) {
      const began = performance.now()
      busyFor(microseconds)
      expect((performance.now() - began) * 1000).toBeGreaterThanOrEqual(microseconds)
    }
  })

  it("sends fleetsim's recorded bytes for the recorded requests, and leaves every other request to the app", { timeout: 60_000 }, async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'built-load-test-'))
    const spec = { kind: 'fleetsim' as const, agents: 50, seed: 7, scenario: LIVELY_SCENARIO, speed: 1, paused: true, caFingerprint: 'AA:BB' }
    const fleet = await startTarget(spec)
    try {
      const names = await fleet.command({ op: 'names', count: 3 })
      const xml = BUILT_VARIANTS.find((v) => v.key === 'xml')
      if (xml === undefined) throw new Error('no xml variant')
      const answers = await recordBuiltAnswers(fleet, [xml], names.slice(0, 2), join(scratch, 'answers.json'), () => {})
      const recorded = await startTarget({ ...spec, recorded: answers })
      try {
        const ask = (origin: string, name: string) => fetchAnswer(origin, builtPath(xml, name), { headers: { ...AUTH_HEADERS, accept: xml.accept } })
        for (const name of names.slice(0, 2)) {
          const [own, sent] = await Promise.all([ask(fleet.origin, name), ask(recorded.origin, name)])
          expect(sent.status).toBe(200)
          expect(sent.contentType).toBe(own.contentType)
          expect(sent.body.equals(own.body)).toBe(true)
        }
        // Not recorded: the app answers, as fleetsim does.
        const other = await ask(recorded.origin, names[2])
        expect(other.status).toBe(200)
        expect(other.body.toString()).toContain(`<name>${names[2]}</name>`)
        // A request no answer was recorded for (JSON here) is the app's too: without credentials, refused.
        const wrong = await fetchAnswer(recorded.origin, `${REST}/agentinfo?agentname=${names[0]}`, { headers: { accept: 'application/json' } })
        expect(wrong.status).toBe(401)
      } finally {
        await recorded.close()
      }
    } finally {
      await fleet.close()
      await rm(scratch, { recursive: true, force: true })
    }
  })

  it('refuses a bad option with what was wrong and the usage', { timeout: 30_000 }, async () => {
    const run = promisify(execFile)
    const refused = async (args: string[]) => {
      const failed = await run(process.execPath, ['--import', 'tsx', 'bench/built-load.ts', ...args]).catch((error: { code: number; stderr: string }) => error)
      expect('code' in failed ? failed.code : 0).toBe(2)
      const stderr = 'stderr' in failed ? failed.stderr : ''
      expect(stderr).toContain('usage: npm run bench:built-load')
      return stderr
    }
    expect(await refused(['--variant', 'yaml'])).toContain('--variant must be one of json, xml, json-modules, xml-modules, json-https, xml-https, got "yaml"')
    expect(await refused(['--speed', 'fast'])).toContain('--speed must be a number above 0 or paused, got "fast"')
    expect(await refused(['--speed', 'Infinity'])).toContain('--speed must be a number above 0 or paused, got "Infinity"')
    expect(await refused(['--busy=-5'])).toContain('--busy takes whole numbers of µs of work per answer, from 1 to 10000, separated by commas; got "-5"')
    expect(await refused(['--busy', '10,20000'])).toContain('got "20000"')
    // Serve flags are checked as serve checks them, before a server is started.
    expect(await refused(['--serve=--journal-size lots'])).toContain('--serve: --journal-size must be an integer from 0 to 10000000, got "lots"')
    // A serve flag the bench's fleetsim processes would not act on is named, with this command's own option.
    expect(await refused(['--serve=--speed 1'])).toContain("--serve: --speed is not passed on to the fleetsim processes; they take --log-level,")
    expect(await refused(['--serve=--speed 1'])).toContain("(the fleet's size and clock are this command's --agents and --speed)")
    // A value starting with a dash is taken only after `=`, and the message says so.
    expect(await refused(['--serve', '--journal-size 0'])).toContain("use '--serve=-XYZ'")
  })
})
