/**
 * `fleetsim scenario validate FILE...` and `fleetsim scenario list`.
 * `argv` holds the words after `scenario`. Returns the exit code; never exits the process.
 */
import { relative } from 'node:path'
import { ConfigError } from '../flags/config-error.js'
import { switchFlag } from '../flags/flag.js'
import { parseFlags } from '../flags/parse.js'
import { suggest } from '../lib/suggest.js'
import { formatIssue, problemCount } from '../scenario/errors.js'
import { unsupportedBy } from '../fleet/scenario-program.js'
import { listLibrary } from '../scenario/library.js'
import { loadScenarioFile } from '../scenario/load.js'
import { stdio, type Output } from './output.js'

export const USAGE = `Usage:
  fleetsim scenario validate FILE...   check scenario files; prints OK or every problem
  fleetsim scenario list               the scenario library with descriptions

Options:
  --json    validate: print the result as JSON (one object per file)
`

const JSON_OUTPUT = switchFlag({ name: 'json', help: 'print the result as JSON (one object per file)' })
const SUBCOMMANDS = ['validate', 'list']

async function validate(args: string[], io: Output): Promise<number> {
  const flags = parseFlags(args, [JSON_OUTPUT], { command: 'fleetsim scenario validate', positionals: { min: 1, max: Infinity, name: 'FILE' } })
  if (flags.help) {
    io.out(USAGE)
    return 0
  }
  const json = flags.get(JSON_OUTPUT, false)
  const files = flags.positionals
  let failed = 0
  const report: unknown[] = []
  for (const file of files) {
    const loaded = await loadScenarioFile(file)
    const unsupported = loaded.ok ? unsupportedBy(loaded.scenario, file) : undefined
    const result = unsupported === undefined ? loaded : { ok: false as const, issues: [unsupported] }
    if (!result.ok) failed++
    if (json) {
      report.push(result.ok ? { file, ok: true } : { file, ok: false, issues: result.issues })
    } else if (result.ok) {
      io.out(`OK ${file}\n`)
    } else {
      for (const issue of result.issues) io.err(`${formatIssue(issue)}\n`)
      const n = problemCount(result.issues)
      const listed = n === result.issues.length ? '' : ` (the first ${result.issues.length - 1} listed)`
      io.err(`FAIL ${file}: ${n} problem${n === 1 ? '' : 's'}${listed}\n`)
    }
  }
  if (json) io.out(`${JSON.stringify(report, null, 2)}\n`)
  return failed === 0 ? 0 : 1
}

async function list(io: Output): Promise<number> {
  const entries = await listLibrary()
  const width = Math.max(0, ...entries.map((e) => e.name.length))
  for (const e of entries) {
    io.out(`${e.name.padEnd(width)}  ${e.description.replace(/\s+/g, ' ').trim()}\n`)
    io.out(`${' '.repeat(width)}  ${relative(process.cwd(), e.file) || e.file}\n`)
  }
  return entries.every((e) => e.valid) ? 0 : 1
}

export async function run(argv: string[], io: Output = stdio): Promise<number> {
  const [sub, ...rest] = argv
  switch (sub) {
    case 'validate':
      return validate(rest, io)
    case 'list':
      parseFlags(rest, [], { command: 'fleetsim scenario list' })
      return list(io)
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.out(USAGE)
      return sub === undefined ? 2 : 0
    default: {
      const guess = suggest(sub, SUBCOMMANDS)
      throw new ConfigError('FLEETSIM_UNEXPECTED_ARGUMENT', `unknown scenario command "${sub}"${guess === undefined ? '' : `; did you mean "${guess}"?`} (see fleetsim scenario --help)`)
    }
  }
}
