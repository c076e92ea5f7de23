import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../src/commands/scenario.js'
import { run as runScenarioCommand } from '../../src/commands/run.js'
import type { Output } from '../../src/commands/output.js'
import { ConfigError } from '../../src/flags/config-error.js'

function capture(): Output & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) }
  return io
}

describe('fleetsim scenario', () => {
  it('validate prints OK per valid file and exits 0', async () => {
    const io = capture()
    const code = await run(['validate', 'scenarios/steady-fleet.yaml', 'scenarios/rolling-restart.yaml'], io)
    expect(code).toBe(0)
    expect(io.stdout).toBe('OK scenarios/steady-fleet.yaml\nOK scenarios/rolling-restart.yaml\n')
  })

  it('validate prints every problem and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetsim-'))
    const file = join(dir, 'bad.yaml')
    await writeFile(file, 'description: bad\nstages:\n  - delay: soon\n    next: ofline\n')
    const io = capture()
    expect(await run(['validate', file, 'scenarios/steady-fleet.yaml'], io)).toBe(1)
    expect(io.stderr).toContain(`${file}:3:12 stages[0].delay: expected a duration like "30s", "5m" or "1h30m" (units largest first, each once), got "soon"`)
    expect(io.stderr).toContain(`${file}:4:11 stages[0].next: expected an action`)
    expect(io.stderr).toContain(`FAIL ${file}: 2 problems`)
    expect(io.stdout).toBe('OK scenarios/steady-fleet.yaml\n')
  })

  it('validate reads a named pipe nobody writes as empty, at once, where it waited for a writer for ever', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetsim-'))
    const fifo = join(dir, 'scenario.fifo')
    execFileSync('mkfifo', [fifo])
    const io = capture()
    expect(await run(['validate', fifo], io)).toBe(1)
    expect(io.stderr).toContain(`${fifo} expected a scenario mapping at the top of the document, got nothing`)
  })

  it('validate refuses a module set of more modules than an agent runs (8 were cut to 6, and crash-module m7 crashed another)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetsim-'))
    const file = join(dir, 'eight-modules.yaml')
    const modules = Array.from({ length: 8 }, (_, k) => `{ name: m${k}, kind: im_file }`).join(', ')
    await writeFile(file, `description: eight modules\nfleet:\n  moduleSets: [{ name: wide, modules: [${modules}] }]\ntimeline:\n  - { at: 10s, action: crash-module, module: m7, for: 1h }\n`)
    const io = capture()
    expect(await run(['validate', file], io)).toBe(1)
    expect(io.stderr).toBe(`${file} a module set may hold at most 6 modules, the most an agent runs, got 8 in "wide"; move the others to another module set\nFAIL ${file}: 1 problem\n`)
  })

  it('validate and run refuse what the checks pass and the engine cannot hold (17 stages), where validate said OK and run then failed without naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetsim-'))
    const file = join(dir, 'seventeen.yaml')
    const stages = Array.from({ length: 17 }, (_, k) => `  - { name: s${k}, select: { state: ONLINE }, rate: 1/h, next: offline }`).join('\n')
    await writeFile(file, `description: seventeen stages\nstages:\n${stages}\n`)
    const message = `${file} a scenario may have at most 16 stages, got 17; merge stages that select the same agents, or split the scenario in two`
    const io = capture()
    expect(await run(['validate', file], io)).toBe(1)
    expect(io.stderr).toBe(`${message}\nFAIL ${file}: 1 problem\n`)
    const json = capture()
    expect(await run(['validate', '--json', file], json)).toBe(1)
    expect(JSON.parse(json.stdout)[0].issues[0].code).toBe('FSC_UNSUPPORTED')
    const err: string[] = []
    const out = join(dir, 'out')
    const ran = await runScenarioCommand([file, '--out', out, '--workers', '1'], { out: () => undefined, err: { write: (t: string) => err.push(t) } } as never)
    expect(ran).toBe(1)
    expect(err.join('')).toBe(`${message}\nfleetsim run: ${file} is not a scenario fleetsim can run (1 problem); nothing was run\n`)
  })

  it('validate tells a scenario author what to do with several YAML documents and with a directory, not a programmer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetsim-'))
    const file = join(dir, 'two.yaml')
    await writeFile(file, 'description: a\n---\ndescription: b\n')
    const io = capture()
    expect(await run(['validate', file, dir], io)).toBe(1)
    expect(io.stderr).toBe(
      `${file}:2:1 invalid YAML: the file holds more than one YAML document (a "---" after the first); a scenario is one document: remove the "---" and what follows it, or put each scenario in a file of its own\n` +
        `FAIL ${file}: 1 problem\n` +
        `${dir} is a directory, not a scenario file; name a .yaml or .json file in it\nFAIL ${dir}: 1 problem\n`
    )
  })

  it('validate gives the total past the 100 problems it lists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetsim-'))
    const file = join(dir, 'many.yaml')
    await writeFile(file, `description: x\n${Array.from({ length: 250 }, (_, i) => `k${i}: 1`).join('\n')}\n`)
    const io = capture()
    expect(await run(['validate', file], io)).toBe(1)
    expect(io.stderr).toContain(`${file} and 150 more problems, not listed`)
    expect(io.stderr).toContain(`FAIL ${file}: 250 problems (the first 100 listed)\n`)
  })

  it('validate refuses a file that is not UTF-8, at its first bad byte, where it was read with U+FFFD in its place', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleetsim-'))
    const latin1 = join(dir, 'latin1.yaml')
    // "café" saved as Latin-1, after two characters of two UTF-8 bytes each
    await writeFile(latin1, Buffer.concat([Buffer.from('description: ok\nname: éé caf'), Buffer.from([0xe9]), Buffer.from('\n')]))
    const utf16 = join(dir, 'utf16.yaml')
    await writeFile(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('description: ok\n', 'utf16le')]))
    const io = capture()
    expect(await run(['validate', latin1, utf16], io)).toBe(1)
    expect(io.stderr).toContain(`${latin1}:2:13 the file is not UTF-8: byte 0xE9 here is not a UTF-8 character`)
    expect(io.stderr).toContain(`${utf16} the file is UTF-16 (it starts with the byte order mark FF FE), not UTF-8; save it as UTF-8`)
    const json = capture()
    await run(['validate', '--json', latin1], json)
    expect(JSON.parse(json.stdout)[0].issues).toEqual([expect.objectContaining({ code: 'FSC_ENCODING', line: 2, column: 13 })])
  })

  it('validate --json prints the issues as data', async () => {
    const io = capture()
    expect(await run(['validate', '--json', '/nonexistent.yaml'], io)).toBe(1)
    expect(JSON.parse(io.stdout)).toEqual([
      { file: '/nonexistent.yaml', ok: false, issues: [expect.objectContaining({ code: 'FSC_READ' })] }
    ])
  })

  it('list shows every library scenario with its description', async () => {
    const io = capture()
    expect(await run(['list'], io)).toBe(0)
    expect(io.stdout).toMatch(/^partial-reconnect-failure +5,000 agents; exactly 10/m)
    expect(io.stdout.match(/scenarios\/[a-z-]+\.yaml/g)).toHaveLength(10)
  })

  it('answers usage errors with a ConfigError (exit code 2) that says what to do', async () => {
    const io = capture()
    await expect(run(['validate'], io)).rejects.toThrow('fleetsim scenario validate needs a FILE (see fleetsim scenario validate --help)')
    await expect(run(['validate', '--jsno', 'a.yaml'], io)).rejects.toThrow('unknown flag --jsno; did you mean --json?')
    await expect(run(['valdate', 'a.yaml'], io)).rejects.toThrow('unknown scenario command "valdate"; did you mean "validate"?')
    await expect(run(['frobnicate'], io)).rejects.toThrow(ConfigError)
  })
})
