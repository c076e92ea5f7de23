import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { nodeConfigContext, parseServeConfig } from '../../src/config.js'
import { readRegularFileSync } from '../../src/lib/regular-file.js'

const dir = mkdtempSync(join(tmpdir(), 'fleetsim-regular-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('reading a small file a user names', () => {
  it('reads a regular file up to its limit', () => {
    const file = join(dir, 'small.txt')
    writeFileSync(file, 'x'.repeat(100))
    expect(readRegularFileSync(file, 100)).toBe('x'.repeat(100))
  })

  it('refuses a file larger than its limit without reading it whole', () => {
    const file = join(dir, 'large.txt')
    writeFileSync(file, 'x'.repeat(101))
    expect(() => readRegularFileSync(file, 100)).toThrow('it is 101 bytes, more than the 100 such a file can hold')
  })

  it('reads a named pipe nobody writes as empty, at once, where reading it waited for a writer for ever', () => {
    const fifo = join(dir, 'pipe')
    execFileSync('mkfifo', [fifo])
    expect(readRegularFileSync(fifo, 100)).toBe('')
  })

  it('refuses a device, where /dev/zero filled the memory', () => {
    expect(() => readRegularFileSync('/dev/zero', 100)).toThrow('it is a device, not a regular file')
  })

  it('refuses them as --password-file, naming the flag and what the file is', () => {
    expect(() => parseServeConfig(['--password-file', '/dev/zero'], {}, nodeConfigContext)).toThrow(
      '--password-file must name a readable file (it is a device, not a regular file), got "/dev/zero"'
    )
  })
})
