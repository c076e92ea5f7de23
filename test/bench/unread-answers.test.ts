/**
 * `npm run bench:unread-answers` on a small journal: the connections that read nothing get the
 * answers the bound allows (the first always; past the bound, 503), the server counts what they
 * hold, and the RSS figures are read. A bad command line is refused with a sentence and the usage.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { measureUnread } from '../../bench/unread-answers.js'

describe('the unread answers benchmark', () => {
  it('has connections that read nothing refused past the bound, and counts what the first holds', { timeout: 90_000 }, async () => {
    // Four agents of the bench's fleet (10,000, seed 7) with their modules, about 6 KB an answer: the OFFLINE agents the command lists
    // are few in the first seconds of its fleet, and how few depends on how fast the journal fills.
    const names = ['cache-gol-000001', 'db-cru-000002', 'cache-ken-000003', 'build-gre-000004']
    const run = await measureUnread(1024 * 1024, 3, { requests: 2000, names })
    // 2,000 entries of 4 KiB each (each keeps that much of its answer): far more than the kernel's socket buffers take.
    expect(run.journalBytes).toBeGreaterThan(4_000_000)
    expect(run.answers).toEqual({ 'HTTP/1.1 200 OK': 1, 'HTTP/1.1 503 Service Unavailable': 2 })
    expect(run.unsentBytes).toBeGreaterThan(1024 * 1024)
    expect(run.unsentBytes).toBeLessThanOrEqual(run.journalBytes)
    expect(run.rssBeforeMb).toBeGreaterThan(0)
    expect(run.rssPeakMb).toBeGreaterThanOrEqual(run.rssBeforeMb)
  })

  it('refuses a bad option with what was wrong and the usage', { timeout: 30_000 }, async () => {
    const failed = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/unread-answers.ts', '--bounds', 'default,lots']).catch((error: { code: number; stderr: string }) => error)
    expect('code' in failed ? failed.code : 0).toBe(2)
    expect('stderr' in failed ? failed.stderr : '').toContain('--bounds takes default, off or a number of bytes from 1048576 to 1099511627776, comma-separated, got "lots"')
    expect('stderr' in failed ? failed.stderr : '').toContain('usage: npm run bench:unread-answers')
  })
})
