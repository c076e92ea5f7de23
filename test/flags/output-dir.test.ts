/**
 * Output files and directories checked before the work: places where no file can be made are
 * refused by their flag (access() says yes to root for /sys), as are a socket or a link into a
 * missing directory where a file goes; each failed after the work with Node's bare error and
 * exit 1. A device or a pipe takes the output (`--junit /dev/stdout`, `/dev/null`).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { prepareOutputDir, prepareOutputFile } from '../../src/flags/output-dir.js'

const dir = mkdtempSync(join(tmpdir(), 'fleetsim-output-dir-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
// As root the file made and removed finds them; as another user access() does first.
const CANNOT = /\((no file can be made there|no permission to write there|a read-only file system|EACCES[^)]*|EPERM[^)]*)\)$/

describe('output files and directories', () => {
  it('refuses a directory where no file can be made, whatever access() says', async () => {
    await expect(prepareOutputDir('out', '/sys/kernel')).rejects.toThrow(/^--out must name a directory fleetsim can write, got "\/sys\/kernel" \(/)
    await expect(prepareOutputDir('out', '/sys/kernel')).rejects.toThrow(CANNOT)
    await expect(prepareOutputFile('junit', '/sys/kernel/report.xml')).rejects.toThrow(CANNOT)
  })

  it('refuses a socket, and a link into a directory that is not there', async () => {
    const socket = join(dir, 'report.sock')
    const server = createServer().listen(socket)
    await new Promise((resolve) => server.once('listening', resolve))
    await expect(prepareOutputFile('junit', socket)).rejects.toThrow(`--junit must name a file, got "${socket}", which is a socket; name a file`)
    server.close()
    const dangling = join(dir, 'dangling.xml')
    symlinkSync(join(dir, 'missing', 'report.xml'), dangling)
    await expect(prepareOutputFile('junit', dangling)).rejects.toThrow(
      `--junit must name a file, got "${dangling}", a symbolic link to ${join(dir, 'missing', 'report.xml')}, whose directory is not there; point it at a file in a directory, or name another`
    )
  })

  it('takes a device, and a link to a file not yet made in a directory that is there', async () => {
    await prepareOutputFile('junit', '/dev/null')
    mkdirSync(join(dir, 'there'))
    const link = join(dir, 'to-be.xml')
    symlinkSync(join(dir, 'there', 'report.xml'), link)
    await prepareOutputFile('junit', link)
  })

  it('takes a writable directory and leaves no file of its check behind', async () => {
    await prepareOutputDir('out', join(dir, 'new'))
    await prepareOutputFile('junit', join(dir, 'new', 'report.xml'))
    expect(readdirSync(join(dir, 'new'))).toEqual([])
  })
})
