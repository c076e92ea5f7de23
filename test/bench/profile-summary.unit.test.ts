/**
 * `npm run bench:profile`: a function's self and inclusive shares of a profile's busy time, idle
 * left out, each sample counted once for a function on the stack twice.
 */
import { describe, expect, it } from 'vitest'
import { summarise, type CpuProfile } from '../../bench/profile-summary.js'

const frame = (functionName: string, url = 'file:///x/src/http/a.ts', lineNumber = 1) => ({ functionName, url, lineNumber })

describe('the profile summary', () => {
  it('shares the busy time out by function, itself and with what it called, idle left out', () => {
    // root → handle → write, and root → (idle); handle calls itself once (recursion).
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 4] },
        { id: 2, callFrame: frame('handle'), children: [3, 5] },
        { id: 3, callFrame: frame('write', 'node:net', 9) },
        { id: 4, callFrame: frame('(idle)', '') },
        { id: 5, callFrame: frame('handle') }
      ],
      // Each sample is charged the delta after it (the last none): write 10 + 40 µs, handle 20,
      // idle 30, the inner handle 5.
      samples: [3, 2, 4, 3, 5, 5],
      timeDeltas: [0, 10, 20, 30, 40, 5]
    }
    const { busySeconds, functions } = summarise(profile)
    expect(busySeconds).toBeCloseTo(75e-6)
    const of = (name: string) => functions.find((f) => f.key.startsWith(`${name} `))
    expect(of('write')).toMatchObject({ key: 'write node:net:9', self: 50 / 75, inclusive: 50 / 75 })
    expect(of('handle')?.key).toBe('handle src/http/a.ts:1')
    // Once for the sample where it is on the stack twice.
    expect(of('handle')).toMatchObject({ self: 25 / 75, inclusive: 1 })
    expect(of('(idle)')).toBeUndefined()
    expect(functions[0].inclusive).toBe(1)
  })
})
