import { describe, expect, it } from 'vitest'
import { AgentState } from '../../src/protocol/states.js'
import { FIELDS, NEVER, allocateBuffers, beginWrite, copyAgent, viewsOf, type FleetViews } from '../../src/fleet/layout.js'
import { defaultProgram, type FleetProgram } from '../../src/fleet/program.js'
import { cumulativeWeights } from '../../src/fleet/random.js'
import { initShard, recoverShard, stepShard, type UndoArea } from '../../src/fleet/step.js'

const EPOCH = Date.parse('2026-03-01T00:00:00Z')

function fleetOf(agents: number, program: FleetProgram): { v: FleetViews; undo: UndoArea } {
  const v = viewsOf(allocateBuffers(agents))
  v.nextEventAt.fill(NEVER)
  initShard(program, v, { shard: 0, start: 0, end: agents }, 0, false)
  const undo = { views: viewsOf(allocateBuffers(1)), agent: new Int32Array(new SharedArrayBuffer(4)).fill(-1) }
  return { v, undo }
}

function stateBytes(v: FleetViews): string {
  return Object.entries(v)
    .filter(([name]) => name !== 'seq')
    .map(([, array]) => Buffer.from(array.buffer).toString('base64'))
    .join('|')
}

function churny(seed: number): FleetProgram {
  const program = defaultProgram(seed, EPOCH)
  program.churn = { ...program.churn, disconnectPerHour: 2, moduleCrashPerHour: 2 }
  return program
}

describe('stepping a shard', () => {
  it('gives the same fleet whether stepped in one chunk or second by second', () => {
    const program = churny(11)
    const whole = fleetOf(300, program)
    const bySecond = fleetOf(300, program)
    stepShard(program, whole.v, whole.undo, { shard: 0, start: 0, end: 300 }, 7200, false)
    for (let t = 1; t <= 7200; t++) stepShard(program, bySecond.v, bySecond.undo, { shard: 0, start: 0, end: 300 }, t, false)
    expect(stateBytes(bySecond.v)).toBe(stateBytes(whole.v))
  })

  it('gives the same fleet whether the agents are cut into one shard or several', () => {
    const program = churny(12)
    const one = fleetOf(400, program)
    const many = fleetOf(400, program)
    stepShard(program, one.v, one.undo, { shard: 0, start: 0, end: 400 }, 3600, false)
    for (const [start, end] of [[200, 400], [0, 50], [50, 200]]) stepShard(program, many.v, many.undo, { shard: 0, start, end }, 3600, false)
    expect(stateBytes(many.v)).toBe(stateBytes(one.v))
  })

  it('moves agents between states under churn and reports every transition', () => {
    const program = churny(13)
    const { v, undo } = fleetOf(500, program)
    const before = Array.from(v.state)
    const tally = stepShard(program, v, undo, { shard: 0, start: 0, end: 500 }, 3600, false)
    const moved = tally.transitions.reduce((a, b) => a + b, 0)
    expect(moved).toBeGreaterThan(100)
    expect(tally.moduleCrashes).toBeGreaterThan(10)
    // The tallies account for every change of state.
    const counts = (states: ArrayLike<number>) => Array.from({ length: 6 }, (_, s) => Array.from(states).filter((x) => x === s).length)
    const expected = counts(before)
    tally.transitions.forEach((n, k) => {
      expected[Math.floor(k / 6)] -= n
      expected[k % 6] += n
    })
    expect(counts(v.state)).toEqual(expected)
  })

  it('leaves a healthy fleet alone when churn is off', () => {
    const program = defaultProgram(14, EPOCH)
    program.churn = { ...program.churn, disconnectPerHour: 0, moduleCrashPerHour: 0 }
    program.initialConditions = cumulativeWeights([1, 0, 0, 0, 0])
    program.modes = cumulativeWeights([1, 0, 0])
    const { v, undo } = fleetOf(200, program)
    const tally = stepShard(program, v, undo, { shard: 0, start: 0, end: 200 }, 86_400 * 3, false)
    expect(tally.transitions.reduce((a, b) => a + b, 0)).toBe(0)
    expect(Array.from(v.state).every((s) => s === AgentState.ONLINE)).toBe(true)
  })

  it('counts events while agents run and resets the daily counters at midnight', () => {
    const program = defaultProgram(15, EPOCH)
    program.churn = { ...program.churn, disconnectPerHour: 0, moduleCrashPerHour: 0 }
    program.initialConditions = cumulativeWeights([1, 0, 0, 0, 0])
    const { v, undo } = fleetOf(10, program)
    const receivedAtStart = v.received[0]
    stepShard(program, v, undo, { shard: 0, start: 0, end: 10 }, 86_400, false)
    expect(v.received[0]).toBeGreaterThan(receivedAtStart)
    // Midnight of the first virtual day: the daily baseline is the total at that instant.
    expect(v.receivedAtMidnight[0]).toBe(v.received[0])
  })

  it('restores an agent a dead worker left half-written', () => {
    const program = defaultProgram(17, EPOCH)
    const { v, undo } = fleetOf(10, program)
    const before = stateBytes(v)
    // What a worker does before writing agent 4, then dies in the middle of the write.
    copyAgent(v, 4, undo.views, 0)
    undo.agent[0] = 4
    beginWrite(v, 4)
    v.state[4] = 99
    v.received[4] = -1
    expect(recoverShard(v, undo, { shard: 0, start: 0, end: 10 })).toBe(4)
    expect(stateBytes(v)).toBe(before)
    expect(v.seq[4] % 2).toBe(0)
  })
})

describe('copyAgent', () => {
  it('copies every field of FIELDS but seq, every element of a wide one, and nothing of the agents around', () => {
    const src = viewsOf(allocateBuffers(3))
    const dst = viewsOf(allocateBuffers(4))
    // A distinct value in every element of every field, agent 1 of src; zeros around it.
    let next = 1
    for (const [name, spec] of Object.entries(FIELDS)) {
      const view = src[name as keyof FleetViews]
      for (let k = 0; k < spec.width; k++) view[spec.width + k] = next++ % 250
    }
    copyAgent(src, 1, dst, 2)
    for (const [name, spec] of Object.entries(FIELDS)) {
      const from = [...src[name as keyof FleetViews].subarray(spec.width, 2 * spec.width)]
      const to = [...dst[name as keyof FleetViews]].slice(2 * spec.width, 3 * spec.width)
      expect({ name, to }).toEqual({ name, to: name === 'seq' ? from.map(() => 0) : from })
      // The agents before and after the one written are untouched.
      expect({ name, around: [...dst[name as keyof FleetViews]].filter((_, k) => k < 2 * spec.width || k >= 3 * spec.width).some((x) => x !== 0) }).toEqual({ name, around: false })
    }
  })
})
