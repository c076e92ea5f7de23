/**
 * Output files and directories checked before the work: places where no file can be made are
 * refused by their flag (access() says yes to root for /sys), as are a socket or a dangling link
 * where a file goes; each failed after the work with Node's bare error and exit 1.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { prepareOutputDir, prepareOutputFile } from '../../src/flags/output-dir.js'

const dir = mkdtempSync(join(tmpdir(), 'fleetsim-output-dir-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('output files and directories', () => {
  it('refuses a directory where no file can be made, whatever access() says', async () => {
    await expect(prepareOutputDir('out', '/sys/kernel')).rejects.toThrow(/^--out must name a directory fleetsim can write, got "\/sys\/kernel" \(/)
    await expect(prepareOutputDir('out', '/proc/self')).rejects.toThrow(/^--out must name a directory fleetsim can write, got "\/proc\/self" \(/)
    await expect(prepareOutputFile('junit', '/sys/kernel/report.xml')).rejects.toThrow(/^--junit must name a file fleetsim can write, got "\/sys\/kernel\/report.xml" \(/)
  })

  it('refuses a named pipe and a dangling link where a file goes', async () => {
    const fifo = join(dir, 'report.fifo')
    execFileSync('mkfifo', [fifo])
    await expect(prepareOutputFile('junit', fifo)).rejects.toThrow(`--junit must name a regular file, got "${fifo}", which is a named pipe (FIFO); name a file`)
    const dangling = join(dir, 'dangling.xml')
    symlinkSync(join(dir, 'missing', 'report.xml'), dangling)
    await expect(prepareOutputFile('junit', dangling)).rejects.toThrow(`--junit must name a file, got "${dangling}", a symbolic link to a place that does not exist; point it at a file, or name another`)
  })

  it('takes a writable directory and leaves no file of its check behind', async () => {
    await prepareOutputDir('out', join(dir, 'new'))
    await prepareOutputFile('junit', join(dir, 'new', 'report.xml'))
    expect(execFileSync('ls', ['-A', join(dir, 'new')], { encoding: 'utf8' })).toBe('')
  })
})
