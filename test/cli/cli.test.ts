import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { main, reportFailure, type Output } from '../../src/commands/index.js'
import { run as serve } from '../../src/commands/serve.js'
import { COMMANDS } from '../../src/commands/table.js'
import { SERVE_FLAGS } from '../../src/config.js'
import { envName } from '../../src/flags/flag.js'

const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env: { ...process.env, NO_COLOR: '1' } })

function capture(): Output & { stdout: string; stderr: string } {
  const sink = { stdout: '', stderr: '', out: (text: string) => void (sink.stdout += text), err: (text: string) => void (sink.stderr += text) }
  return sink
}

describe('the fleetsim executable', () => {
  it('prints help listing every serve flag with its env twin and default, and exits 0', async () => {
    const { stdout } = await cli('--help')
    for (const flag of SERVE_FLAGS) {
      const line = stdout.split('\n').find((candidate) => candidate.trimStart().split(' ')[0] === `--${flag.name}`)
      expect(line, `help line of --${flag.name}`).toBeDefined()
      expect(line).toContain(envName(flag.name))
      expect(line).toContain(flag.defaultText)
      expect(line).toContain(flag.help)
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

  it('prints the stack of a failure that is fleetsim\'s own bug, and only the message of any other', () => {
    const bug = capture()
    expect(reportFailure(new RangeError('Maximum call stack size exceeded'), bug)).toBe(1)
    expect(bug.stderr).toMatch(/^fleetsim: Maximum call stack size exceeded\nThis is a bug in fleetsim: please report it with these lines\.\nRangeError: Maximum call stack size exceeded\n\s+at /)
    const failed = capture()
    expect(reportFailure(new Error('scenario x.yaml: no such file'), failed)).toBe(1)
    expect(failed.stderr).toBe('fleetsim: scenario x.yaml: no such file\n')
  })

  it('rejects a mistyped command with exit code 2, suggesting the nearest', async () => {
    const output = capture()
    expect(await main(['srve'], output)).toBe(2)
    expect(output.stderr).toBe('fleetsim: unknown command "srve"; did you mean "serve"? (see fleetsim --help)\n')
  })

  it('points a subcommand given without its command to the command', async () => {
    for (const word of ['validate', 'list']) {
      const output = capture()
      expect(await main([word, 'x.yaml'], output)).toBe(2)
      expect(output.stderr).toBe(`fleetsim: unknown command "${word}"; did you mean "scenario ${word}"? (see fleetsim --help)\n`)
    }
  })

  it('says where the version is when a command is given --version', async () => {
    for (const argv of [['serve', '--version'], ['--agents', '5', '--version']]) {
      const output = capture()
      expect(await main(argv, output)).toBe(2)
      expect(output.stderr).toBe('fleetsim: unknown flag --version; the version is `fleetsim --version` (see fleetsim serve --help)\n')
    }
  })

  it('rejects an unknown command with exit code 2, listing the commands', async () => {
    const output = capture()
    expect(await main(['frobnicate'], output)).toBe(2)
    expect(output.stderr).toBe(`fleetsim: unknown command "frobnicate"; commands: ${Object.keys(COMMANDS).join(', ')} (see fleetsim --help)\n`)
  })

  it('runs serve when the first argument is a flag, so its flag errors come back as exit code 2', async () => {
    const output = capture()
    expect(await main(['--bogus'], output)).toBe(2)
    expect(output.stderr).toBe('fleetsim: unknown flag --bogus (see fleetsim serve --help)\n')
  })

  it('suggests the nearest serve flag for a mistyped one', async () => {
    const output = capture()
    expect(await main(['--agent', '5'], output)).toBe(2)
    expect(output.stderr).toBe('fleetsim: unknown flag --agent; did you mean --agents? (see fleetsim serve --help)\n')
  })
})

describe('fleetsim serve --help', () => {
  it('prints every serve flag with its env twin and exits 0 without starting a server', async () => {
    for (const argv of [['--help'], ['--agents', 'ten', '-h']]) {
      const output = capture()
      expect(await serve(argv, output)).toBe(0)
      expect(output.stdout).toMatch(/^Usage: fleetsim serve \[flags\]/)
      for (const flag of SERVE_FLAGS) expect(output.stdout).toContain(envName(flag.name))
    }
  })
})
