import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { SERVE_FLAGS, envName } from '../../src/config.js'
import { COMMANDS, main, type Output } from '../../src/commands/index.js'

const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env: { ...process.env, NO_COLOR: '1' } })

function capture(): Output & { stdout: string; stderr: string } {
  const sink = { stdout: '', stderr: '', out: (text: string) => void (sink.stdout += text), err: (text: string) => void (sink.stderr += text) }
  return sink
}

describe('the fleetsim executable', () => {
  it('prints help listing every serve flag with its env twin and default, and exits 0', async () => {
    const { stdout } = await cli('--help')
    for (const spec of SERVE_FLAGS) {
      const line = stdout.split('\n').find((candidate) => candidate.trimStart().split(' ')[0] === `--${spec.name}`)
      expect(line, `help line of --${spec.name}`).toBeDefined()
      expect(line).toContain(envName(spec.name))
      expect(line).toContain(spec.defaultText)
    }
  })

  it('exits with code 2 and names the flag when a value is bad', async () => {
    const failure = await cli('serve', '--agents', 'ten').then(
      () => undefined,
      (error: unknown) => error as { code: number; stderr: string }
    )
    expect(failure?.code).toBe(2)
    expect(failure?.stderr).toContain('fleetsim: --agents must be a positive integer, got "ten"')
  })

  it('starts with a shebang so the installed bin runs under node', () => {
    expect(readFileSync('src/cli.ts', 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true)
  })
})

describe('main', () => {
  it('prints the package version for --version', async () => {
    const output = capture()
    expect(await main(['--version'], output)).toBe(0)
    expect(output.stdout).toBe(`${(JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version}\n`)
  })

  it('treats help and -h like --help', async () => {
    for (const word of ['help', '-h']) {
      const output = capture()
      expect(await main([word], output)).toBe(0)
      expect(output.stdout).toContain('Flags of fleetsim serve')
    }
  })

  it('lists every command in help', async () => {
    const output = capture()
    await main(['--help'], output)
    for (const command of Object.values(COMMANDS)) expect(output.stdout).toContain(`fleetsim ${command.usage}`)
  })

  it('rejects a mistyped command with exit code 2, suggesting the nearest', async () => {
    const output = capture()
    expect(await main(['srve'], output)).toBe(2)
    expect(output.stderr).toBe('fleetsim: unknown command "srve"; did you mean "serve"? (see fleetsim --help)\n')
  })

  it('rejects an unknown command with exit code 2, listing the commands', async () => {
    const output = capture()
    expect(await main(['frobnicate'], output)).toBe(2)
    expect(output.stderr).toBe(`fleetsim: unknown command "frobnicate"; commands: ${Object.keys(COMMANDS).join(', ')} (see fleetsim --help)\n`)
  })

  it('runs serve when the first argument is a flag, so its flag errors come back as exit code 2', async () => {
    const output = capture()
    expect(await main(['--bogus'], output)).toBe(2)
    expect(output.stderr).toBe('fleetsim: unknown flag --bogus (see fleetsim --help)\n')
  })
})
