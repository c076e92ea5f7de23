/**
 * A password read from a pipe (`--password-file <(pass show fleetsim)`, `--password-file
 * /dev/stdin`): a pipe is read to its end, not refused as no regular file. In a child process
 * started through a shell, as users write it (Node's own child stdin is a socket, not a pipe).
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const code = "import('./src/config.ts').then((m) => process.stdout.write(m.parseServeConfig(['--password-file', process.env.PW_FILE], {}, m.nodeConfigContext).password))"
const node = `'${process.execPath}' --import tsx -e "${code}"`
const shell = (line: string) => execFileSync('bash', ['-c', line], { cwd: root, encoding: 'utf8', timeout: 30_000 })

describe('a password file that is a pipe', () => {
  it('is read to its end from a pipe into stdin', () => {
    expect(shell(`printf 's3cret\\n' | PW_FILE=/dev/stdin ${node}`)).toBe('s3cret')
  })

  it('is read to its end from a process substitution whose command writes after a while', () => {
    expect(shell(`PW_FILE=<(sleep 0.2; echo s3cret) ${node}`)).toBe('s3cret')
  })
})
