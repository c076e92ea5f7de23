import { describe, expect, it } from 'vitest'
import { SERVE_FLAGS_BY_KEY, parseServeConfig, type ConfigContext } from '../../src/config.js'

const context: ConfigContext = { now: () => 0, cpuCount: () => 2, readFile: () => '', isFile: () => false }
const statusPoll = (argv: string[], env: Record<string, string> = {}) => parseServeConfig(argv, env, context).statusPoll

describe('--status-poll', () => {
  it("defaults to a minute, the real manager's interval, and says so in help", () => {
    expect(statusPoll([])).toBe(60)
    expect(SERVE_FLAGS_BY_KEY.statusPoll.defaultText).toBe('60s')
  })

  it('takes a duration of whole seconds, 0 for live figures, and reads FLEETSIM_STATUS_POLL', () => {
    expect(statusPoll(['--status-poll', '0'])).toBe(0)
    expect(statusPoll(['--status-poll', '5m'])).toBe(300)
    expect(statusPoll([], { FLEETSIM_STATUS_POLL: '30s' })).toBe(30)
  })

  it('rejects what is not whole seconds, naming the flag and the rule', () => {
    for (const bad of ['often', '1.5s', '-1s']) {
      expect(() => statusPoll(['--status-poll', bad]), bad).toThrow(`--status-poll must be a duration of whole seconds, at least 0s (like 90s, 5m, 24h), got "${bad}"`)
    }
  })
})
