import { describe, expect, it } from 'vitest'
import { soakFailures, type SoakTotals } from '../../bench/lib/soak-checks.js'

const healthy: SoakTotals = { errors: 0, timeouts: 0, non2xx: 0, serverErrors: 0, timeoutSeconds: 10, fleet: { counts: [9, 1, 0, 0, 0, 0], scanned: [9, 1, 0, 0, 0, 0] } }

describe('the soak checks', () => {
  it('find nothing wrong with a healthy run', () => {
    expect(soakFailures(healthy)).toEqual([])
  })

  it('say how many requests failed at the socket and what that means', () => {
    expect(soakFailures({ ...healthy, errors: 3 })).toEqual(['3 requests failed at the socket (connection errors): the server closed or refused connections under load.'])
  })

  it('say how many requests timed out and after how long', () => {
    expect(soakFailures({ ...healthy, timeouts: 1 })).toEqual(['1 request got no answer within 10 s: the server stalled under load.'])
  })

  it('tell 5xx answers from other answers that are not 2xx', () => {
    expect(soakFailures({ ...healthy, non2xx: 1205, serverErrors: 5 })).toEqual([
      '5 answers were 5xx: the server failed requests it should have answered (its warnings and errors are printed above).',
      '1,200 answers were 4xx or another status that is not 2xx: the server refused requests that are valid (a limit or rule fired under load).'
    ])
  })

  it('name both sets of counts when the fleet counts differ from a scan', () => {
    expect(soakFailures({ ...healthy, fleet: { counts: [9, 1, 0, 0, 0, 0], scanned: [8, 2, 0, 0, 0, 0] } })).toEqual([
      "the fleet's counts by state (ONLINE 9, OFFLINE 1, ERROR 0, UNMANAGED 0, UNTRUSTED 0, FORGED 0) differ from a scan of every agent " +
        '(ONLINE 8, OFFLINE 2, ERROR 0, UNMANAGED 0, UNTRUSTED 0, FORGED 0) after the run: the counts the metrics, the admin API, agentinfo lists ' +
        'and the log summaries use have drifted from the real states of the agents.'
    ])
  })
})
