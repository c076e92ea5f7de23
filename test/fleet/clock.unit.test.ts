import { describe, expect, it } from 'vitest'
import { VirtualClock } from '../../src/fleet/clock.js'

function clockWithWall(options: { speed: number; paused: boolean }) {
  let wall = 1000
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'), options, () => wall)
  return { clock, tick: (ms: number) => (wall += ms) }
}

describe('virtual clock', () => {
  it('runs at its speed factor', () => {
    const { clock, tick } = clockWithWall({ speed: 60, paused: false })
    tick(1000)
    expect(clock.elapsedMs()).toBe(60_000)
  })

  it('stands still while paused and still advances on request', () => {
    const { clock, tick } = clockWithWall({ speed: 1, paused: true })
    tick(5000)
    expect(clock.elapsedMs()).toBe(0)
    clock.advance(30_000)
    expect(clock.elapsedMs()).toBe(30_000)
    expect(clock.state()).toEqual({ now: Date.parse('2026-01-01T00:00:30Z'), speed: 1, paused: true })
  })

  it('does not jump when the speed changes', () => {
    const { clock, tick } = clockWithWall({ speed: 1, paused: false })
    tick(2000)
    clock.setSpeed(100)
    expect(clock.elapsedMs()).toBe(2000)
    tick(1000)
    expect(clock.elapsedMs()).toBe(102_000)
  })

  it('refuses a speed that is not a positive number', () => {
    const { clock } = clockWithWall({ speed: 1, paused: false })
    expect(() => clock.setSpeed(0)).toThrow(/positive/)
    expect(() => clock.setSpeed(Number.NaN)).toThrow(/positive/)
  })

  it('tells how long until a virtual instant, and never while paused', () => {
    const { clock } = clockWithWall({ speed: 10, paused: false })
    expect(clock.wallMsUntil(10_000)).toBe(1000)
    clock.setPaused(true)
    expect(clock.wallMsUntil(10_000)).toBe(Infinity)
  })
})
