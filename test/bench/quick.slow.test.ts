import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runBench } from '../../bench/run.js'
import type { BenchResults } from '../../bench/lib/results.js'
import { renderTables } from '../../bench/table.js'
import { wiremockUnavailable } from '../../bench/lib/wiremock.js'

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

// A CI smoke run: tiny fleets, half-second loads. Only completion and the shape of the results
// are checked; timings on a shared CI machine mean nothing, so missed targets are allowed (as
// `npm run bench -- --report-only` allows them; runBench returns failures and never fails on them).
describe('the benchmark smoke run', () => {
  it('completes every scope with zero errors and writes valid JSON results', { timeout: 420_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'fleetsim-bench-test-'))
    dirs.push(out)
    const lines: string[] = []
    const { file, failures } = await runBench({ scope: 'all', profile: 'smoke', outDir: out, progress: (line) => lines.push(line) })
    expect(failures.filter((failure) => !failure.startsWith('target missed:'))).toEqual([])

    expect(await readdir(out)).toEqual([file.split('/').pop()])
    const results = JSON.parse(await readFile(file, 'utf8')) as BenchResults
    expect(results).toMatchObject({ scope: 'all', profile: 'smoke', gc: 'single' })
    expect(results.machine.cpus).toBeGreaterThan(0)
    expect(results.git.commit).toMatch(/^[0-9a-f]{40}$|^unknown$/)
    expect(new Set(results.rows.map((row) => row.group))).toEqual(
      new Set(['agentinfo one agent, polled', 'agentinfo, every answer built', 'agentinfo by state', 'agentinfo by state, many clients', 'multi-agent operations', 'scale', 'GC modes', 'V8 pretenuring'])
    )
    for (const row of results.rows) {
      expect({ name: row.name, errors: row.errors, timeouts: row.timeouts, non2xx: row.non2xx }).toEqual({ name: row.name, errors: 0, timeouts: 0, non2xx: 0 })
      expect(row.requests, row.name).toBeGreaterThan(0)
    }
    // Every fleetsim row has its bare fastify row but those that compare fleetsim with itself.
    const compared = results.rows.filter((row) => row.target === 'fleetsim' && !['scale', 'agentinfo by state, many clients', 'V8 pretenuring'].includes(row.group))
    expect(compared.filter((row) => row.ratio === null).map((row) => row.name)).toEqual([])
    // Where there is a java, WireMock (the peer) answered the built and list workloads too.
    const peered = results.rows.filter((row) => row.target === 'fleetsim' && row.peerRatio != null).map((row) => row.group)
    if (wiremockUnavailable() === undefined) expect(new Set(peered)).toEqual(new Set(['agentinfo, every answer built', 'agentinfo by state']))
    else expect(results.notes.some((note) => note.includes('java'))).toBe(true)
    // The polled headline alternates rounds, the second on a fresh pair of processes.
    expect(results.rows.find((row) => row.group === 'agentinfo one agent, polled' && row.name === 'fleetsim, JSON')?.params.rounds).toBe(2)
    expect(results.lists[0].items).toBeGreaterThan(1000)
    expect(results.memory?.[0].clients).toBe(2)
    expect(results.scale[0].agentinfoWhileStepping.errors).toBe(0)
    expect(renderTables([results])).toContain('| Agents |')
  })
})
