import { describe, expect, it } from 'vitest'
import { HOSTILE_FAMILIES } from './fuzz/hostile.js'
import { runFuzz } from './fuzz/runner.js'

// A fixed seed and count: the same 10,000 requests on every run. `npm run fuzz -- --runs N
// --seed S` runs more, or others. Among them a few dozen of each hostile family
// (fuzz/hostile.ts): names with commas and control characters, ~1 MB URLs without
// credentials, deep and alias-bombed scenario uploads.
const SEED = 20260301
const RUNS = 10_000
// About 70 s on a quiet 2-core machine; a loaded one took over 180 s, hence the room.

describe('fuzzed requests through inject', () => {
  it(`answer ${RUNS} generated requests with 2xx or 4xx envelopes and keep the fleet consistent`, { timeout: 600_000 }, async () => {
    const report = await runFuzz({ runs: RUNS, seed: SEED })
    const statuses = Object.entries(report.byStatus).map(([status, n]) => `${status}×${n}`).join(' ')
    const families = Object.entries(report.byFamily).map(([family, n]) => `${family}×${n} ${report.msByFamily[family]} ms`).join(', ')
    process.stdout.write(
      `fuzz: ${report.requests} requests, ${report.serverErrors} server errors, ${report.dropped} dropped, ` +
        `${report.added} added, ${report.deleted} deleted, ${report.invariantChecks} invariant checks, ${report.durationMs} ms (${statuses}; ${families})\n`
    )
    expect(report.problems).toEqual([])
    expect(report.requests).toBe(RUNS)
    expect(report.serverErrors).toBe(0)
    expect(report.dropped).toBe(0)
    // The generator must reach the operations' logic, not only their error paths.
    expect(report.byStatus['200']).toBeGreaterThan(RUNS / 20)
    expect(report.added).toBeGreaterThan(0)
    expect(report.deleted).toBeGreaterThan(0)
    for (const family of HOSTILE_FAMILIES) expect(report.byFamily[family], family).toBeGreaterThan(10)
  })
})
