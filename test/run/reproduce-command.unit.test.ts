import { describe, expect, it } from 'vitest'
import { reproduceCommand, shellWord } from '../../src/commands/run.js'

describe('the command that reproduces a run', () => {
  it('leaves shell-safe words as they are and single-quotes the others', () => {
    expect(shellWord('out/report-1')).toBe('out/report-1')
    expect(shellWord("it's here")).toBe(String.raw`'it'\''s here'`)
    expect(shellWord('$(rm -rf /)')).toBe("'$(rm -rf /)'")
  })

  it('spells out every flag that shapes the run, so a changed default cannot change it', () => {
    expect(reproduceCommand({ file: 'my scenario.yaml', out: 'out', durationSeconds: 5400, sampleSeconds: 90, startTime: 0 })).toBe(
      "fleetsim run 'my scenario.yaml' --duration 1h30m --sample 1m30s --start-time 1970-01-01T00:00:00.000Z --out out"
    )
  })
})
