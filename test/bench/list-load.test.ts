/**
 * `npm run bench:list-load` on a small fleet: its clients, in a process of their own, get whole
 * lists of the ONLINE agents in both formats, over HTTP and HTTPS, and the figures are the ones it
 * says. Timings are not checked. A bad command line is refused with a sentence and the usage.
 */
import { execFile } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { measureListLoad } from '../../bench/list-load.js'

describe('the list load benchmark', () => {
  it('lists the ONLINE agents from a client process, in JSON and XML, over HTTP and HTTPS, and measures the server per answer', { timeout: 90_000 }, async () => {
    const bytes: Record<string, number> = {}
    for (const [format, https] of [['json', false], ['xml', false], ['json', true]] as const) {
      const { rounds } = await measureListLoad({ agents: 1000, clients: 2, format, https, speed: 600, seconds: 0.5, rounds: 1 })
      expect(rounds).toHaveLength(1)
      const [round] = rounds
      expect(round.failed).toBe(0)
      expect(round.answers).toBeGreaterThan(2)
      expect(round.answersPerSecond).toBeGreaterThan(0)
      expect(round.serverCpuMsPerAnswer).toBeGreaterThan(0)
      // The server's main thread made and sent lists for part of the round at least; the machine's idle cores are a share of its cores.
      expect(round.mainThreadBusy).toBeGreaterThan(0)
      expect(round.mainThreadBusy).toBeLessThanOrEqual(1.05)
      if (round.idleCores !== undefined) {
        expect(round.idleCores).toBeGreaterThanOrEqual(0)
        expect(round.idleCores).toBeLessThanOrEqual(availableParallelism())
      }
      // Most of 1,000 agents are ONLINE, several hundred bytes each.
      expect(round.bytesPerAnswer).toBeGreaterThan(500 * 500)
      bytes[`${format}${https ? ' over HTTPS' : ''}`] = round.bytesPerAnswer
    }
    expect(bytes.xml).toBeGreaterThan(bytes.json)
    // The same list over either transport: the same agents, give or take the few that moved.
    expect(Math.abs(bytes['json over HTTPS'] - bytes.json)).toBeLessThan(bytes.json / 10)
  })

  it('counts the answers sent again from the kept answers: at speed 1 all but a list a virtual second', { timeout: 60_000 }, async () => {
    const { rounds } = await measureListLoad({ agents: 3000, clients: 2, format: 'json', https: false, speed: 1, seconds: 1, rounds: 1 })
    const [round] = rounds
    expect(round.failed).toBe(0)
    // An answer sent kept was not made, nor joined to one being made.
    expect(round.keptShare).toBeGreaterThan(0)
    expect(round.joinedShare).toBeGreaterThanOrEqual(0)
    expect(round.keptShare + round.joinedShare).toBeLessThanOrEqual(1)
    // A list is made once a virtual second at most, and sent again from what was kept meanwhile:
    // a round of one second made two at most, and one more if the warm-up's went stale as it
    // began. How many answers came besides depends on the machine, so no share is asked for.
    const made = Math.round(round.answers * (1 - round.keptShare - round.joinedShare))
    expect(made).toBeLessThanOrEqual(3)
  })

  it('refuses a bad option with what was wrong and the usage', { timeout: 30_000 }, async () => {
    const run = promisify(execFile)
    const failed = await run(process.execPath, ['--import', 'tsx', 'bench/list-load.ts', '--format', 'yaml']).catch((error: { code: number; stderr: string }) => error)
    expect('code' in failed ? failed.code : 0).toBe(2)
    expect('stderr' in failed ? failed.stderr : '').toContain('--format must be json or xml, got "yaml"')
    expect('stderr' in failed ? failed.stderr : '').toContain('usage: npm run bench:list-load')
    // --status-poll is checked as serve checks it, before a server is started.
    const poll = await run(process.execPath, ['--import', 'tsx', 'bench/list-load.ts', '--status-poll', 'often']).catch((error: { code: number; stderr: string }) => error)
    expect('code' in poll ? poll.code : 0).toBe(2)
    expect('stderr' in poll ? poll.stderr : '').toContain('--status-poll must be a duration of whole seconds')
  })
})
