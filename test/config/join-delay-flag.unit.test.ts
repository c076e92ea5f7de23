import { describe, expect, it } from 'vitest'
import { SERVE_DEFAULTS, SERVE_FLAGS_BY_KEY, parseServeConfig, type ConfigContext } from '../../src/config.js'
import { DEFAULT_JOIN_DELAY } from '../../src/fleet/fleet-types.js'

const context: ConfigContext = { now: () => 0, cpuCount: () => 2, readFile: () => '', isFile: () => false }
const joinDelay = (argv: string[], env: Record<string, string> = {}) => parseServeConfig(argv, env, context).joinDelay

describe('--join-delay', () => {
  it('defaults to 2 to 9 seconds, the delay added agents have always had, and says so in help', () => {
    expect(joinDelay([])).toEqual({ min: 2, max: 9 })
    expect(SERVE_DEFAULTS.joinDelay).toBe(DEFAULT_JOIN_DELAY)
    expect(SERVE_FLAGS_BY_KEY.joinDelay.defaultText).toBe('2s..9s')
  })

  it('takes one duration of whole seconds as a fixed delay', () => {
    expect(joinDelay(['--join-delay', '0'])).toEqual({ min: 0, max: 0 })
    expect(joinDelay(['--join-delay', '30s'])).toEqual({ min: 30, max: 30 })
    expect(joinDelay(['--join-delay', '1m30s'])).toEqual({ min: 90, max: 90 })
  })

  it('takes a range of whole seconds, drawn from per agent', () => {
    expect(joinDelay(['--join-delay', '5s..1m'])).toEqual({ min: 5, max: 60 })
    expect(joinDelay(['--join-delay', '0..20'])).toEqual({ min: 0, max: 20 })
  })

  it('reads FLEETSIM_JOIN_DELAY', () => {
    expect(joinDelay([], { FLEETSIM_JOIN_DELAY: '20s' })).toEqual({ min: 20, max: 20 })
  })

  it('rejects what is not whole seconds or a range of them, naming the flag and the rule', () => {
    const shape = 'must be a duration of whole seconds (like 0, 5s, 1m) or a range of them (like 2s..9s), at most 1d'
    for (const bad of ['soon', '1.5s', '500ms', '2s..', '..9s', '2s..5s..9s', '-1s', '2d']) {
      expect(() => joinDelay(['--join-delay', bad]), bad).toThrow(`--join-delay ${shape}, got "${bad}"`)
    }
  })

  it('rejects a range written longest first, showing it the right way round', () => {
    expect(() => joinDelay(['--join-delay', '9s..2s'])).toThrow('--join-delay must give the shorter duration of a range first (2s..9s), got "9s..2s"')
  })
})
