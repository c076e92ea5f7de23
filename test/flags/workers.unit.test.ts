/** --workers beyond the machine's CPUs: allowed (any number gives the same run), warned about once at start. */
import { describe, expect, it } from 'vitest'
import { workerCount, workersWarning } from '../../src/flags/rules.js'

describe('--workers', () => {
  it('accepts 1 to 1024', () => {
    expect(workerCount('1')).toBe(1)
    expect(workerCount('1024')).toBe(1024)
    expect(() => workerCount('1025')).toThrow('be an integer from 1 to 1024')
  })

  it('says nothing up to the CPUs, and names them and what to give beyond', () => {
    expect(workersWarning(2, 2)).toBeUndefined()
    expect(workersWarning(1, 8)).toBeUndefined()
    expect(workersWarning(1024, 2)).toBe(
      '--workers 1024 is more than the 2 CPUs this machine offers (os.availableParallelism()): the threads beyond 2 step the fleet no faster and each costs memory and start-up time; give --workers 2 or leave it out'
    )
    expect(workersWarning(3, 1)).toContain('more than the 1 CPU this machine offers')
  })
})
