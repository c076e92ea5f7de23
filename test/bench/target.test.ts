/**
 * The bench's fleetsim target (bench/lib/target-child.ts) builds its fleet as `fleetsim serve`
 * does from the serve flags it is given: here, the manager's status poll, which decides how often
 * the agents' figures move in a list (`npm run bench:list-load -- --status-poll`).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { AUTH_HEADERS, LIVELY_SCENARIO, REST } from '../../bench/lib/context.js'
import { fetchAnswer } from '../../bench/lib/load.js'
import { startTarget, type Target } from '../../bench/lib/target.js'

const started: Target[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((target) => target.close()))
})

/**
 * The ONLINE agents' lastOnline once the paused clock was advanced `seconds` virtual seconds, in
 * rounds of 24 as at speed 600: the same fleet at the same second whatever the machine's speed
 * (a running clock ran on while the list was asked for, further on a busy machine).
 */
async function lastOnlineAfter(seconds: number, serveFlags: string[]): Promise<string[]> {
  const target = await startTarget({ kind: 'fleetsim', agents: 300, seed: 7, scenario: LIVELY_SCENARIO, speed: 600, paused: true, caFingerprint: 'AA:BB', serveFlags })
  started.push(target)
  await target.command({ op: 'advance', seconds, chunk: 24 })
  const answer = await fetchAnswer(target.origin, `${REST}/agentinfo?agentstate=ONLINE`, { headers: { ...AUTH_HEADERS, accept: 'application/json' }, keepBody: true })
  expect(answer.status).toBe(200)
  const list = JSON.parse(answer.body.toString()) as { values: Array<{ content: { lastOnline: string } }> }
  return list.values.map((item) => item.content.lastOnline)
}

describe('the bench fleetsim target', () => {
  it('polls its agents as --status-poll in its serve flags says', { timeout: 60_000 }, async () => {
    // The run starts at 2026-06-01 00:00. Polled every minute, an ONLINE agent was last seen
    // online within the last minute; polled once an hour, most were last seen when the run began.
    const atStart = (dates: string[]) => dates.filter((date) => date === '2026-06-01 00:00').length / dates.length
    const everyMinute = await lastOnlineAfter(300, [])
    const everyHour = await lastOnlineAfter(300, ['--status-poll', '1h'])
    expect(everyMinute.length).toBeGreaterThan(100)
    expect(everyHour.length).toBeGreaterThan(100)
    expect(atStart(everyMinute)).toBeLessThan(0.1)
    expect(atStart(everyHour)).toBeGreaterThan(0.5)
  })
})
