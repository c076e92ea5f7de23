/** serve's quick fault flags: --latency, --error-rate and --fault-operations, read and refused. */
import { describe, expect, it } from 'vitest'
import { parserFor, refusalOf } from './helpers.js'

const parse = parserFor()

const messageOf = (argv: string[], env: Record<string, string> = {}): string => refusalOf(parse, argv, env)

describe('the quick fault flags', () => {
  it('are off by default', () => {
    const config = parse([])
    expect([config.latency, config.errorRate, config.faultOperations]).toEqual([undefined, undefined, undefined])
  })

  it('read --latency as a fixed wait in milliseconds', () => {
    expect(parse(['--latency', '200ms']).latency).toEqual({ ms: 200, spreadMs: 0 })
    expect(parse(['--latency', '1m30s']).latency).toEqual({ ms: 90_000, spreadMs: 0 })
  })

  it('read a spread after ± or +-, in any unit', () => {
    expect(parse(['--latency', '200ms±50ms']).latency).toEqual({ ms: 200, spreadMs: 50 })
    expect(parse(['--latency', '1s+-0.25s']).latency).toEqual({ ms: 1000, spreadMs: 250 })
    expect(parse(['--latency', '2s ± 100ms']).latency).toEqual({ ms: 2000, spreadMs: 100 })
  })

  it('read --error-rate as the fraction of calls', () => {
    expect(parse(['--error-rate', '5%']).errorRate).toBe(0.05)
    expect(parse(['--error-rate', '0.5%']).errorRate).toBe(0.005)
    expect(parse(['--error-rate', '100%']).errorRate).toBe(1)
  })

  it('read --fault-operations as a list of operations, each once', () => {
    expect(parse(['--latency', '1s', '--fault-operations', 'agentinfo, appinfo,agentinfo']).faultOperations).toEqual(['agentinfo', 'appinfo'])
  })

  it('read their env twins', () => {
    const config = parse([], { FLEETSIM_LATENCY: '100ms+-10ms', FLEETSIM_ERROR_RATE: '12.5%', FLEETSIM_FAULT_OPERATIONS: 'stopagent' })
    expect(config).toMatchObject({ latency: { ms: 100, spreadMs: 10 }, errorRate: 0.125, faultOperations: ['stopagent'] })
  })

  it('let a flag of 0 override an env twin', () => {
    expect(parse(['--error-rate', '0%'], { FLEETSIM_ERROR_RATE: '50%' }).errorRate).toBe(0)
    expect(parse(['--latency', '0ms'], { FLEETSIM_LATENCY: '1s' }).latency).toEqual({ ms: 0, spreadMs: 0 })
  })
})

describe('the quick fault flags refuse', () => {
  it('a --latency without a unit, which could be seconds or milliseconds', () => {
    expect(messageOf(['--latency', '200'])).toBe('--latency must be a duration with a unit, optionally ± a spread, like 200ms or 200ms±50ms, got "200"')
  })

  it('a --latency spread larger than the latency, which would draw waits below 0', () => {
    expect(messageOf(['--latency', '50ms±60ms'])).toBe('--latency must have a spread no larger than the duration, so no wait is below 0, got "50ms±60ms"')
  })

  it('a --latency over a day, spread included', () => {
    expect(messageOf(['--latency', '23h±2h'])).toBe('--latency must be at most 1d, spread included, got "23h±2h"')
  })

  it('an --error-rate without a % sign', () => {
    expect(messageOf(['--error-rate', '0.05'])).toBe('--error-rate must be a percentage like 5% or 0.5%, got "0.05"')
  })

  it('an --error-rate over 100%', () => {
    expect(messageOf(['--error-rate', '150%'])).toBe('--error-rate must be from 0% to 100%, got "150%"')
  })

  it('a negative --error-rate, naming the env twin it came from', () => {
    expect(messageOf([], { FLEETSIM_ERROR_RATE: '-5%' })).toBe('--error-rate must be from 0% to 100%, got "-5%" (from FLEETSIM_ERROR_RATE)')
  })

  it('an unknown operation in --fault-operations, suggesting the nearest', () => {
    expect(messageOf(['--latency', '1s', '--fault-operations', 'appinfo,agentinf'])).toBe(
      '--fault-operations must name operations separated by commas; "agentinf" is not one (did you mean agentinfo?), got "appinfo,agentinf"'
    )
  })

  it('an empty item in --fault-operations', () => {
    expect(messageOf(['--latency', '1s', '--fault-operations', 'appinfo,'])).toBe(
      '--fault-operations must name operations separated by commas; an empty one is not, got "appinfo,"'
    )
  })

  it('--fault-operations without --latency or --error-rate, which it would limit', () => {
    expect(messageOf(['--fault-operations', 'appinfo'])).toBe(
      '--fault-operations limits --latency and --error-rate, and neither is given; add one of them or leave --fault-operations out'
    )
  })

  it('FLEETSIM_FAULT_OPERATIONS without a fault flag, naming the variable', () => {
    expect(messageOf([], { FLEETSIM_FAULT_OPERATIONS: 'appinfo' })).toBe(
      'FLEETSIM_FAULT_OPERATIONS limits --latency and --error-rate, and neither is given; add one of them or leave FLEETSIM_FAULT_OPERATIONS out'
    )
  })
})
